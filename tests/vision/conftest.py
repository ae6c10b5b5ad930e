"""Camera test fixtures: the two decks in ../shared/cards and small reference banks built from them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.cards import Card
from referee.vision.bank import Bank, build_bank
from referee.vision.faces import Face, load_deck
from referee.vision.recognize import Recognizer

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
CARDS = SHARED / "cards"
WIKIMEDIA = CARDS / "wikimedia-naipes-libres"
FOURNIER = CARDS / "fournier-1878"


def _deck_dir(path: Path) -> Path:
    if not path.is_dir():
        pytest.skip(f"card images not found at {path} (the shared test data sits beside the project)")
    return path


@pytest.fixture(scope="session")
def wikimedia_dir() -> Path:
    return _deck_dir(WIKIMEDIA)


@pytest.fixture(scope="session")
def fournier_dir() -> Path:
    return _deck_dir(FOURNIER)


@pytest.fixture(scope="session")
def wikimedia(wikimedia_dir: Path) -> dict[Card, Face]:
    return load_deck(wikimedia_dir)


@pytest.fixture(scope="session")
def fournier(fournier_dir: Path) -> dict[Card, Face]:
    return load_deck(fournier_dir)


@pytest.fixture(scope="session")
def fournier_bank(fournier: dict[Card, Face]) -> Bank:
    """A bank calibrated to the 1878 deck, few augmented views (for the held-out tests)."""
    return build_bank([fournier], augmented=3, seed=1)


@pytest.fixture(scope="session")
def wikimedia_bank(wikimedia: dict[Card, Face]) -> Bank:
    """A bank calibrated to the wikimedia deck, with few augmented views to keep tests fast."""
    return build_bank([wikimedia], augmented=3, seed=1)


@pytest.fixture(scope="session")
def recognizer(wikimedia_bank: Bank) -> Recognizer:
    return Recognizer(wikimedia_bank)


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(7)
