"""A recording with no voice in it is not a prompt said: a WAV of digital silence, or of a
microphone's hiss with nobody speaking, is skipped and said when a calibration reads a folder,
and is not taken for a phrase from the microphone; the real recordings of ../shared all have a
voice, with a margin (``calibration_prompts.VOICE_RMS``)."""

from __future__ import annotations

import csv
import wave
from pathlib import Path

import numpy as np
import pytest

from referee.audio import AudioError
from referee.calibration_prompts import (
    FAINT,
    NOT_HEARD,
    VOICE_RMS,
    PhraseCapture,
    loudest_rms,
    voiceless,
)
from referee.commands.voices_wav import from_wav_dir
from referee.wav import read_pcm

HISS_RMS = 8.0  # a quiet microphone's hiss, nobody speaking: about -72 dBFS
# The quietest recordings of ../shared/speech by their loudest 0.1 s (1986 and 3371: the floor
# ``VOICE_RMS`` was chosen from them)
QUIETEST = ("clean/festival-el_diphone/lookalike__trucha__festival-el_diphone__fast__high.wav",
            "real/asterisk-es-mx-allison/40.wav")


def _write(path: Path, samples: np.ndarray) -> None:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(np.round(samples).astype("<i2").tobytes())


def _hiss(seconds: float, rms: float = HISS_RMS, seed: int = 0) -> np.ndarray:
    return rms * np.random.default_rng(seed).standard_normal(int(seconds * 16000))


def _voice(shared_dir: Path, text: str = "truco") -> bytes:
    """The corpus voice of ``test_voices_mic`` saying ``text``."""
    with (shared_dir / "speech" / "manifest.csv").open(encoding="utf-8") as fh:
        row = next(r for r in csv.DictReader(fh) if r["text"] == text and r["group"] == "call"
                   and r["voice"] == "espeak-ng:es-419+f3" and r["speed"] == "normal"
                   and r["pitch"] == "low")
    return read_pcm(shared_dir / "speech" / row["file"])


def test_silence_and_hiss_have_no_voice_and_a_voice_has() -> None:
    assert voiceless(b"") and voiceless(bytes(32000)) and voiceless(b"\1\0" * 16000)
    assert voiceless(_hiss(1.0).astype("<i2").tobytes())
    tone = 0.5 * VOICE_RMS * np.sqrt(2) * np.sin(np.arange(16000) * 0.3)  # 6 dB under the floor
    assert voiceless(tone.astype("<i2").tobytes())
    assert not voiceless((4 * tone).astype("<i2").tobytes())
    # a word in a long silence is heard by its loudest moment, not drowned by the silence
    word = np.concatenate([np.zeros(16000 * 5), 3000 * np.sin(np.arange(3200) * 0.3)])
    assert loudest_rms(word.astype("<i2").tobytes()) > 1000


def test_a_folder_s_silent_recordings_are_skipped_and_said(
        shared_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write(tmp_path / "truco.wav", np.frombuffer(_voice(shared_dir), "<i2").astype(float))
    _write(tmp_path / "quiero.wav", np.zeros(16000))  # digital silence
    _write(tmp_path / "envido.wav", _hiss(1.5))  # the microphone's hiss, nobody speaking
    got = from_wav_dir(tmp_path)
    assert [text for _, text in got] == ["truco"]  # before: all three, «Calibrando con 3 frases»
    assert capsys.readouterr().out == (
        f"En {tmp_path} salteo envido.wav, quiero.wav: no tienen voz: son silencio, o casi.\n")
    (tmp_path / "truco.wav").unlink()
    _write(tmp_path / "envido.wav", np.zeros(8000))
    with pytest.raises(AudioError, match="ningún .wav tiene voz") as err:
        from_wav_dir(tmp_path)
    assert err.value.code == "wav-empty"
    assert "salteo envido.wav, quiero.wav: no tienen voz" in capsys.readouterr().out


def test_one_silent_recording_among_empty_ones_is_said_apart(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write(tmp_path / "quiero.wav", np.zeros(0))
    _write(tmp_path / "truco.wav", np.zeros(16000))
    with pytest.raises(AudioError, match="ningún .wav tiene voz"):
        from_wav_dir(tmp_path)
    assert capsys.readouterr().out == (
        f"En {tmp_path} salteo quiero.wav: no tiene sonido (dura 0 segundos).\n"
        f"En {tmp_path} salteo truco.wav: no tiene voz: es silencio, o casi.\n")


@pytest.mark.parametrize("file", QUIETEST)
def test_the_quietest_real_recordings_have_a_voice_with_a_margin(shared_dir: Path,
                                                                 file: str) -> None:
    pcm = read_pcm(shared_dir / "speech" / file)
    assert loudest_rms(pcm) > 10 * VOICE_RMS  # 20 dB of margin: said further from the microphone


def _feed(capture: PhraseCapture, samples: np.ndarray) -> tuple[bytes | None, str] | None:
    pcm = samples.astype("<i2").tobytes()
    for i in range(0, len(pcm), 3200):
        got = capture.feed(pcm[i:i + 3200])
        if got is not None:
            return got
    return None


@pytest.mark.parametrize("level", [0.0, HISS_RMS, 300.0])
def test_silence_or_hiss_from_the_microphone_is_not_a_prompt_said(level: float) -> None:
    """Voice detection takes neither for speech (it did not before either)."""
    assert _feed(PhraseCapture(), _hiss(7.0, level)) == (None, NOT_HEARD)


def test_a_microphone_turned_all_the_way_down_is_not_a_prompt_said_and_is_said(
        shared_dir: Path) -> None:
    """Voice detection takes a voice at -67 dBFS in digital silence for speech: kept, before,
    and fitted on."""
    voice = np.frombuffer(_voice(shared_dir, "flor"), "<i2").astype(float)
    faint = voice * 20 / loudest_rms(voice.astype("<i2").tobytes())
    got = _feed(PhraseCapture(), np.concatenate([np.zeros(8000), faint, np.zeros(16000 * 7)]))
    assert got == (None, FAINT)
    loud = _feed(PhraseCapture(), np.concatenate([np.zeros(8000), voice, np.zeros(16000)]))
    assert loud is not None and loud[0] is not None and not voiceless(loud[0])


def test_a_prompt_said_after_the_microphone_s_hiss_is_heard(shared_dir: Path) -> None:
    voice = np.frombuffer(_voice(shared_dir), "<i2").astype(float)
    got = _feed(PhraseCapture(), np.concatenate([_hiss(1.0), voice, np.zeros(16000)]))
    assert got is not None and got[0] is not None and not voiceless(got[0])
