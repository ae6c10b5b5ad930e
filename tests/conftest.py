"""Shared test helpers: where ../shared is, and a clear skip when it is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The test data beside the project (../shared); skip when it is absent, as on a fresh clone."""
    if not SHARED.is_dir():
        pytest.skip(f"test data not found at {SHARED} (it sits beside the project in development and CI)")
    return SHARED
