"""Learning the table's voices from play: what is learned from, and real learning with PocketSphinx
on corpus audio of a voice the recognizer's settings never saw."""

from __future__ import annotations

import io
import wave
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from referee.asr import kept_recordings, play_phrases
from referee.asr import learn as voice_learning
from referee.asr.find import find_model
from referee.asr.grammar import PhraseList
from referee.asr.sphinx import SphinxRecognizer
from referee.cli import main
from referee.doubt import CONFIRMED
from referee.learning import TableLearner
from referee.listener import Listener
from referee.phrases import parse
from referee.voice import VoiceReferee
from referee.wav import read_pcm
from web_scoreboard.app import DB_NAME
from web_scoreboard.heard import Heard
from web_scoreboard.store import Store

PLAYED = (("normal", "low"), ("slow", "low"))  # what the table said while playing
TESTED = (("slow", "high"), ("fast", "high"))  # what it says later


def wav(pcm: bytes) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(pcm)
    return out.getvalue()


def tone(seconds: float, loud: bool) -> bytes:
    n = int(seconds * 16000)
    level = 8000 if loud else 10
    return (level * np.sin(np.arange(n) * 0.3)).astype("<i2").tobytes()


def phrase(at: float, *, status: str = "accepted", conf: float = 0.9, reason: str | None = None,
           t: float = 1.0, text: str = "truco", talk_before: bool = False) -> play_phrases.HeardPhrase:
    # 2 s of clip: the words from 0.5 to 1.0 s, quiet around them (or talk right before)
    clip = tone(0.5, talk_before) + tone(0.5, True) + tone(1.0, False)
    return play_phrases.HeardPhrase(at, status, reason, text,
                                      {"t": t, "confidence": conf, "speech": [0.5, 1.0]}, wav(clip))


def test_only_what_the_game_accepted_surely_or_a_person_confirmed_is_learned() -> None:
    items = [
        phrase(1.0),
        phrase(2.0, conf=0.5, t=2.0),  # unsure, never confirmed
        phrase(3.0, conf=0.5, t=3.0, reason=CONFIRMED),  # confirmed with a tap
        phrase(4.0, status="rejected", t=4.0),  # refused by the rules
        phrase(5.0, t=1.0),  # the same utterance (two calls) stored twice
        phrase(6.0, t=7.0, text="quiero retruco"),
        phrase(6.5, t=8.0, talk_before=True),  # inside a longer sentence: maybe chatter
    ]
    got = play_phrases.samples(items)
    assert [text for _, text in got] == ["truco", "truco", "quiero retruco"]
    # the words and 0.2 s either side: 0.3..1.2 s of the clip
    assert all(len(pcm) == int(0.9 * 16000) * 2 for pcm, _ in got)
    # heard after the others (its row in the store), though dated before them: learned last
    later = replace(phrase(0.5, t=9.0, text="quiero vale cuatro"), heard_id=1)
    assert [text for _, text in play_phrases.samples([later, *items])][-1] == "quiero vale cuatro"
    without_span = play_phrases.HeardPhrase(7.0, "accepted", None, "flor", {"confidence": 1.0}, None)
    assert not play_phrases.learnable(without_span)
    # a sure "quiero" said with a doubtful "retruco": the phrase is not learned
    doubtful_word = phrase(9.0, text="quiero retruco")
    doubtful_word.extra["phrase_confidence"] = 0.3
    assert play_phrases.learnable(phrase(9.0)) and not play_phrases.learnable(doubtful_word)
    # an answer the table swapped for its opposite was misheard; one given to another seat was not
    swapped, flipped = phrase(10.0, text="quiero"), phrase(11.0, text="quiero")
    swapped.extra["changed"], flipped.extra["changed"] = "swap", "flip"
    assert not play_phrases.learnable(swapped) and play_phrases.learnable(flipped)
    # a doubtful «envido» confirmed as the «falta envido» it ended lost a word: misheard too
    longer = phrase(12.0, conf=0.3, text="envido",
                    reason=f"{CONFIRMED}: era «falta envido»")
    assert not play_phrases.learnable(longer)
    # so did the look-alike «mazo», heard surely, taken for the «me voy al mazo» it ended
    ended = phrase(13.0, conf=0.95, text="uno mazo",
                   reason=f"{CONFIRMED}: era «me voy al mazo»")
    assert not play_phrases.learnable(ended)


def test_only_the_clips_of_the_newest_phrases_learned_from_are_read(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A store of many evenings is not read whole each time the table is learned: the clips are
    asked for newest first, until the newest ``MAX_PHRASES`` phrases said alone are found."""
    monkeypatch.setattr(play_phrases, "MAX_PHRASES", 3)
    items = [phrase(float(k), t=float(k), talk_before=k == 8) for k in range(10)]
    items = [replace(item, wav=None, clip_id=f"clip-{item.at:g}") for item in items]
    clips = {item.clip_id: phrase(0.0, talk_before=item.at == 8).wav for item in items}
    asked: list[str] = []

    def clip(item: play_phrases.HeardPhrase) -> bytes | None:
        asked.append(str(item.clip_id))
        return clips[item.clip_id]

    got = play_phrases.samples(items, clip=clip)
    assert len(got) == 3 and asked == ["clip-9", "clip-8", "clip-7", "clip-6"]  # 8: talk before


class StoreService:
    """The scoreboard's side of hearing, as plainly as it can be: every call the referee was sure
    of is accepted (a table where each call came at a moment it was legal), its clip kept as the
    scoreboard keeps it (FLAC, ``Heard.audio``)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.game = store.create_game({}, {})

    def log_length(self) -> int:
        return 0

    def read_calls(self, calls: list[tuple[str, str | None]], at: int) -> list[str | None] | None:
        return None

    def hear(self, text: str, team: str | None = None, *, clip: bytes | None = None,
             extra: dict[str, Any] | None = None,
             confidence: Callable[[int, int], float] | None = None,
             needed: Callable[[str | None], float] | None = None,
             earlier: object = None) -> list[dict[str, Any]]:
        items = parse(text)
        conf = min((confidence(h.start, h.end) for h in items), default=1.0) if confidence else 1.0
        bar = max((needed(h.label) for h in items), default=0.0) if needed else 0.0
        if all(h.kind == "decoy" for h in items):
            status = "rejected"
        else:
            status = "unsure" if conf < bar else "accepted"
        clip_id = self.store.put_clip(*(Heard(text, status, clip=clip).audio() or (b"", "")))
        extra = {**(extra or {}), "confidence": round(conf, 3)}
        return [self.store.add_heard(self.game, status, text, clip_id=clip_id, extra=extra).to_dict()]


def play(store: Store, rec: SphinxRecognizer, files: list[Path]) -> None:
    """The files said one after another at the table, one stream through the real listener and
    voice referee."""
    import numpy as np

    from referee.audio import to_chunk
    from referee.wav import read_wav

    listener = Listener(rec, VoiceReferee(StoreService(store), log=lambda _: None))
    stream = np.concatenate([read_wav(f) for f in files])
    step = 1600
    for i in range(0, len(stream), step):
        listener.feed(to_chunk(stream[i:i + step], i / 16000))
    listener.close()


def heard_right(rec: SphinxRecognizer, audio: bytes, label: str) -> bool:
    texts = [r.text for r in rec.feed(audio) + rec.flush() if r.final]
    got = [h.label if h.kind == "call" else f"puntos:{h.points}"
           for text in texts for h in parse(text) if h.kind != "decoy"]
    return label in got


def test_a_table_that_plays_is_heard_better(shared_dir: Path, model: Path,
                                            rows: list[dict[str, str]], tmp_path: Path) -> None:
    played = [shared_dir / "speech" / r["file"] for r in rows if (r["speed"], r["pitch"]) in PLAYED]
    tests = [r for r in rows if (r["speed"], r["pitch"]) in TESTED]
    models = tmp_path / "models"
    store = Store(tmp_path / DB_NAME)
    rec = SphinxRecognizer(PhraseList.from_table(), model)
    play(store, rec, played)
    said: list[str] = []
    told: list[bool] = []  # whether the recognizer counted itself calibrated when told
    learner = TableLearner(store, models, rec, said.append, min_new=12,
                           on_learned=lambda: told.append(rec.calibrated))
    assert learner.step()
    assert "aprendí las voces de la mesa" in said[0] and told == [True]
    assert not learner.step()  # nothing new since
    learner.close()
    learned = voice_learning.note(models)
    assert learned["heard"] >= 12 and learned["prompts"] == 0
    assert learned["narrow"] is False  # the corpus's voices are full band (referee.band)
    # The running recognizer takes the new means at its next pause.
    assert rec.means is None and rec.calibrated
    rec.feed(read_pcm(played[0]))
    assert rec.means == models / "voice-calibration" / "means"

    plain = SphinxRecognizer(PhraseList.from_table(), model)
    taught = SphinxRecognizer(PhraseList.from_table(), model, means=rec.means)
    for r in (plain, taught):  # both start from this voice's cepstral mean
        for file in played[:20]:
            r.settle(read_pcm(file))
    start = {id(r): r.cepstral_mean for r in (plain, taught)}
    score = {"plain": 0, "taught": 0}
    for row in tests:
        audio = read_pcm(shared_dir / "speech" / row["file"])
        for name, r in (("plain", plain), ("taught", taught)):
            r.reset()
            r.cepstral_mean = start[id(r)]
            score[name] += heard_right(r, audio, row["label"])
    assert score["taught"] >= score["plain"] + 4, score

    # The calibration forgotten (from the tablet): the model's own means again at the next
    # pause, and the running recognizer hears as one that never had any.
    rec.use_means(None)
    assert not rec.calibrated and rec.means is not None  # forgotten at once, taken at the pause
    rec.feed(read_pcm(played[1]))
    assert rec.means is None
    for row in tests[:12]:
        audio = read_pcm(shared_dir / "speech" / row["file"])
        texts = []
        for r in (plain, rec):
            r.reset()
            r.cepstral_mean = start[id(plain)]
            texts.append([x.text for x in r.feed(audio) + r.flush() if x.final])
        assert texts[0] == texts[1], row["file"]

    # 'voices learn' does the same from the kept games; 'voices forget' stops learning from them.
    store.close()
    assert main(["voices", "learn", "--data-dir", str(tmp_path), "--models-dir", str(models)]) == 2
    (models / "sphinx").mkdir()
    (models / "sphinx" / "acoustic_model").symlink_to(model)
    assert main(["voices", "learn", "--data-dir", str(tmp_path), "--models-dir", str(models)]) == 0
    assert find_model(models, "sphinx").calibration is not None
    assert main(["voices", "forget", "--models-dir", str(models)]) == 0
    assert find_model(models, "sphinx").calibration is None
    store = Store(tmp_path / DB_NAME)
    assert not TableLearner(store, models, rec, said.append, min_new=1).step()
    assert main(["voices", "learn", "--data-dir", str(tmp_path), "--models-dir", str(models)]) == 1
    assert find_model(models, "sphinx").calibration is None  # nothing to learn from: none made
    store.close()


def test_voices_learn_with_no_play_to_learn_from_says_so_and_changes_nothing(
        shared_dir: Path, model: Path, rows: list[dict[str, str]], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A table calibrated that has not played since: before, «Listo: aprendí de 0 frases del
    juego…», and the calibration fitted again on its own recordings."""
    from referee.asr.adapt import Stats
    from referee.asr.calibration_folder import save_calibration
    from referee.asr.ptm_model import PtmModel

    models = tmp_path / "models"
    (models / "sphinx").mkdir(parents=True)
    (models / "sphinx" / "acoustic_model").symlink_to(model)
    said = [(read_pcm(shared_dir / "speech" / r["file"]), r["text"]) for r in rows
            if (r["speed"], r["pitch"]) == PLAYED[0]]
    kept_recordings.save_prompts(models, [said])
    ptm = PtmModel.load(model)
    means = save_calibration(models, models / "sphinx" / "acoustic_model", ptm.means,
                             Stats.empty(ptm), prompts=len(said), heard=0, learned_until=0.0)
    kept = means.read_bytes(), voice_learning.note(models)
    Store(tmp_path / DB_NAME).close()  # 'serve' ran, and nobody played
    argv = ["voices", "learn", "--data-dir", str(tmp_path), "--models-dir", str(models)]
    assert main(argv) == 1
    out = capsys.readouterr()
    assert out.out == "" and out.err.startswith(
        f"No hay frases del juego de las que aprender en {tmp_path}: ")
    assert out.err.rstrip().endswith("No cambié nada.")
    assert (means.read_bytes(), voice_learning.note(models)) == kept
