"""What `listen` does with what a user hands it: a long recording is not read into memory (and one
cut short while it is heard is said, not a crash), a file
that is not a WAV is named with how to make one of it, and a folder that refuses the evidence is
said once, without a Python traceback."""

from __future__ import annotations

import subprocess
import sys
import tracemalloc
import wave
from pathlib import Path

import numpy as np
import pytest

from referee.audio import AudioError
from referee.cli import main
from referee.evidence import EvidenceStore, write_wav
from referee.wav import WavSource, read_wav

SECONDS = 60  # 1.9 MB at 16 bits, 2.9 MB at 24: written in a blink, read in none


def _wav(path: Path, width: int, seconds: int = SECONDS) -> Path:
    ramp = (np.arange(seconds * 16000) % 200 - 100).astype("<i4") << 24  # -100..99 / 128
    raw = ramp.view(np.uint8).reshape(-1, 4)[:, 4 - width :].tobytes()
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(width)
        out.setframerate(16000)
        out.writeframes(raw)
    return path


@pytest.mark.parametrize("width", [2, 3])
def test_a_long_recording_is_not_read_into_memory(tmp_path: Path, width: int) -> None:
    path = _wav(tmp_path / "larga.wav", width)
    tracemalloc.start()
    try:
        source = WavSource(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < path.stat().st_size / 4  # before: the whole file (and 24-bit as int32, 4/3 it)
    first = next(iter(source))
    assert source.duration == SECONDS
    expected = (np.arange(1600) % 200 - 100) / 128.0
    assert np.allclose(np.frombuffer(first.pcm, "<i2") / 32767.0, expected, atol=1e-3)


def test_a_24_bit_recording_reads_as_its_16_bit_copy(tmp_path: Path) -> None:
    assert np.allclose(read_wav(_wav(tmp_path / "a.wav", 3, 1)),
                       read_wav(_wav(tmp_path / "b.wav", 2, 1)))


# How files that are not WAVs start, and what they are said to be.
NOT_WAVS = [
    (b"ID3\x04\x00\x00\x00\x00\x00\x00", "un MP3"),
    (b"\xff\xfb\x90\x64\x00", "un MP3"),  # an MPEG frame without tags
    (b"\xff\xf1\x50\x80\x02", "un AAC"),
    (b"OggS\x00\x02\x00\x00", "un OGG"),
    (b"fLaC\x00\x00\x00\x22", "un FLAC"),
    (b"\x00\x00\x00\x1cftypM4A \x00\x00", "un M4A o MP4"),
    (b"\x1a\x45\xdf\xa3\x9f\x42\x86\x81", "un WebM o MKV"),
    (b"#!AMR\n\x3c\x91", "un AMR"),
    (b"RF64\xff\xff\xff\xffWAVEds64", "un RF64"),
    (b"riff\x2e\x91\xcf\x11\xa5\xd6\x28\xdb\x04\xc1\x00\x00", "un Wave64"),
    (b"RIFF\x00\x10\x00\x00AVI LIST", "un video AVI"),
    (b"RIFF\x00\x10\x00\x00WEBPVP8 ", "un RIFF de otro tipo"),
]


@pytest.mark.parametrize("start, what", NOT_WAVS, ids=[
    "mp3-id3", "mp3-frame", "aac", "ogg", "flac", "m4a", "webm", "amr", "rf64", "w64", "avi", "webp"])
def test_a_file_that_is_not_a_wav_is_named_with_how_to_make_one(tmp_path: Path, start: bytes,
                                                                 what: str) -> None:
    path = tmp_path / "grabacion.wav"
    path.write_bytes(start + bytes(64))
    with pytest.raises(AudioError) as err:
        WavSource(path)
    assert err.value.code == "wav-unreadable"
    # before: «no es un WAV que pueda leer: no empieza como un WAV», whatever it was
    assert err.value.message == (f"{path} es {what}, no un WAV: convertilo a WAV PCM de 16 bits, "
                                 f"p. ej. con 'ffmpeg -i {path} -ar 16000 salida.wav'")


def test_listen_names_an_mp3_and_the_command_quotes_its_path(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "mi grabación.mp3"
    path.write_bytes(b"ID3\x04" + bytes(64))
    assert main(["listen", "--wav", str(path), "--no-evidence"]) == 2
    assert capsys.readouterr().err == (f"Problema con el audio: {path} es un MP3, no un WAV: "
                                       "convertilo a WAV PCM de 16 bits, p. ej. con "
                                       f"'ffmpeg -i \"{path}\" -ar 16000 salida.wav'\n")


def test_a_clip_that_cannot_be_opened_leaves_no_traceback(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    unraisable: list[object] = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    with pytest.raises(FileNotFoundError):
        write_wav(tmp_path / "no-such-folder" / "clip.wav", bytes(3200))
    assert unraisable == []  # before: «Exception ignored in: Wave_write.__del__ … AttributeError»


def test_a_folder_that_refuses_every_clip_and_record_is_said_once(tmp_path: Path) -> None:
    told: list[str] = []
    store = EvidenceStore(tmp_path, on_trouble=told.append)
    store.clips_dir.rmdir()
    store.clips_dir.write_text("")  # clips/ is a file: no clip can be written in it
    store.index.mkdir()  # and the index is a folder: no record can be added to it
    for text in ("truco", "quiero", "retruco"):
        store.record(t=1.0, text=text, call=text, points=None, accepted=True, reason=None,
                     confidence=0.9, team="A", clip_pcm=bytes(3200))
    assert len(told) == 2  # before: 6, the clip's and the record's alternating at every call
    assert told[0].startswith(f"no pude guardar el audio como evidencia en {tmp_path}: ")
    assert told[1].startswith(f"no pude guardar lo oído como evidencia en {tmp_path}: ")


CUT_WHILE_HEARD = """
import os, sys
from referee.audio import AudioError
from referee.wav import WavSource
source = WavSource(sys.argv[1])
source.STRETCH_S = 1.0
chunks = iter(source)
next(chunks)
os.truncate(sys.argv[1], 20000)  # another program cuts it, or its disk is gone
try:
    for _ in chunks:
        pass
except AudioError as err:
    print(err.code, err.message)
"""


def test_a_recording_cut_short_while_it_is_heard_is_said_not_a_crash(tmp_path: Path) -> None:
    """A file whose samples were mapped died of SIGBUS when its end went away under the map."""
    path = _wav(tmp_path / "larga.wav", 2, seconds=5)
    run = subprocess.run([sys.executable, "-c", CUT_WHILE_HEARD, str(path)], capture_output=True,
                         text=True, check=False, timeout=60)
    assert run.returncode == 0, run.stderr  # before: -7, the program killed by SIGBUS
    assert run.stdout.startswith(f"wav-cut {path} se achicó mientras lo escuchaba")
