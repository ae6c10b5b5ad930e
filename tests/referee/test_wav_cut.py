"""WAV files whose header and audio do not agree: cut short, a header that does not say how long
the audio is (a recorder stopped before it closed the file), data that is not whole frames.  Each
is heard as far as it goes, and the person is told once."""

from __future__ import annotations

import struct
import wave
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from referee.asr.base import Result
from referee.audio import SAMPLE_RATE, AudioError
from referee.cli import main
from referee.commands import listen
from referee.wav import WavSource, read_wav

HEADER = 44  # a WAV written by ``wave``: RIFF, fmt and data headers


def _write(path: Path, seconds: float, *, channels: int = 1) -> bytes:
    """A tone of ``seconds`` (each channel the same); the file's bytes."""
    t = np.arange(int(SAMPLE_RATE * seconds)) / SAMPLE_RATE
    samples = (0.5 * np.sin(2 * np.pi * 440 * t) * 32767).astype("<i2")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(SAMPLE_RATE)
        w.writeframes(np.repeat(samples, channels).tobytes())
    return path.read_bytes()


def _sizes(blob: bytes, riff: int, data: int) -> bytes:
    """A ``wave`` file with its RIFF and data sizes changed."""
    return (blob[:4] + struct.pack("<I", riff) + blob[8:40] + struct.pack("<I", data)
            + blob[HEADER:])


class Counts:
    """A recognizer that hears nothing and counts the bytes of sound it was given."""

    name, low_accuracy, sample_rate = "falso", False, SAMPLE_RATE

    def __init__(self) -> None:
        self.fed = 0

    def feed(self, pcm: bytes) -> list[Result]:
        self.fed += len(pcm)
        return []

    def flush(self) -> list[Result]:
        return []

    def reset(self) -> None:
        pass


def test_a_cut_wav_is_heard_as_far_as_it_goes_and_listen_says_it_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "cortado.wav"
    blob = _write(path, 2.0)
    path.write_bytes(blob[: HEADER + 2 * int(SAMPLE_RATE * 1.3)])  # as `head -c` leaves it
    recognizer = Counts()
    monkeypatch.setattr(listen, "choose_model", lambda args: SimpleNamespace(label="falso"))
    monkeypatch.setattr(listen, "make_recognizer", lambda choice: recognizer)
    assert main(["listen", "--wav", str(path), "--no-evidence"]) == 0
    err = capsys.readouterr().err
    said = (f"[grabación] el archivo {path} está cortado: dice durar 2.0 s y trae 1.3 s; "
            "escucho lo que hay")
    assert err.splitlines().count(said) == 1  # before: nothing said
    assert recognizer.fed == 2 * int(SAMPLE_RATE * 1.3)  # all there is, heard


@pytest.mark.parametrize("size", [0, 0xFFFFFFFF], ids=["zero", "ffffffff"])
def test_a_header_that_does_not_say_how_long_is_heard_to_the_end(tmp_path: Path,
                                                                 size: int) -> None:
    path = tmp_path / "sin_cerrar.wav"
    path.write_bytes(_sizes(_write(path, 1.5), size, size))
    source = WavSource(path)  # before, with 0: «no tiene sonido: la grabación dura 0 segundos»
    assert source.duration == 1.5
    assert sum(len(c.pcm) for c in source) == 2 * int(1.5 * SAMPLE_RATE)
    assert source.notice == (f"el archivo {path} no dice cuánto dura (la grabación no se cerró "
                             "bien): escucho los 1.5 s que trae")


def test_an_empty_data_chunk_followed_by_another_is_empty_not_read_as_audio(
        tmp_path: Path) -> None:
    path = tmp_path / "vacio.wav"
    blob = _write(path, 0.0)
    listed = b"LIST" + struct.pack("<I", 4) + b"INFO"
    path.write_bytes(_sizes(blob + listed, len(blob) + len(listed) - 8, 0))
    with pytest.raises(AudioError) as err:
        WavSource(path)
    assert err.value.message == f"{path} no tiene sonido: la grabación dura 0 segundos"


def test_a_header_with_nothing_after_it_says_it_is_cut(tmp_path: Path) -> None:
    path = tmp_path / "solo_encabezado.wav"
    path.write_bytes(_write(path, 3.0)[:HEADER])
    with pytest.raises(AudioError) as err:
        WavSource(path)
    assert err.value.code == "wav-cut"  # before: «dura 0 segundos», what the header does not say
    assert err.value.message == f"{path} está cortado: dice durar 3.0 s y no trae sonido"


def test_data_that_is_not_whole_frames_is_read_whole_but_the_partial_frame(
        tmp_path: Path) -> None:
    path = tmp_path / "estereo.wav"
    blob = _write(path, 0.5, channels=2)
    extra = b"\x01\x02"  # half a stereo frame, counted in the data size
    path.write_bytes(_sizes(blob + extra, len(blob) + 2 - 8, len(blob) - HEADER + 2))
    source = WavSource(path)
    assert read_wav(path).shape == (SAMPLE_RATE // 2, 2)
    assert source.notice is None  # less than a sample's time: nothing to tell


def test_a_file_cut_by_less_than_a_word_is_not_told(tmp_path: Path) -> None:
    path = tmp_path / "casi.wav"
    path.write_bytes(_write(path, 1.0)[:-1])
    assert WavSource(path).notice is None


def test_a_cut_float_wav_is_told_too(tmp_path: Path) -> None:
    samples = np.zeros(SAMPLE_RATE, "<f4").tobytes()
    fmt = struct.pack("<HHIIHH", 3, 1, SAMPLE_RATE, 4 * SAMPLE_RATE, 4, 32)
    body = b"WAVEfmt " + struct.pack("<I", 16) + fmt + b"data" + struct.pack("<I", len(samples))
    path = tmp_path / "flotante.wav"
    path.write_bytes(b"RIFF" + struct.pack("<I", len(body) + len(samples)) + body
                     + samples[: len(samples) // 2])
    assert WavSource(path).notice == (f"el archivo {path} está cortado: dice durar 1.0 s y trae "
                                      "0.5 s; escucho lo que hay")
