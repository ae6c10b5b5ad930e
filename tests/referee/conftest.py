"""Shared fixtures of the recognizer tests: the Spanish Sphinx model and one held-out voice."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

HELD_OUT_VOICE = "espeak-ng:es-419+f3"  # the recognizer's settings never saw it


@pytest.fixture(scope="module")
def model(shared_dir: Path) -> Path:
    """The Spanish Sphinx acoustic model in ../shared."""
    path = shared_dir / "models" / "cmusphinx-es-5.2-ptm" / "acoustic_model"
    if not path.is_dir():
        pytest.skip(f"Spanish Sphinx model not found at {path}")
    return path


@pytest.fixture(scope="module")
def rows(shared_dir: Path) -> list[dict[str, str]]:
    """The corpus rows of the held-out voice saying calls and envido numbers."""
    with (shared_dir / "speech" / "manifest.csv").open(encoding="utf-8") as fh:
        return [r for r in csv.DictReader(fh)
                if r["voice"] == HELD_OUT_VOICE and r["group"] in ("call", "points")]
