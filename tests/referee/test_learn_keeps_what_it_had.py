"""The calibration's recordings are replaced whole or not at all, and forgetting a calibration that
is not there touches nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.asr import kept_recordings
from referee.asr import learn as voice_learning
from referee.asr.calibration_folder import calibration_dir
from referee.cli import main

OLD = [[(b"\x01\x00" * 800, "truco"), (b"\x02\x00" * 800, "quiero")],
       [(b"\x03\x00" * 800, "envido")], [(b"\x04\x00" * 800, "flor")]]
NEW = [[(b"\x05\x00" * 800, "vale cuatro"), (b"\x06\x00" * 800, "no quiero")]]


def _kept(models: Path) -> dict[str, bytes]:
    """Every file under the calibration's folder, by its path there."""
    root = calibration_dir(models)
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _same(got: list[list[tuple[bytes, str]]], voices: list[list[tuple[bytes, str]]]) -> bool:
    """The same recordings for each player (kept in the order of their file names)."""
    return [sorted(v) for v in got] == [sorted(v) for v in voices]


def test_new_recordings_replace_the_old_ones_whole(tmp_path: Path) -> None:
    kept_recordings.save_prompts(tmp_path, OLD)
    kept_recordings.save_prompts(tmp_path, NEW)
    assert _same(kept_recordings.saved_prompts(tmp_path), NEW)
    assert sorted(_kept(tmp_path)) == ["prompts/jugador-1/no_quiero-2.wav",
                                       "prompts/jugador-1/vale_cuatro-1.wav"]


def test_recordings_that_fail_halfway_leave_the_old_ones_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kept_recordings.save_prompts(tmp_path, OLD)
    before = _kept(tmp_path)
    written: list[Path] = []
    real = kept_recordings.write_wav

    def fills_up(path: Path, pcm: bytes) -> None:  # the disk fills up at the second recording
        if written:
            raise OSError(28, "No space left on device", str(path))
        written.append(path)
        real(path, pcm)

    monkeypatch.setattr(kept_recordings, "write_wav", fills_up)
    with pytest.raises(OSError):
        kept_recordings.save_prompts(tmp_path, NEW)
    assert _kept(tmp_path) == before  # before: the old recordings deleted, one new one kept
    assert _same(kept_recordings.saved_prompts(tmp_path), OLD)
    assert [p.name for p in calibration_dir(tmp_path).iterdir()] == ["prompts"]  # no half set


def test_forgetting_no_calibration_touches_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["voices", "forget", "--models-dir", str(tmp_path)]) == 0
    assert capsys.readouterr().out == "No había calibración.\n"
    assert list(tmp_path.iterdir()) == []  # before: voice-calibration/info.json made


def test_forgetting_twice_touches_nothing_the_second_time(tmp_path: Path) -> None:
    kept_recordings.save_prompts(tmp_path, OLD)
    assert voice_learning.forget(tmp_path)
    note = _kept(tmp_path)
    assert list(note) == ["info.json"]
    assert not voice_learning.forget(tmp_path)
    assert _kept(tmp_path) == note  # the moment play was forgotten stays the first one
