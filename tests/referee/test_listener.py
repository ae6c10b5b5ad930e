"""Listener pipeline: early emission, no double hand-over, team hint, clips, evidence, and the
``listen`` command end to end on real audio."""

from __future__ import annotations

import json
import math
import wave
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from referee.asr.base import Result, Word
from referee.asr.grammar import PhraseList
from referee.asr.scripted import ScriptedRecognizer
from referee.asr.sphinx import SphinxRecognizer
from referee.asr.sphinx_decoder import SphinxTuning
from referee.audio import AudioChunk
from referee.cli import main
from referee.commands import listen_printer
from referee.evidence import EvidenceStore
from referee.listener import HOLD_S, Listener, can_grow
from referee.misheard import DOUBTED_CONF
from referee.phrases import parse
from referee.utterance import Utterance, item_confidence
from referee.wav import WavSource, read_wav


def run_script(script: list[tuple[float, float, str, float]], seconds: float = 8.0,
               levels: tuple[float, ...] = (0.1,),
               backgrounds: tuple[float, ...] = ()) -> list[Utterance]:
    out: list[Utterance] = []
    listener = Listener(ScriptedRecognizer(script), out.append)
    for i in range(int(seconds * 10)):
        listener.feed(AudioChunk(b"\x01\x00" * 1600, i / 10, levels, backgrounds))
    listener.close()
    return out


def calls(utts: list[Utterance]) -> list[str]:
    return [h.label for u in utts for h in parse(u.text) if h.kind == "call"]


@pytest.mark.parametrize("words,grows", [
    (["vale"], True), (["treinta"], True), (["con", "flor"], True), (["contraflor"], True),
    (["truco"], False), (["no", "quiero"], False), (["vale", "cuatro"], False), (["flor"], False),
])
def test_can_grow(words: list[str], grows: bool) -> None:
    assert can_grow(words) is grows


def test_truco_goes_out_early_and_only_once() -> None:
    out = run_script([(0.5, 1.0, "truco", 0.9)])
    assert [u.text for u in out] == ["truco"]
    assert out[0].early and out[0].latency <= 0.3


def test_flor_waits_for_the_final_result() -> None:
    # a partial result has no confidence to judge a call that needs a surer hearing by
    out = run_script([(0.5, 1.0, "flor", 0.95), (2.0, 2.5, "truco", 0.9)])
    assert [(u.text, u.early) for u in out] == [("flor", False), ("truco", True)]


def test_vale_waits_for_cuatro_and_no_waits_for_quiero() -> None:
    out = run_script([(0.5, 1.5, "vale cuatro", 0.9), (3.0, 3.8, "no quiero", 0.9)])
    assert [u.text for u in out] == ["vale cuatro", "no quiero"]
    assert calls(out) == ["vale cuatro", "no quiero"]


def test_two_calls_in_one_phrase_and_chatter_only_at_the_end() -> None:
    out = run_script([(0.5, 1.5, "qué turco este", 0.9), (3.0, 4.0, "quiero retruco", 0.8)])
    assert calls(out) == ["quiero", "retruco"]
    chatter = next(u for u in out if "turco" in u.text)
    assert not chatter.early and chatter.text == "qué turco este"


def test_a_number_waits_for_the_final_result() -> None:
    out = run_script([(0.5, 1.7, "treinta y tres", 0.9)])
    assert [(u.text, u.early) for u in out] == [("treinta y tres", False)]


@pytest.mark.parametrize("script,heard", [
    ([(0.5, 0.9, "vale", 0.9), (1.3, 1.9, "cuatro", 0.9)], ["vale cuatro"]),
    ([(0.5, 1.0, "me voy", 0.9), (1.4, 1.9, "al mazo", 0.9)], ["me voy al mazo"]),
    ([(0.5, 0.9, "real", 0.9), (1.2, 1.7, "envido", 0.9)], ["real envido"]),
    # words that read as a call of their own only until the rest comes
    ([(0.5, 1.0, "con flor me", 0.95), (1.3, 1.9, "achico", 0.95)], ["con flor me achico"]),
    ([(0.5, 0.9, "con flor", 0.95), (1.2, 1.6, "quiero", 0.95)], ["con flor quiero"]),
    ([(0.5, 1.1, "contraflor al", 0.95), (1.4, 1.9, "resto", 0.95)], ["contraflor al resto"]),
    # «no» ends much table talk: never joined to the «quiero» after it (listener.NEVER_HELD)
    ([(0.5, 1.2, "qué mano no", 0.9), (1.6, 2.0, "quiero", 0.9)], ["quiero"]),
])
def test_a_call_broken_by_a_pause_is_heard_whole(script: list[tuple[float, float, str, float]],
                                                 heard: list[str]) -> None:
    out = run_script(script)
    assert calls(out) == heard
    assert not any(h.kind == "points" for u in out for h in parse(u.text))


@pytest.mark.parametrize("script", [
    [(0.5, 1.0, "treinta y", 0.9), (1.3, 1.7, "tres", 0.9)],
    # not 30, and then a «tres» the next seat would be taken to declare
    [(0.5, 0.9, "treinta", 0.9), (1.2, 1.7, "y tres", 0.9)],
])
def test_a_number_broken_by_a_pause_is_heard_whole(
        script: list[tuple[float, float, str, float]]) -> None:
    out = run_script(script)
    assert [h.points for u in out for h in parse(u.text)] == [33]


def test_a_treinta_nothing_follows_goes_out_alone() -> None:
    out = run_script([(0.5, 0.9, "treinta", 0.9), (4.0, 4.5, "truco", 0.9)])
    assert [u.text for u in out] == ["treinta", "truco"]
    assert out[0].emitted_at <= out[0].end + HOLD_S + 0.1


def test_the_first_words_of_a_call_go_out_alone_when_nothing_follows_soon() -> None:
    out = run_script([(0.5, 0.9, "vale", 0.9), (2.5, 3.0, "cuatro", 0.9), (5.0, 5.4, "real", 0.9)])
    assert [u.text for u in out] == ["vale", "cuatro", "real"]  # the last one at the end of the stream
    assert calls(out) == []
    vale = out[0]
    assert vale.emitted_at <= vale.end + HOLD_S + 0.1  # not kept waiting for the next phrase


def test_clip_covers_the_phrase() -> None:
    out = run_script([(3.0, 3.5, "truco", 0.9)])
    clip_s = len(out[0].clip) / 2 / 16000
    assert out[0].clip_start <= 3.0 and 1.0 <= clip_s <= 3.0


def test_loudest_channel_decides_the_team() -> None:
    assert run_script([(0.5, 1.0, "truco", 0.9)], levels=(0.01, 0.2))[0].team == "B"
    assert run_script([(0.5, 1.0, "truco", 0.9)], levels=(0.3, 0.2))[0].team == "A"
    assert run_script([(0.5, 1.0, "truco", 0.9)])[0].team is None
    # one of two microphones sent nothing (unplugged): the other hears both teams
    assert run_script([(0.5, 1.0, "truco", 0.9)], levels=(0.3, math.nan))[0].team is None


def test_the_team_is_the_one_whose_microphone_hears_the_voice_above_its_background() -> None:
    # a radio by A's microphone: louder than B's voice on B's, but B's is the voice
    radio = run_script([(0.5, 1.0, "truco", 0.9)], levels=(0.32, 0.2), backgrounds=(0.3, 0.02))
    assert radio[0].team == "B"
    # neither microphone heard a voice above its noise: the game decides, as with one
    unheard = run_script([(0.5, 1.0, "truco", 0.9)], levels=(0.32, 0.03), backgrounds=(0.3, 0.02))
    assert unheard[0].team is None


def run_two_mics(script: list[tuple[float, float, str, float]], a_until: float,
                 seconds: float = 4.0) -> list[Utterance]:
    """The script heard with a microphone per team: team A's the louder until ``a_until``."""
    out: list[Utterance] = []
    listener = Listener(ScriptedRecognizer(script), out.append)
    for i in range(int(seconds * 10)):
        levels = (0.3, 0.02) if i / 10 < a_until else (0.02, 0.3)
        listener.feed(AudioChunk(b"\x01\x00" * 1600, i / 10, levels))
    listener.close()
    return out


def test_a_phrase_both_teams_spoke_in_goes_out_one_utterance_per_team() -> None:
    # A declares, and B says «son buenas» before the phrase ends: with one team for the whole
    # phrase, «son buenas» would be A's, and refused
    out = run_two_mics([(0.5, 1.5, "veintisiete son buenas", 0.9)], a_until=1.0)
    assert [(u.text, u.team) for u in out] == [("veintisiete", "A"), ("son buenas", "B")]
    assert len({u.phrase for u in out}) == 1


@pytest.mark.parametrize("said", ["vale cuatro", "treinta y tres", "no quiero"])
def test_a_call_or_number_is_never_cut_between_teams(said: str) -> None:
    out = run_two_mics([(0.5, 1.5, said, 0.9)], a_until=1.0)
    assert " ".join(u.text for u in out) == said and len({u.team for u in out}) == 1


def test_evidence_store_keeps_records_and_clips(tmp_path: Path) -> None:
    store = EvidenceStore(tmp_path)
    a = store.record(t=1.0, text="truco", call="truco", points=None, accepted=True, reason="ok",
                     confidence=0.9, team="A", clip_pcm=b"\x00\x01" * 16000)
    b = store.record(t=2.0, text="qué turco", call=None, points=None, accepted=False,
                     reason="«turco» no es truco", confidence=0.8, team=None)
    assert a.id < b.id and store.get(b.id) == b and [e.id for e in store.all()] == [a.id, b.id]
    clip = store.clip_path(a.id)
    assert clip is not None
    with wave.open(str(clip)) as w:
        assert (w.getframerate(), w.getnchannels(), w.getnframes()) == (16000, 1, 16000)
    assert store.clip_path(b.id) is None and store.clip_path("../index") is None


def _concat(paths: list[Path], out: Path, gap_s: float = 0.6) -> None:
    gap = np.zeros((int(gap_s * 16000), 1))
    frames = np.concatenate([part for p in paths for part in (read_wav(p), gap)])
    with wave.open(str(out), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes((np.clip(frames[:, 0], -1, 1) * 32767).astype("<i2").tobytes())


@pytest.mark.shared
def test_listen_json_on_real_recordings(shared_dir: Path, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    real = shared_dir / "speech" / "real" / "truco-uruguayo"
    wav = tmp_path / "hand.wav"
    _concat([real / "truco.wav", real / "no_quiero.wav"], wav)
    code = main(["listen", "--wav", str(wav), "--json", "--recognizer", "sphinx",
                 "--models-dir", str(shared_dir / "models"), "--evidence", str(tmp_path / "ev")])
    assert code == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert [line["call"] for line in lines] == ["truco", "no quiero"]
    for line in lines:
        assert {"t", "text", "call", "points", "accepted", "reason"} <= set(line)
    assert lines[0]["accepted"] and lines[0]["t"] < lines[1]["t"]
    # either team could have sung the truco, one microphone cannot tell; only B can answer it
    assert [line["guess"] for line in lines] == [["team"], []]
    store = EvidenceStore(tmp_path / "ev")
    assert [e.call for e in store.all()] == ["truco", "no quiero"]
    assert all(store.clip_path(e.id) for e in store.all())


@pytest.mark.shared
def test_listen_plays_by_the_rules_it_is_given(shared_dir: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """A flor heard is refused in a game without flor, the default, and not with ``--flor``."""
    flor = shared_dir / "speech" / "real" / "truco-uruguayo" / "flor.wav"
    heard = {}
    for rules in ([], ["--flor"]):
        code = main(["listen", "--wav", str(flor), "--json", "--recognizer", "sphinx",
                     "--no-evidence", "--models-dir", str(shared_dir / "models"), *rules])
        [line] = [json.loads(out) for out in capsys.readouterr().out.splitlines() if out.strip()]
        assert code == 0 and line["call"] == "flor"
        heard[bool(rules)] = line
    assert not heard[False]["accepted"] and heard[False]["reason"].endswith("se juega sin flor")
    assert "sin flor" not in (heard[True]["reason"] or "")  # before: no such option


@pytest.mark.shared
def test_listen_says_a_recording_that_sounds_like_a_telephone(
        shared_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    digits = shared_dir / "speech" / "real" / "asterisk-es-mx-allison"  # 8 kHz telephone sound
    wav = tmp_path / "telefono.wav"
    _concat([digits / f"{n}.wav" for n in range(10)], wav)
    code = main(["listen", "--wav", str(wav), "--json", "--recognizer", "sphinx", "--no-evidence",
                 "--models-dir", str(shared_dir / "models")])
    assert code == 0
    told = [line for line in capsys.readouterr().err.splitlines() if line.startswith("[grabación]")]
    assert len(told) == 1 and "suena como un teléfono" in told[0], told


def _two_mics(said: list[tuple[int, Path, float]], out: Path, crosstalk: float = 0.15) -> None:
    """A two-channel WAV, a microphone per team: each recording (team 0 or 1, file, pause after
    its voice ends) loud on its team's channel and at ``crosstalk`` on the other, as both
    microphones hear every voice at the table."""
    channels: list[list[np.ndarray]] = [[], []]
    for team, path, pause_s in said:
        voice = read_wav(path)[:, 0]
        loud = np.flatnonzero(np.abs(voice) > 0.02)
        voice = voice[max(0, loud[0] - 800):loud[-1] + 800]  # from its voice's start to its end
        for c in (0, 1):
            channels[c] += [voice * (1.0 if c == team else crosstalk), np.zeros(int(pause_s * 16000))]
    frames = np.stack([np.concatenate([np.zeros(8000), *ch, np.zeros(16000)]) for ch in channels], 1)
    with wave.open(str(out), "wb") as w:
        w.setnchannels(2)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes((np.clip(frames, -1, 1) * 32767).astype("<i2").tobytes())


@pytest.mark.shared
def test_with_a_microphone_per_team_a_son_buenas_right_after_the_number_is_the_other_teams(
        shared_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # «veintisiete» and B's «son buenas» 0.05 s later are one phrase: given A's team as a whole,
    # the «son buenas» was refused («le toca decir a B1») and the envido stayed undecided
    real = shared_dir / "speech" / "real" / "truco-uruguayo"
    number = (shared_dir / "speech" / "clean" / "mbrola-es1" /
              "points__veintisiete__mbrola-es1__normal__high.wav")
    wav = tmp_path / "two-mics.wav"
    _two_mics([(0, real / "envido.wav", 0.6), (1, real / "quiero.wav", 0.6), (0, number, 0.05),
               (1, real / "son_buenas.wav", 0.6)], wav)
    code = main(["listen", "--wav", str(wav), "--json", "--channels", "2", "--no-evidence",
                 "--recognizer", "sphinx", "--models-dir", str(shared_dir / "models")])
    assert code == 0
    out, err = capsys.readouterr()
    lines = [json.loads(line) for line in out.splitlines() if line.strip()]
    assert [(x["seat"], x["call"], x["accepted"]) for x in lines] == [
        ("A1", "envido", True), ("B1", "quiero", True), ("A1", "puntos", True),
        ("B1", "son buenas", True)]
    assert "tanteador: A 2 — B 0" in err


def with_a_pause(said_wav: Path, out: Path, pause_s: float = 0.3) -> Path:
    """A real recording with ``pause_s`` of silence put in the dip between its first words and the
    rest, where the recognizer ends one phrase and starts another."""
    said = read_wav(said_wav)[:, 0]
    frames = len(said) // 160
    level = 20 * np.log10(np.sqrt(np.mean(said[:frames * 160].reshape(frames, 160) ** 2, axis=1)) + 1e-9)
    loud = np.flatnonzero(level > level.max() - 30)
    first, last = loud[0] + (loud[-1] - loud[0]) // 4, loud[-1] - (loud[-1] - loud[0]) // 4
    cut = (first + int(np.argmin(level[first:last]))) * 160
    with wave.open(str(out), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        split = np.concatenate([said[:cut], np.zeros(int(pause_s * 16000)), said[cut:]])
        w.writeframes((np.clip(split, -1, 1) * 32767).astype("<i2").tobytes())
    return out


@pytest.mark.shared
@pytest.mark.parametrize("name,call,not_heard", [
    ("vale_4.wav", "vale cuatro", "puntos"),  # «vale» waits for the rest (listener._HELD_TAILS)
    # a short «no» alone is heard as nothing: decoded again with «quiero» (SphinxTuning.join_s)
    ("no_quiero.wav", "no quiero", "quiero"),
])
def test_a_real_call_with_a_pause_in_the_middle_is_heard_whole(
        shared_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        name: str, call: str, not_heard: str) -> None:
    """A real call with 0.3 s of silence put between its words: heard as the call, not as its
    second half («cuatro», the number 4; «quiero», the opposite answer)."""
    wav = with_a_pause(shared_dir / "speech" / "real" / "truco-uruguayo" / name, tmp_path / name)
    code = main(["listen", "--wav", str(wav), "--json", "--recognizer", "sphinx",
                 "--models-dir", str(shared_dir / "models")])
    assert code == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    heard = [line["call"] for line in lines if not line.get("retracted")]
    assert call in heard
    assert not_heard not in heard


@pytest.mark.shared
def test_sphinx_decodes_a_phrase_that_heard_nothing_again_with_the_next(
        shared_dir: Path, tmp_path: Path) -> None:
    """The real «no… quiero» above, straight from the recognizer: with ``join_s`` off, the lone
    «no» is heard as nothing and the answer as «quiero»."""
    model = shared_dir / "models" / "cmusphinx-es-5.2-ptm" / "acoustic_model"
    wav = with_a_pause(shared_dir / "speech" / "real" / "truco-uruguayo" / "no_quiero.wav",
                       tmp_path / "no_quiero.wav")

    def heard(tuning: SphinxTuning) -> list[str]:
        rec = SphinxRecognizer(PhraseList.from_table(), model, tuning=tuning)
        results = [r for chunk in WavSource(wav) for r in rec.feed(chunk.pcm)] + rec.flush()
        return [r.text for r in results if r.final]

    assert heard(SphinxTuning(join_s=0.0)) == ["", "quiero"]
    assert heard(SphinxTuning()) == ["", "no quiero"]


@pytest.mark.shared
def test_listen_takes_back_a_low_confidence_call_as_unsure(
        shared_dir: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # a bar no whole phrase reaches, not even one heard with confidence 1 (the command's
    # --unsure-below goes up to 1); a call handed over early (bar 0) is applied as before
    monkeypatch.setattr(listen_printer, "confidence_needed",
                        lambda label, bar: 1.01 if bar > 0 else 0.0)
    wav = shared_dir / "speech" / "real" / "truco-uruguayo" / "truco.wav"
    code = main(["listen", "--wav", str(wav), "--json", "--recognizer", "sphinx", "--no-evidence",
                 "--models-dir", str(shared_dir / "models")])
    assert code == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    # applied at once from the partial result, then taken back by the whole phrase's confidence
    assert [(x["call"], x["accepted"], x["unsure"]) for x in lines] == [("truco", True, False),
                                                                       ("truco", False, True)]
    assert lines[0]["early"] and lines[1]["retracted"] and "dudoso" in lines[1]["reason"]


def _spoken_hand(shared_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                 *options: str) -> tuple[list[dict[str, Any]], str]:
    """``listen --json`` over a hand of real recordings (and ``options``): what it printed, and
    its stderr."""
    real = shared_dir / "speech" / "real" / "truco-uruguayo"
    said = ["envido", "no_quiero", "truco", "retruco", "vale_4", "no_quiero"]
    wav = tmp_path / "hand.wav"
    _concat([real / f"{name}.wav" for name in said], wav)
    code = main(["listen", "--wav", str(wav), "--json", "--no-evidence", "--recognizer", "sphinx",
                 "--models-dir", str(shared_dir / "models"), *options])
    assert code == 0
    captured = capsys.readouterr()
    return [json.loads(line) for line in captured.out.splitlines() if line.strip()], captured.err


@pytest.mark.shared
def test_a_spoken_hand_scores_like_the_same_hand_written_for_replay(
        shared_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from referee.replay import replay

    # the clips of "retruco" and "vale_4" say "quiero …"
    written = ["hand", "A1: envido", "B1: no quiero", "A1: truco",
               "B1: quiero retruco", "A1: quiero vale cuatro", "B1: no quiero"]
    # Every call of it is sure at the default threshold, each word read from the whole lattice
    # (read from one copy of it, the «quiero» before «vale cuatro» was 0.53 and taken back).
    lines, err = _spoken_hand(shared_dir, tmp_path, capsys)
    kept = [x for x in lines if not x.get("retracted")]
    assert all(line["accepted"] for line in kept)
    assert [x["call"] for x in kept] == ["envido", "no quiero", "truco", "quiero", "retruco",
                                         "quiero", "vale cuatro", "no quiero"]
    score = replay(written).to_dict()["score"]
    assert f"tanteador: A {score['A']} — B {score['B']}" in err


@pytest.mark.shared
def test_a_spoken_vale_cuatro_does_not_wait_for_the_doubtful_quiero_before_it(
        shared_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    # «quiero» and «vale cuatro» are handed over in two early utterances of one phrase, and the
    # whole phrase is unsure of the «quiero» (0.66, under a table's threshold of 0.7): it alone is
    # taken back.  Before, the «vale cuatro» waited for it, and B's «no quiero» after it was taken
    # for A's answer to the retruco: A 1 - B 2 instead of A 4 - B 0.  The recognizer is not told
    # what the table expects: told, it is sure of that «quiero» (0.90), and nothing is doubtful.
    from referee.commands import listen

    monkeypatch.setattr(listen, "expect", lambda recognizer, expected: None)
    lines, err = _spoken_hand(shared_dir, tmp_path, capsys, "--unsure-below", "0.7")
    taken = [(x["call"], x["reason"].split(" (")[0]) for x in lines if x.get("retracted")]
    assert taken == [("quiero", "dudoso: la frase entera no lo confirmó")]
    assert [(x["seat"], x["call"]) for x in lines][-1] == ("B1", "no quiero")
    assert "tanteador: A 4 — B 0" in err


class TwoPassRecognizer:
    """Partial results say one thing, the final result (with real confidences) maybe another."""

    name, low_accuracy, sample_rate = "two-pass", False, 16000

    def __init__(self, partial: str, final: str, final_conf: float, longer: float = 0.0) -> None:
        self.partial, self.final, self.final_conf = partial, final, final_conf
        self.longer = longer  # how much longer the final result hears the last word
        self.t = 0.0

    def _result(self, text: str, conf: float, final: bool) -> Result:
        words = [Word(w, conf, 0.5 + 0.3 * k, 0.8 + 0.3 * k) for k, w in enumerate(text.split())]
        if final:
            words[-1] = replace(words[-1], end=words[-1].end + self.longer)
        return Result(text, tuple(words), final, 0.5, words[-1].end, self.t)

    def feed(self, pcm: bytes) -> list[Result]:
        self.t += len(pcm) / 2 / 16000
        if 1.2 <= self.t < 1.6:
            return [self._result(self.partial, 0.8, final=False)]
        if abs(self.t - 2.0) < 0.05:
            return [self._result(self.final, self.final_conf, final=True)]
        return []

    def flush(self) -> list[Result]:
        return []

    def reset(self) -> None:
        self.t = 0.0

    @property
    def stream_time(self) -> float:
        return self.t


@pytest.mark.parametrize("final,final_conf,revised", [
    ("envido", 0.9, 0.9),  # the whole phrase confirms it
    ("envido", 0.3, 0.3),  # same word, but unsure
    ("envido", 0.0, 0.0),  # same word, its posterior nothing: still the word that was sent
    ("embudo", 0.9, 0.0),  # the whole phrase heard a look-alike there
])
def test_early_calls_are_revised_by_the_final_result(final: str, final_conf: float,
                                                     revised: float) -> None:
    out: list[Utterance] = []
    seen: list[tuple[str, float]] = []
    listener = Listener(TwoPassRecognizer("envido", final, final_conf), out.append,
                        on_revisions=lambda pairs: seen.extend(
                            (utt.text, later.confidence) for utt, later in pairs))
    for i in range(30):
        listener.feed(AudioChunk(b"\x01\x00" * 1600, i / 10, (0.1,)))
    assert out[0].early and out[0].text == "envido"
    assert seen == [("envido", revised)]
    # what was sent is revised; what the whole phrase heard instead goes out on its own
    assert [u.text for u in out] == ["envido"] + ([final] if final != "envido" else []), out
    assert not out[-1].early or final == "envido"


@pytest.mark.parametrize("longer", [0.0, 0.3, 0.6])
def test_a_word_the_whole_phrase_hears_longer_than_when_it_went_out_is_not_handed_over_again(
        longer: float) -> None:
    # at a noisy table the final result may stretch the last word over the noise after it: the
    # «quiero» of a «no quiero» handed over early was handed over again on its own
    out: list[Utterance] = []
    listener = Listener(TwoPassRecognizer("no quiero", "no quiero", 0.9, longer), out.append)
    for i in range(30):
        listener.feed(AudioChunk(b"\x01\x00" * 1600, i / 10, (0.1,)))
    listener.close()
    assert [(u.text, u.early) for u in out] == [("no quiero", True)]


class TimedRecognizer:
    """Plays back results at set moments of the stream: (time, final, [(word, start, end)])."""

    name, low_accuracy, sample_rate = "timed", False, 16000

    def __init__(self, steps: list[tuple[float, bool, list[tuple[str, float, float]]]]) -> None:
        self.steps, self.t = steps, 0.0

    def feed(self, pcm: bytes) -> list[Result]:
        self.t += len(pcm) / 2 / 16000
        due = [step for step in self.steps if step[0] <= self.t + 1e-9]
        self.steps = self.steps[len(due):]
        return [Result(" ".join(w for w, _, _ in said), tuple(Word(w, 0.9, a, b) for w, a, b in said),
                       final, said[0][1], said[-1][2], at) for at, final, said in due]

    def flush(self) -> list[Result]:
        return []


def test_a_short_word_right_after_one_handed_over_is_a_word_of_its_own() -> None:
    # «truco» went out early; then the recognizer heard a short «no» touching it and a «quiero»
    # after: «no quiero» is a call of its own, not a «quiero» whose «no» was handed over
    first = [("truco", 0.5, 0.7)]
    both = first + [("no", 0.7, 0.79), ("quiero", 0.79, 1.2)]
    out: list[Utterance] = []
    listener = Listener(TimedRecognizer([(1.0, False, first), (1.5, False, both), (1.6, True, both)]),
                        out.append)
    for i in range(25):
        listener.feed(AudioChunk(b"\x01\x00" * 1600, i / 10, (0.1,)))
    listener.close()
    assert [u.text for u in out] == ["truco", "no quiero"]


@pytest.mark.parametrize("said,early,conf", [
    ("uno quiero", False, 0.3),  # how «no quiero» is misheard: never applied on its own
    ("flor quiero", False, 0.3),  # and from before its voice; with flor one says «con flor quiero»
    ("no quiero", True, 0.9),
    ("quiero", True, 0.9),
    ("con flor quiero", False, 0.9),  # not handed over early, but sure
])
def test_a_quiero_heard_right_after_uno_or_flor_waits_for_a_tap(said: str, early: bool, conf: float) -> None:
    out: list[Utterance] = []
    listener = Listener(TwoPassRecognizer(said, said, 0.9), out.append)
    for i in range(30):
        listener.feed(AudioChunk(b"\x01\x00" * 1600, i / 10, (0.1,)))
    answer = next(u for u in out if "quiero" in u.text)
    assert answer.early is early
    words = answer.text.split()
    if not early:  # the final result holds it below the threshold; «uno» keeps its own
        at = words.index("quiero")
        assert item_confidence(answer, at, at + 1) == conf
        assert answer.words[0].conf == 0.9


def test_the_voice_referee_takes_back_an_early_call_the_phrase_did_not_confirm() -> None:
    from referee.voice import VoiceReferee

    class Service:
        def __init__(self) -> None:
            self.taken: list[int] = []

        def hear(self, text: str, team: str | None = None, **_: object) -> list[dict[str, object]]:
            return [{"id": 7, "status": "accepted", "line": "A1: envido", "text": text}]

        def log_length(self) -> int:
            return 0

        def revise_heard(self, heard_id: int, confidence: float, unsure_below: float,
                         **_: object) -> bool:
            if confidence >= unsure_below:
                return False
            self.taken.append(heard_id)
            return True

    said: list[str] = []
    for final_conf, taken in ((0.9, []), (0.3, [7])):
        service = Service()
        referee = VoiceReferee(service, said.append)  # type: ignore[arg-type]
        listener = Listener(TwoPassRecognizer("envido", "envido", final_conf), referee,
                            on_revisions=referee.revise)
        for i in range(30):
            listener.feed(AudioChunk(b"\x01\x00" * 1600, i / 10, (0.1,)))
        assert service.taken == taken
    assert any("↶ A1: envido" in line for line in said)


def test_a_revision_keeps_each_words_own_confidence() -> None:
    from referee.utterance import revise

    early = Utterance("cero flor", (Word("cero", 0.8, 0.2, 0.5), Word("flor", 0.8, 0.5, 0.9)),
                      0.2, 0.9, 1.0, 0.8, None, True)
    final = Result("cero flor", (Word("cero", 0.1, 0.22, 0.52), Word("flor", 0.9, 0.52, 1.1)),
                   True, 0.22, 1.1)
    later = revise(early, final)
    assert [w.conf for w in later.words] == [0.1, 0.9] and later.confidence == 0.1
    assert later.heard_again
    # "flor" (words 1:2) is sure; the number that came with it is not
    assert item_confidence(later, 1, 2) == 0.9 and item_confidence(later, 0, 1) == 0.1
    assert item_confidence(later, 0, 2) == 0.5  # a phrase: the mean of its words
    other = revise(early, Result("cero flojo", (Word("cero", 0.9, 0.2, 0.5),
                                                Word("flojo", 0.9, 0.5, 0.9)), True, 0.2, 0.9))
    assert [w.conf for w in other.words] == [0.0, 0.0] and not other.heard_again
    # the same words heard at a posterior of 0 are heard again, unsure
    unsure = revise(early, Result("cero flor", (Word("cero", 0.0, 0.2, 0.5),
                                                Word("flor", 0.0, 0.5, 0.9)), True, 0.2, 0.9))
    assert unsure.confidence == 0.0 and unsure.heard_again


class MissedFirstWord(TwoPassRecognizer):
    """The partial results miss the first word the final result hears (a «no», a «real»)."""

    def __init__(self, first: str, call: str) -> None:
        super().__init__(call, f"{first} {call}", 0.9)
        self.first, self.call = first, call

    def _result(self, text: str, conf: float, final: bool) -> Result:
        said = (Word(self.call, conf, 0.5, 0.9),)
        if final:
            said = (Word(self.first, conf, 0.2, 0.46), Word(self.call, conf, 0.48, 0.92))
        return Result(text, said, final, said[0].start, said[-1].end, self.t)


@pytest.mark.parametrize("first,call", [("no", "quiero"), ("real", "envido")])
def test_an_early_call_the_whole_phrase_reads_in_a_longer_one_is_taken_back(first: str,
                                                                            call: str) -> None:
    out: list[Utterance] = []
    seen: list[tuple[str, float]] = []
    listener = Listener(MissedFirstWord(first, call), out.append,
                        on_revisions=lambda pairs: seen.extend(
                            (utt.text, later.confidence) for utt, later in pairs))
    for i in range(30):
        listener.feed(AudioChunk(b"\x01\x00" * 1600, i / 10, (0.1,)))
    assert seen == [(call, 0.0)]
    assert [(u.text, u.early) for u in out] == [(call, True), (f"{first} {call}", False)]


def test_a_revision_confirms_a_call_the_whole_phrase_reads_alone() -> None:
    from referee.utterance import revise

    early = Utterance("quiero", (Word("quiero", 0.8, 0.5, 0.9),), 0.5, 0.9, 1.0, 0.8, None, True)
    for said in (("bueno", "quiero"), ("quiero", "no"), ("quiero", "retruco")):
        words = (Word(said[0], 0.9, 0.2, 0.46), Word(said[1], 0.9, 0.48, 0.92))
        if said[0] == "quiero":
            words = (Word("quiero", 0.9, 0.48, 0.92), Word(said[1], 0.9, 0.95, 1.3))
        later = revise(early, Result(" ".join(said), words, True, 0.2, 1.3))
        assert later.confidence == 0.9, said


def test_listen_takes_back_a_quiero_the_whole_phrase_heard_as_no_quiero() -> None:
    import io

    from referee.commands.listen_printer import Printer

    out = io.StringIO()
    printer = Printer(out, True, 0.6, None)
    printer.table.hear("hand")
    printer.table.hear("A1: truco")
    listener = Listener(MissedFirstWord("no", "quiero"), printer, channel_teams=("B",),
                        on_revisions=printer.revise)
    for i in range(30):
        listener.feed(AudioChunk(b"\x01\x00" * 1600, i / 10, (0.1,)))
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [(r["call"], r["accepted"]) for r in records] == [
        ("quiero", True), ("quiero", False), ("no quiero", True)]
    assert records[1]["retracted"]
    assert printer.table.lines[-1].endswith("no quiero")


def test_listen_takes_back_every_early_call_of_a_phrase_it_is_not_sure_of() -> None:
    import io

    from referee.commands.listen_printer import Printer

    out = io.StringIO()
    printer = Printer(out, True, 0.6, None)
    printer.table.hear("hand")
    printer.table.hear("A1: truco")
    listener = Listener(ScriptedRecognizer([(2.0, 2.8, "quiero retruco", 0.5)]), printer,
                        channel_teams=(), on_revisions=printer.revise)
    for i in range(60):
        listener.feed(AudioChunk(b"\x01\x00" * 1600, i / 10, (0.1,)))
    listener.close()
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [(r["call"], r["accepted"]) for r in records] == [
        ("quiero", True), ("retruco", True), ("retruco", False), ("quiero", False)]
    assert printer.table.lines == ["hand", "A1: truco"]  # both wait for a tap


def test_listen_applies_a_call_refused_because_of_an_early_call_taken_back() -> None:
    import io

    from referee.commands.listen_printer import Printer

    def early(text: str, start: float, conf: float, team: str = "A") -> Utterance:
        return Utterance(text, (Word(text, conf, start, start + 0.4),), start, start + 0.4,
                         start + 0.6, conf, team, True)

    out = io.StringIO()
    printer = Printer(out, True, 0.6, None)
    printer.table.hear("hand")
    envido, truco = early("envido", 0.2, 0.8), early("truco", 0.8, 0.8)
    printer(envido)
    printer(truco)  # refused while the envido stands
    printer.revise([(envido, early("envido", 0.2, 0.0))])  # chatter: taken back
    printer.revise([(truco, early("truco", 0.8, 0.95))])
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [(r["call"], r["accepted"]) for r in records] == [
        ("envido", True), ("truco", False), ("envido", False), ("truco", True)]
    assert records[-1]["rejudged"] and records[-1]["confidence"] == 0.95
    assert printer.table.lines[-1] == "A1: truco"
    # a «quiero» said before a «truco» does not answer it, though the phrase confirms both
    printer.table.hear("B1: no quiero")
    printer.table.hear("hand")
    quiero, truco = early("quiero", 1.4, 0.8, "B"), early("truco", 1.9, 0.8, "A")
    printer(quiero)
    printer(truco)
    printer.revise([(quiero, early("quiero", 1.4, 0.95, "B"))])
    printer.revise([(truco, early("truco", 1.9, 0.95, "A"))])
    assert printer.table.lines[-1] == "A1: truco"


def test_listen_applies_a_call_of_several_words_at_a_lower_confidence() -> None:
    import io

    from referee.commands.listen_printer import Printer

    def final(text: str, start: float, conf: float) -> Utterance:
        words = tuple(Word(w, conf, start + 0.3 * k, start + 0.3 * k + 0.25)
                      for k, w in enumerate(text.split()))
        return Utterance(text, words, start, words[-1].end, words[-1].end + 0.2, conf, "A", False)

    out = io.StringIO()
    printer = Printer(out, True, 0.6, None)
    printer.table.hear("hand")
    printer(final("truco", 0.2, 0.5))  # one word at 0.5: dudoso
    printer(final("me voy al mazo", 1.0, 0.5))  # four words at 0.5: applied
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [(r["call"], r["accepted"], r["unsure"]) for r in records] == [
        ("truco", False, True), ("me voy al mazo", True, False)]
    assert printer.table.lines[-1].endswith("me voy al mazo")


@pytest.mark.parametrize("said,applied", [
    ("_k envido", False),   # «falta» heard as one sound of 0.4 s: maybe «falta envido»
    ("_k truco", True),
    ("_k quiero", True),    # in noise a long sound often comes before a real «quiero»
    ("falta envido", True),
])
def test_an_envido_waits_after_a_word_heard_as_one_sound(
        said: str, applied: bool) -> None:
    out = run_script([(1.0, 1.8, said, 0.95)])
    words = [w for u in out for w in u.words]
    assert [w.text for w in words] == [t for t in said.split() if not t.startswith("_")]
    assert words[-1].conf == (0.95 if applied else DOUBTED_CONF)
    if not applied:  # nor handed over early: it waits for the whole phrase
        assert not any(u.early for u in out)


def test_a_short_sound_before_a_call_leaves_it_alone() -> None:
    """A sound of the garbage path as short as a phone (here 0.1 s) is no missed word."""
    out = run_script([(1.0, 1.2, "_k envido", 0.95)])
    assert [(u.text, u.early, u.words[0].conf) for u in out] == [("envido", True, 0.95)]


def test_a_word_between_the_sound_and_the_call_leaves_it_alone() -> None:
    out = run_script([(1.0, 2.4, "_k tenés envido", 0.95)])
    assert [w.conf for u in out for w in u.words] == [0.95, 0.95]


@pytest.mark.parametrize("said,span,doubted", [
    ("_k ocho", (1.0, 1.4), True),              # «veintiocho» with its start heard as no word
    ("_a _b _c once", (1.0, 1.6), True),        # «treinta y dos»: several sounds, 0.45 s in all
    ("tengo _k siete", (1.0, 1.9), True),       # after a word too
    ("_a _b cinco", (1.0, 1.12), False),        # two sounds, 0.08 s in all: a breath, a click
    ("ocho _k", (1.0, 1.4), False),             # the sound after it
    ("_k tengo ocho", (1.0, 1.9), False),       # a word between the sound and the number
    ("_k truco", (1.0, 1.4), False),            # a call is no number
])
def test_a_number_waits_after_sounds_heard_as_no_word(
        said: str, span: tuple[float, float], doubted: bool) -> None:
    out = run_script([(*span, said, 0.95)])
    number = [w for u in out for w in u.words if w.text not in ("tengo",)]
    assert [w.conf for w in number] == [DOUBTED_CONF if doubted else 0.95]
