"""`voices calibrate` from the microphone: each prompt's phrase is cut from the live stream by voice
detection, a silent prompt is skipped, and what was captured calibrates.  The stream is a corpus
voice saying the prompts one after another, given to the command as its microphone."""

from __future__ import annotations

import csv
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import numpy as np
import pytest

from referee import mic_choice, mics
from referee.asr.adapt import calibrate
from referee.audio import AudioChunk, AudioError, to_chunk
from referee.commands import voices_mic
from referee.table_sound import kept_lag, lag_file
from referee.wav import read_wav

VOICE, RENDER = "espeak-ng:es-419+f3", ("normal", "low")
SILENT = "flor"  # the player says nothing when asked for this one


class CorpusMic:
    """A microphone that hears the table say each prompt, with pauses, in real-time chunks."""

    stream: np.ndarray = np.zeros((0, 1))
    drops = 0  # times the command dropped what was heard before a prompt

    def __init__(self, spec: str | None, **options: object) -> None:
        self.stopped = False

    def __iter__(self) -> Iterator[AudioChunk]:
        step = 1600
        for i in range(0, len(self.stream), step):
            if self.stopped:
                return
            yield to_chunk(self.stream[i:i + step], i / 16000)

    def stop(self) -> None:
        self.stopped = True

    def drop_queued(self) -> None:  # this stream comes as fast as it is read: nothing waits
        CorpusMic.drops += 1


def prompts_said(shared_dir: Path) -> dict[str, Path]:
    """The voice's file for each prompt, and the table saying them all (``CorpusMic.stream``)."""
    with (shared_dir / "speech" / "manifest.csv").open(encoding="utf-8") as fh:
        said = {r["text"]: shared_dir / "speech" / r["file"] for r in csv.DictReader(fh)
                if r["voice"] == VOICE and (r["speed"], r["pitch"]) == RENDER
                and r["group"] in ("call", "points")}
    assert set(voices_mic.PROMPTS) <= set(said)
    pause = np.zeros((int(0.8 * 16000), 1))
    parts = []
    for text in voices_mic.PROMPTS:
        # the person reads the prompt, then speaks; a silent prompt times out after 6 s
        parts += [pause, np.zeros((7 * 16000, 1)) if text == SILENT else read_wav(said[text])]
    CorpusMic.stream = np.concatenate(parts)
    return said


def test_calibration_prompts_are_cut_from_the_microphone(shared_dir: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    said = prompts_said(shared_dir)
    monkeypatch.setattr(mic_choice, "MicSource", CorpusMic)

    CorpusMic.drops = 0
    [captured] = voices_mic.from_mic(None, players=1)
    assert CorpusMic.drops == len(voices_mic.PROMPTS)  # before each prompt's answer

    assert [text for _, text in captured] == [t for t in voices_mic.PROMPTS if t != SILENT]
    for pcm, text in captured:  # each cut holds that phrase, not its neighbours
        length = len(read_wav(said[text]))
        assert 0.3 * length < len(pcm) / 2 < 1.6 * length, text

    model = shared_dir / "models" / "cmusphinx-es-5.2-ptm" / "acoustic_model"
    means, stats = calibrate(model, [captured])
    assert stats.frames > 1000 and means.shape[0] > 0  # more than 10 s of aligned speech


class TeamCorpusMic(CorpusMic):
    """One team's microphone at the same table, ten times as fast as real time (two streams read
    by threads run ahead of the reader if not paced): A's hears the player, B's hears it at 0.3.
    Both hand over the sound of a moment at the same time, from when the first was opened
    (``opened``): each from its own opening, a fraction of a millisecond apart, was a lag of 5 or
    6 ms at this speed in 4 runs of 10."""

    opened: float | None = None

    def __init__(self, spec: str | None, **options: object) -> None:
        super().__init__(spec)
        self.gain = {"mesa A": 1.0, "mesa B": 0.3}.get(str(spec), 0.0)

    def __iter__(self) -> Iterator[AudioChunk]:
        if not self.gain:  # as a microphone that is not there, and does not retry
            raise AudioError("mic-missing", "no encuentro un micrófono que se llame 'ninguno'")
        started = TeamCorpusMic.opened = TeamCorpusMic.opened or time.monotonic()
        for chunk in super().__iter__():
            wait = started + chunk.t / 10 - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            yield AudioChunk((np.frombuffer(chunk.pcm, "<i2") * self.gain).astype("<i2").tobytes(),
                             chunk.t, tuple(self.gain * level for level in chunk.levels))


def test_calibration_with_a_microphone_per_team_hears_each_player_on_the_louder(
        shared_dir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    said = prompts_said(shared_dir)
    monkeypatch.setattr(mic_choice, "MicSource", TeamCorpusMic)
    TeamCorpusMic.opened = None
    # the two microphones placed in time by a clock as fast as they are
    monkeypatch.setattr(mic_choice, "TeamMics", partial(mics.TeamMics, clock=lambda: 10 * time.monotonic()))
    [captured] = voices_mic.from_mic(["mesa B", "mesa A"], data_dir=tmp_path)
    assert [text for _, text in captured] == [t for t in voices_mic.PROMPTS if t != SILENT]
    # the two in step (the same sound), as `serve` will find them
    assert kept_lag(lag_file(tmp_path, "mesa B", "mesa A")) == pytest.approx(0.0, abs=0.005)
    for pcm, text in captured:  # A's microphone, which hears the player at full level
        phrase = np.frombuffer(pcm, "<i2").astype(float)
        assert np.sqrt(np.mean(phrase**2)) > 0.6 * np.sqrt(np.mean(read_wav(said[text]) ** 2)) * 32767
    with pytest.raises(AudioError):
        voices_mic.from_mic(["mesa A", "mesa B", "mesa A"])
    with pytest.raises(AudioError) as err:  # said at once, not waited for
        voices_mic.from_mic(["mesa A", "ninguno"])
    assert err.value.code == "mic-missing"
