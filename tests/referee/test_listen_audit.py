"""What `listen` does with what a user hands it: a long recording is not read into memory, and a
folder that refuses the evidence is said once, without a Python traceback."""

from __future__ import annotations

import sys
import tracemalloc
import wave
from pathlib import Path

import numpy as np
import pytest

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
def test_a_long_recording_is_mapped_not_read_into_memory(tmp_path: Path, width: int) -> None:
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
