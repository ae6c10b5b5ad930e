"""Each card is read once: of two readings whose outlines, as best known, are one card's, or
that name the same card one inside the other, the named one (or the surer) stays; cards side by
side, or a part of a card named otherwise, are kept apart."""

from __future__ import annotations

import numpy as np

from engine.cards import Card
from referee.vision.outlines import one_per_card
from referee.vision.reading import Reading


def quad(x: float, y: float, w: float = 100, h: float = 155) -> np.ndarray:
    return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32)


def reading(card: str | None, confidence: float, corners: np.ndarray,
            edges: np.ndarray | None = None) -> Reading:
    return Reading(Card.parse(card) if card else None, confidence, corners,
                   guess=Card.parse(card or "2e"), similarity=0.6, edges=edges)


def test_two_outlines_snapped_onto_one_card_are_read_once() -> None:
    """The finder kept them apart (one is larger), but both were snapped onto the same edges."""
    card = quad(100, 100)
    named = reading("2e", 0.66, quad(90, 90, 130, 180), edges=card)
    again = reading("2e", 0.56, quad(104, 98), edges=card + 1)
    assert one_per_card([again, named]) == [named]


def test_the_named_reading_stays_over_a_surer_unnamed_one() -> None:
    unnamed = reading(None, 0.6, quad(100, 100))
    named = reading("4b", 0.3, quad(102, 101))
    assert one_per_card([unnamed, named]) == [named]


def test_cards_side_by_side_and_a_part_of_a_card_are_kept() -> None:
    left, right = reading("4b", 0.9, quad(100, 100)), reading("5c", 0.9, quad(180, 100))
    part = reading(None, 0.2, quad(100, 100, 100, 70))  # half the left card: covers little of it
    assert one_per_card([left, right, part]) == [left, right, part]


def test_a_part_of_a_card_named_as_the_card_is_the_card_read_twice() -> None:
    """A deck holds each card once: the middle of a card named the same card goes; named
    another card, or the same card beside it, it stays."""
    whole = reading("1b", 0.6, quad(100, 100))
    middle = reading("1b", 0.01, quad(130, 150, 40, 50))
    assert one_per_card([whole, middle]) == [whole]
    other = reading("2b", 0.01, quad(130, 150, 40, 50))
    assert one_per_card([whole, other]) == [whole, other]
    beside = reading("1b", 0.3, quad(250, 100))
    assert one_per_card([whole, beside]) == [whole, beside]
