"""What play was learned from and what was forgotten does not follow the wall clock: a machine
with no clock of its own (a Raspberry Pi, offline) starts with one that is behind and is set
later, and a person may set it back or forward.  The learning runs here in the test's process,
with the acoustic step faked (it is ``test_learn``'s)."""

from __future__ import annotations

import io
import json
import time
import wave
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from referee import learning
from referee.asr import learn as voice_learning
from referee.asr import play_phrases
from referee.asr.adapt import Stats
from referee.asr.calibration_folder import calibration_dir, write_note
from referee.doubt import CONFIRMED
from referee.learning import TableLearner, learn_from, phrases_to_learn
from referee.learning_worker import Relearned
from web_scoreboard.app import DB_NAME
from web_scoreboard.store import Store

RIGHT = 1_780_000_000.0  # the time it is
AHEAD = RIGHT + 400 * 86400  # a clock set a year ahead by mistake
BEHIND = 1_700_000_000.0  # a Raspberry Pi's clock at boot, before it is set


class Clock:
    def __init__(self) -> None:
        self.now = RIGHT

    def __call__(self) -> float:
        self.now += 0.001  # a clock that runs, from where it was last set
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(time, "time", fake)
    return fake


def _clip() -> bytes:
    """2 s: the words from 0.5 to 1.0 s, quiet around them."""
    n = 8000
    pcm = np.concatenate([np.zeros(n), 8000 * np.sin(np.arange(n) * 0.3), np.zeros(2 * n)])
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(pcm.astype("<i2").tobytes())
    return out.getvalue()


class Table:
    """A store the referee writes what it heard in, and a learner on it."""

    def __init__(self, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.models = root / "models"
        self.store = Store(root / DB_NAME)
        self.game = self.store.create_game({}, {})
        self.clip_id = self.store.put_clip(_clip())
        self.said = 0
        self.learned: list[list[str]] = []  # the texts of each relearning

        def learn(model_dir: Path, models_dir: Path, heard: list[tuple[bytes, str]],
                  alignments: object = None) -> voice_learning.Learned:
            self.learned.append([text for _, text in heard])
            stats = Stats(np.zeros((1, 1, 1)), np.zeros((1, 1, 1, 13)))
            return voice_learning.Learned(np.zeros((1, 1, 1, 13)), stats, 0, len(heard), False)

        monkeypatch.setattr(voice_learning, "learn", learn)
        recognizer = SimpleNamespace(model_dir=root / "am", use_means=lambda path: None)
        self.learner = TableLearner(self.store, self.models, recognizer, lambda _: None,
                                    min_new=2)
        self.learner._worker = self  # type: ignore[assignment]  # the relearning, in-process

    def learn(self) -> Relearned:
        return Relearned(*learn_from(self.store, self.models, Path("am"), 0.8), cpu_s=0.0)

    def hear(self, n: int) -> list[str]:
        """``n`` calls heard surely and accepted; their texts."""
        texts = []
        for _ in range(n):
            self.said += 1
            texts.append(f"truco {self.said}")
            self.store.add_heard(self.game, "accepted", texts[-1], clip_id=self.clip_id,
                                 extra={"t": float(self.said), "confidence": 0.9,
                                        "speech": [0.5, 1.0]})
        return texts

    def to_learn(self) -> list[str]:
        return [p.text for p in phrases_to_learn(self.store, self.models)]


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Table]:
    made = Table(tmp_path, monkeypatch)
    yield made
    made.store.close()


def test_play_heard_after_the_clock_went_back_is_learned(clock: Clock, table: Table) -> None:
    clock.now = AHEAD
    first = table.hear(2)
    assert table.learner.step() and table.learned == [first]
    clock.now = RIGHT  # the clock put right: what is heard now is dated before what was learned
    second = table.hear(2)
    assert table.learner.step()  # before: never, until the clock came back to a year ahead
    assert table.learned[-1] == first + second
    assert not table.learner.step()  # nothing new since


def test_play_forgotten_with_the_clock_behind_is_not_learned_again(
        clock: Clock, table: Table) -> None:
    table.hear(2)
    assert table.learner.step()
    table.hear(1)
    clock.now = BEHIND  # the Pi restarted, its clock not set yet, and a player was taken out
    voice_learning.forget_play(table.models)
    assert table.to_learn() == []  # before: all three, the player's voice in them
    assert not table.learner.step()
    later = table.hear(2)
    clock.now = RIGHT  # the clock set: the play since is dated after the forgotten play
    assert table.to_learn() == later
    assert table.learner.step() and table.learned[-1] == later


def test_play_forgotten_with_the_clock_ahead_is_the_play_until_then(
        clock: Clock, table: Table) -> None:
    first = table.hear(2)
    assert table.learner.step()
    clock.now = AHEAD
    assert voice_learning.forget(table.models)  # the calibration forgotten
    clock.now = RIGHT
    assert not table.learner.step()  # the learner looks every minute
    later = table.hear(2)
    assert table.to_learn() == later  # before: nothing, until the clock came back to then
    assert table.learner.step() and table.learned == [first, later]


def test_the_newest_phrases_heard_are_learned_whatever_their_dates(
        clock: Clock, table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(play_phrases, "MAX_PHRASES", 2)
    clock.now = AHEAD
    table.hear(2)
    clock.now = RIGHT
    newest = table.hear(2)
    assert table.learner.step() and table.learned == [newest]  # before: the two dated ahead


def test_an_old_note_dated_by_the_clock_is_read_once(clock: Clock, table: Table) -> None:
    clock.now = RIGHT - 300
    table.hear(1)  # heard before the play was forgotten
    clock.now = RIGHT - 200
    kept = table.hear(2)  # learned from
    clock.now = RIGHT - 100
    new = table.hear(1)
    write_note(table.models, {"heard": 2, "learned_until": RIGHT - 200,
                              "forgotten_at": RIGHT - 250})  # as notes were written before
    assert table.to_learn() == kept + new
    note = voice_learning.note(table.models)
    assert "learned_until" not in note and note["forgotten_at"] == RIGHT - 250  # for people
    clock.now = BEHIND  # from now on the clock does not matter
    later = table.hear(1)
    assert table.learner.step() and table.learned == [kept + new + later]


def test_a_new_store_is_learned_from_whatever_the_note_said(
        clock: Clock, table: Table, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    table.hear(5)
    voice_learning.forget_play(table.models)
    assert table.to_learn() == []
    table.store.close()
    (tmp_path / DB_NAME).unlink()  # the data folder emptied, the calibration kept
    fresh = Table(tmp_path, monkeypatch)
    try:
        assert not fresh.learner.step()  # 'serve --learn' looks once at the start
        heard = fresh.hear(2)  # row ids start again at 1
        assert fresh.to_learn() == heard
        assert fresh.learner.step() and fresh.learned == [heard]
    finally:
        fresh.store.close()


def test_the_note_says_what_was_learned_in_heard_rows(clock: Clock, table: Table) -> None:
    table.hear(3)
    assert table.learner.step()
    note = json.loads((calibration_dir(table.models) / "info.json").read_text(encoding="utf-8"))
    assert note["learned_until_heard"] == 3 and note["heard"] == 3
    assert learning.heard_phrases(table.store, after=2)[0].text == "truco 3"


def test_a_doubtful_call_confirmed_after_a_relearning_is_learned_at_the_next(
        clock: Clock, table: Table) -> None:
    doubtful = table.store.add_heard(table.game, "unsure", "quiero", clip_id=table.clip_id,
                                     extra={"t": 0.5, "confidence": 0.4, "speech": [0.5, 1.0]})
    first = table.hear(2)
    assert table.learner.step() and table.learned == [first]  # the doubtful one not yet
    table.store.set_heard_status(doubtful.id, "accepted", CONFIRMED)  # tapped after the relearning
    later = table.hear(2)
    assert table.learner.step()  # counted by what was heard since; learned with all the play
    assert table.learned[-1] == ["quiero", *first, *later]
