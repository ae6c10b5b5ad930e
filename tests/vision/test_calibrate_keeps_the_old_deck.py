"""A calibrated deck takes the old one's place only once it is in: a move that fails leaves the old
deck whole (``models.folders.replace_folder``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from models.folders import replace_folder
from referee.vision.calibrate import Calibrator


def _folder(path: Path, **files: str) -> Path:
    path.mkdir(parents=True)
    for name, text in files.items():
        (path / name).write_text(text)
    return path


def _contents(path: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in path.iterdir()}


def _failing_rename_of(suffix: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Moving a folder whose name ends in ``suffix`` fails, as on a disk that refuses it."""
    real = Path.rename

    def rename(self: Path, target: str | Path) -> Path:
        if self.name.endswith(suffix):
            raise OSError(5, "Input/output error", str(self))
        return real(self, target)

    monkeypatch.setattr(Path, "rename", rename)


def test_a_new_folder_takes_the_old_ones_place(tmp_path: Path) -> None:
    old = _folder(tmp_path / "mazo", **{"01-espadas.png": "viejo", "02-oros.png": "viejo"})
    replace_folder(_folder(tmp_path / ".mazo.nuevo", **{"01-espadas.png": "nuevo"}), old)
    assert _contents(old) == {"01-espadas.png": "nuevo"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mazo"]  # nothing left aside


def test_a_new_folder_goes_where_there_was_none(tmp_path: Path) -> None:
    replace_folder(_folder(tmp_path / ".mazo.nuevo", a="nuevo"), tmp_path / "mazo")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mazo"]


def test_a_move_that_fails_puts_the_old_folder_back(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    old = _folder(tmp_path / "mazo", a="viejo")
    _failing_rename_of(".nuevo", monkeypatch)
    with pytest.raises(OSError):
        replace_folder(_folder(tmp_path / ".mazo.nuevo", a="nuevo"), old)
    assert _contents(old) == {"a": "viejo"}
    assert sorted(p.name for p in tmp_path.iterdir()) == [".mazo.nuevo", "mazo"]


def test_a_calibration_that_cannot_be_put_in_place_keeps_the_old_deck(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    decks = tmp_path / "cards" / "decks"
    old = _folder(decks / "mi-mazo", **{"01-espadas.png": "la cara de antes"})
    _failing_rename_of(".incompleto", monkeypatch)
    with pytest.raises(OSError):
        Calibrator(old, say=lambda _: None).run([], cards=[])
    assert _contents(old) == {"01-espadas.png": "la cara de antes"}  # before: deleted
    assert sorted(p.name for p in decks.iterdir()) == [".mi-mazo.incompleto", "mi-mazo"]
