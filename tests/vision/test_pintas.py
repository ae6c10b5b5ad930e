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
@pytest.mark.parametrize(("blur", "least_right", "most_wrong"), [(1.0, 25, 3), (1.5, 18, 6)])
def test_pinta_is_read_on_small_blurred_faces(deck_name: str, blur: float, least_right: int,
                                              most_wrong: int, request: pytest.FixtureRequest) -> None:
    """A card seen small and out of focus (as in the scenes) has a wide, faint frame line.  At the
    wider blur it is a shallow dip spread over several rows, which no pixel ridge reaches (the
    sharp and blurred readers read at most 4 of these faces): the median row finds it.  The wrong
    reads there are the blurred reader's: the tops of two coins of oros taken for a line broken once."""
    deck: dict[Card, Face] = request.getfixturevalue(deck_name)
    read = {}
    for card, face in deck.items():
        small = cv2.GaussianBlur(cv2.resize(face.bgr, (96, 148), interpolation=cv2.INTER_AREA), (0, 0), blur)
        read[card] = agreed(read_pintas(cv2.resize(small, PIP_SIZE, interpolation=cv2.INTER_LINEAR)))
    right = [c for c, suit in read.items() if suit == c.suit]
    wrong = {str(c): suit for c, suit in read.items() if suit is not None and suit != c.suit}
    assert len(right) >= least_right, f"{len(right)}/40"
    assert len(wrong) <= most_wrong, wrong


def test_both_ends_are_read_upside_down_too(wikimedia: dict[Card, Face]) -> None:
    face = flat(wikimedia[Card.parse("5b")])
    assert read_pintas(face) == (Suit.BASTOS, Suit.BASTOS)
    assert read_pintas(cv2.rotate(face, cv2.ROTATE_180)) == (Suit.BASTOS, Suit.BASTOS)


def drawn(breaks: tuple[float, ...]) -> np.ndarray:
    """Paper with a frame line near each end, broken at these shares of its length."""
    w, h = PIP_SIZE
    card = np.full((h, w, 3), 235, np.uint8)
    left, right = int(0.08 * w), int(0.92 * w)
    for y in (int(0.08 * h), h - 1 - int(0.08 * h)):
        cv2.line(card, (left, y), (right, y), (60, 60, 60), 2)
        for b in breaks:
            x = left + int(b * (right - left))
            card[y - 3:y + 4, x - 9:x + 10] = 235
    return card


@pytest.mark.parametrize(("breaks", "suit"), [
    ((), Suit.OROS), ((0.5,), Suit.COPAS), ((0.3, 0.7), Suit.ESPADAS),
    ((0.21, 0.5, 0.79), Suit.BASTOS),
    ((0.35,), None), ((0.3, 0.9), None), ((0.5, 0.79), None),  # breaks out of their places
])
def test_breaks_count_only_in_their_places(breaks: tuple[float, ...], suit: Suit | None) -> None:
    assert read_pintas(drawn(breaks)) == (suit, suit)


def test_blank_paper_has_no_pinta() -> None:
    assert read_pintas(np.full((*PIP_SIZE[::-1], 3), 235, np.uint8)) == (None, None)
