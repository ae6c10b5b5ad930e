"""A microphone turned up so far that the words come cut flat is told from one that is not."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from benchmarks.speech_corpus import clipped, heard, through_line
from referee.audio import to_pcm
from referee.clipping import Clipping
from referee.device_status import (
    CLIPPED_LINE,
    CLIPPED_RECORDING,
    NARROW_LINE,
    NARROW_RECORDING,
    UNCLIPPED_RECORDING,
    shown_state,
)
from referee.resampling import Resampler
from referee.sound_check import LISTENING, SoundCheck
from referee.wav import WavSource
from tests.referee.talk import talk
from tests.referee.test_band import STEP, _voices, _wav


def told(sense: Clipping | SoundCheck, frames: np.ndarray) -> list[float]:
    """When (s into ``frames``) the sense says something new, chunk by chunk."""
    pcm = to_pcm(frames)
    return [round(k / 16000 + 0.1, 1) for k in range(0, len(pcm) // 2 - STEP + 1, STEP)
            if sense.hear(pcm[2 * k: 2 * (k + STEP)])]


def test_talk_at_a_sound_level_is_never_told_clipped() -> None:
    clipping = Clipping()
    assert told(clipping, talk(20)) == [] and clipping.clipped is False and clipping.share == 0.0


def test_talk_turned_up_too_far_is_told_after_a_second_of_voice_and_again_when_turned_down() -> None:
    clipping = Clipping()
    said = told(clipping, np.concatenate([clipped(talk(5), 6.0), talk(15, seed=2)]))
    assert len(said) == 2 and 1.5 <= said[0] <= 2.5  # 10 chunks with a voice (FIRST)
    assert 5.0 < said[1] < 15.0 and clipping.clipped is False  # once the window forgot it


def test_the_loudest_sample_of_a_recording_at_full_scale_is_no_clipping() -> None:
    """A recording made as loud as it goes without clipping (its peak at full scale)."""
    loud = talk(20)
    clipping = Clipping()
    assert told(clipping, loud / np.abs(loud).max()) == [] and clipping.clipped is False


def test_silence_and_steady_noise_are_not_judged() -> None:
    clipping = Clipping()
    assert told(clipping, np.zeros((16000 * 10, 1))) == [] and clipping.share is None
    hum = np.random.default_rng(3).standard_normal((16000 * 20, 1)) * 0.4  # loud, and clipping
    assert told(clipping, hum.clip(-1, 1)) == [] and clipping.share is None  # nobody talks


def test_clipped_at_48_khz_and_resampled_as_a_microphone_hands_it_over_is_told_too() -> None:
    up = Resampler(16000, 48000).push(talk(5))
    clipping = Clipping()
    said = told(clipping, Resampler(48000, 16000).push(clipped(up, 6.0)))
    assert len(said) == 1 and 1.5 <= said[0] <= 2.5 and clipping.clipped


def test_clipped_is_said_before_a_narrow_line_and_the_line_again_once_it_no_longer_clips() -> None:
    check = SoundCheck()
    sound = np.concatenate([clipped(through_line(talk(5)), 6.0), through_line(talk(15, seed=2))])
    pcm = to_pcm(sound)
    statuses = [check.live() for k in range(0, len(pcm) // 2 - STEP + 1, STEP)
                if check.hear(pcm[2 * k: 2 * (k + STEP)])]
    assert statuses == [CLIPPED_LINE, NARROW_LINE]  # the line's own news waited for the clipping
    assert check.live() == NARROW_LINE and SoundCheck().live() == LISTENING
    assert shown_state(CLIPPED_LINE) == "poor"


def test_a_recording_says_when_it_clips_and_when_no_longer(tmp_path: Path) -> None:
    path = _wav(tmp_path / "fuerte.wav", np.concatenate([talk(3), clipped(talk(5, seed=2), 6.0),
                                                          talk(15, seed=3)]))
    lines: list[str] = []
    for _ in WavSource(path, on_status=lines.append):
        pass
    assert len(lines) == 2 and lines[0].endswith(CLIPPED_RECORDING)
    assert lines[1].endswith(UNCLIPPED_RECORDING)
    assert shown_state(lines[0]) == "poor" and shown_state(lines[1]) == "ok"
    clip_at, fine_at = (float(line.split()[2]) for line in lines)
    assert 3.0 < clip_at < 5.0 and 8.0 < fine_at < 23.0


def test_a_narrow_recording_that_stops_clipping_says_it_is_still_narrow(tmp_path: Path) -> None:
    path = _wav(tmp_path / "auricular.wav",
                np.concatenate([clipped(through_line(talk(5)), 6.0), through_line(talk(15, seed=2))]))
    lines: list[str] = []
    for _ in WavSource(path, on_status=lines.append):
        pass
    assert [line.split(" s ", 1)[1] for line in lines] == [CLIPPED_RECORDING, NARROW_RECORDING]


@pytest.mark.parametrize("condition", ["clean", "10"])
def test_no_corpus_voice_is_told_clipped_as_recorded(shared_dir: Path, condition: str) -> None:
    """Each voice's first 150 files, one after another, clean and in noise."""
    for voice, files in _voices(shared_dir).items():
        clipping = Clipping()
        for seed, file in enumerate(files[:150]):
            told(clipping, heard(file, seed, condition, tail_s=0.5, lead_s=0.5))
        assert clipping.clipped is False, (voice, clipping.share)


def test_every_corpus_voice_turned_up_3_db_over_full_scale_is_told_clipped(shared_dir: Path) -> None:
    """Each voice's first 20 files, one after another, their loudest sample 3 dB over."""
    for voice, files in _voices(shared_dir).items():
        clipping = Clipping()
        said = [told(clipping, clipped(heard(file, seed, "clean"), 3.0))
                for seed, file in enumerate(files[:20])]
        assert clipping.clipped and sum(map(len, said)) == 1, (voice, clipping.share)
