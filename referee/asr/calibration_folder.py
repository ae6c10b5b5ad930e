"""Where the table's calibration lives (``<models>/voice-calibration``): its adapted means, and
the note of which acoustic model they were estimated for."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from referee.asr.adapt import Stats
from referee.asr.ptm_model import write_means


def calibration_dir(models_dir: Path) -> Path:
    return models_dir / "voice-calibration"


def save_calibration(models_dir: Path, model_dir: Path, means: np.ndarray, stats: Stats,
                     **notes: object) -> Path:
    """Write the adapted means and a note of which acoustic model they were estimated for (and
    ``notes``).  Each file is replaced whole, so a decoder starting meanwhile reads the old one
    or the new one."""
    folder = calibration_dir(models_dir)
    write_means(folder / "means.new", means)
    (folder / "means.new").replace(folder / "means")
    write_note(models_dir, {"model": str(model_dir.resolve()),
                            "model_in_folder": _inside(models_dir, model_dir),
                            "speech_s": round(stats.frames / 100, 1), **notes})
    return folder / "means"


def write_note(models_dir: Path, info: dict[str, object]) -> None:
    """Replace the calibration's note (``info.json``) whole."""
    folder = calibration_dir(models_dir)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "info.new").write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")
    (folder / "info.new").replace(folder / "info.json")


def find_calibration(models_dir: Path, model_dir: Path) -> Path | None:
    """The saved calibration, if there is one for this acoustic model."""
    folder = calibration_dir(models_dir)
    try:
        info = json.loads((folder / "info.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    inside = _inside(models_dir, model_dir)
    same = (info.get("model") == str(model_dir.resolve())
            or (inside is not None and info.get("model_in_folder") == inside))
    if (folder / "means").is_file() and same:
        return folder / "means"
    return None


def _inside(models_dir: Path, model_dir: Path) -> str | None:
    """Where the acoustic model lies inside the models folder (``sphinx/acoustic_model``), so
    that a calibration follows a models folder moved or copied whole; None if outside it."""
    try:
        return model_dir.absolute().relative_to(models_dir.absolute()).as_posix()
    except ValueError:
        return None
