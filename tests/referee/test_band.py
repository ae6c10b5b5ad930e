"""A microphone heard through a narrow line (nothing above 4 kHz) is told from a full one."""

from __future__ import annotations

import csv
import wave
from pathlib import Path

import numpy as np
import pytest

from benchmarks.speech_corpus import heard, through_line
from referee.audio import to_pcm
from referee.band import Band, narrow_sound
from referee.device_status import FULL_RECORDING, NARROW_RECORDING
from referee.wav import WavSource
from tests.referee.talk import talk

STEP = 1600  # samples in a chunk


def told(band: Band, frames: np.ndarray) -> list[tuple[float, bool]]:
    """What the band says, and when (s into ``frames``), chunk by chunk."""
    pcm = to_pcm(frames)
    said = []
    for k in range(0, len(pcm) // 2 - STEP + 1, STEP):
        if band.hear(pcm[2 * k: 2 * (k + STEP)]):
            said.append((round(k / 16000 + 0.1, 1), bool(band.narrow)))
    return said


def test_full_band_talk_is_never_told_narrow() -> None:
    band = Band()
    assert told(band, talk(20)) == [] and band.narrow is False
    assert band.above is not None and band.above > -10


def test_talk_through_a_narrow_line_is_told_once_after_three_seconds_of_voice() -> None:
    band = Band()
    said = told(band, through_line(talk(20)))
    assert said == [(5.8, True)]  # 3 s of voice (FIRST chunks)
    assert band.above is not None and band.above < -46


def test_a_full_microphone_after_a_narrow_one_is_told_at_its_first_voice() -> None:
    band = Band()
    said = told(band, np.concatenate([through_line(talk(10.5)), talk(10, seed=2)]))
    assert said == [(5.8, True), (pytest.approx(10.6), False)]


def test_silence_and_steady_noise_are_not_judged() -> None:
    band = Band()
    assert told(band, np.zeros((16000 * 10, 1))) == [] and band.narrow is None
    hum = np.random.default_rng(3).standard_normal((16000 * 20, 1)) * 0.005
    assert told(band, through_line(hum)) == [] and band.narrow is None  # nobody talks: no voice


def test_a_device_recording_at_8_khz_is_narrow_from_the_start() -> None:
    band = Band(rate=8000)
    assert band.narrow is True and told(band, talk(10)) == []
    assert Band(rate=16000).narrow is None and Band(rate=48000).narrow is None


def test_recordings_heard_one_after_another_tell_their_line() -> None:
    phrases = [to_pcm(talk(1.5, seed)) for seed in range(4)]  # 6 s, 3.4 of them voice
    assert narrow_sound(phrases) is False
    assert narrow_sound(to_pcm(through_line(talk(1.5, seed))) for seed in range(4)) is True
    assert narrow_sound(phrases[:1]) is False  # too little voice to tell: not narrow


def _wav(path: Path, frames: np.ndarray, rate: int = 16000) -> Path:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(to_pcm(frames))
    return path


def test_a_recording_says_when_it_sounds_like_a_telephone_and_when_no_longer(tmp_path: Path) -> None:
    def said(path: Path) -> list[str]:
        lines: list[str] = []
        for _ in WavSource(path, on_status=lines.append):
            pass
        return lines

    full = _wav(tmp_path / "mesa.wav", talk(20))
    both = _wav(tmp_path / "auricular.wav", np.concatenate([through_line(talk(10.5)), talk(10, seed=2)]))
    phone = _wav(tmp_path / "telefono.wav", talk(10), rate=8000)
    assert said(full) == []
    assert said(both) == [f"a los 5.8 s {NARROW_RECORDING}", f"a los 10.6 s {FULL_RECORDING}"]
    assert said(phone) == [f"a los 0.0 s {NARROW_RECORDING}"]  # recorded at 8 kHz
    assert len(list(WavSource(both))) == len(list(WavSource(both, on_status=len)))  # sound as is


def _voices(shared_dir: Path) -> dict[str, list[str]]:
    by_voice: dict[str, list[str]] = {}
    for manifest, key in (("manifest.csv", "voice"), ("real_manifest.csv", "accent")):
        with (shared_dir / "speech" / manifest).open(encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                by_voice.setdefault(row[key], []).append(row["file"])
    return by_voice


@pytest.mark.parametrize("condition", ["clean", "10", "room"])
def test_every_corpus_voice_is_full_band_also_in_noise_and_in_a_room(
        shared_dir: Path, condition: str) -> None:
    """Each voice's first 120 files, one after another.  The es-MX voice is 8 kHz telephone sound
    (shared/speech/README.md): narrow but where the table's noise, full band, comes with it."""
    for voice, files in _voices(shared_dir).items():
        band = Band()
        said = [told(band, heard(file, seed, "clean" if condition == "room" else condition,
                                 room=(0.6, 0.0) if condition == "room" else None))
                for seed, file in enumerate(files[:120])]
        narrow = [i for i, s in enumerate(said) if s and s[-1][1]]
        if voice == "es-MX" and condition != "10":
            assert narrow and narrow[0] < 10, voice
        else:
            assert narrow == [], (voice, band.above)


def test_every_corpus_voice_through_an_8_khz_line_is_told_narrow_once(shared_dir: Path) -> None:
    """In noise at 10 dB, which the line carries too: each voice's first 12 files."""
    for voice, files in _voices(shared_dir).items():
        band = Band()
        said = [told(band, heard(file, seed, "10", line=True, tail_s=0.5, lead_s=0.5))
                for seed, file in enumerate(files[:12])]
        assert [narrow for s in said for _, narrow in s] == [True], (voice, band.above)
