"""The pinta (breaks in the frame line) tells the suit on both decks, figures included."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from engine.cards import Card, Suit
from referee.vision.faces import Face
from referee.vision.pintas import agreed, read_pintas
from referee.vision.pips import PIP_SIZE


def flat(face: Face) -> np.ndarray:
    return cv2.resize(face.bgr, PIP_SIZE, interpolation=cv2.INTER_AREA)


@pytest.mark.parametrize("deck_name", ["wikimedia", "fournier"])
def test_pinta_gives_the_suit_of_almost_every_face(deck_name: str,
                                                   request: pytest.FixtureRequest) -> None:
    deck: dict[Card, Face] = request.getfixturevalue(deck_name)
    read = {card: agreed(read_pintas(flat(face))) for card, face in deck.items()}
    right = [c for c, suit in read.items() if suit == c.suit]
    wrong = {str(c): suit for c, suit in read.items() if suit is not None and suit != c.suit}
    assert len(right) >= 34, f"{len(right)}/40"
    assert len(wrong) <= 1, wrong


@pytest.mark.parametrize("deck_name", ["wikimedia", "fournier"])
def test_pinta_is_read_on_small_blurred_faces(deck_name: str, request: pytest.FixtureRequest) -> None:
    """A card seen small and out of focus (as in the scenes) has a wide, faint frame line."""
    deck: dict[Card, Face] = request.getfixturevalue(deck_name)
    read = {}
    for card, face in deck.items():
        small = cv2.GaussianBlur(cv2.resize(face.bgr, (96, 148), interpolation=cv2.INTER_AREA), (0, 0), 1.0)
        read[card] = agreed(read_pintas(cv2.resize(small, PIP_SIZE, interpolation=cv2.INTER_LINEAR)))
    right = [c for c, suit in read.items() if suit == c.suit]
    wrong = {str(c): suit for c, suit in read.items() if suit is not None and suit != c.suit}
    assert len(right) >= 25, f"{len(right)}/40"
    assert len(wrong) <= 3, wrong


def test_both_ends_are_read_upside_down_too(wikimedia: dict[Card, Face]) -> None:
    face = flat(wikimedia[Card.parse("5b")])
    assert read_pintas(face) == (Suit.BASTOS, Suit.BASTOS)
    assert read_pintas(cv2.rotate(face, cv2.ROTATE_180)) == (Suit.BASTOS, Suit.BASTOS)


def test_blank_paper_has_no_pinta() -> None:
    assert read_pintas(np.full((*PIP_SIZE[::-1], 3), 235, np.uint8)) == (None, None)
