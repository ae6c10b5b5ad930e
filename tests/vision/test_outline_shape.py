"""Outline shape: a far-from-the-bank card is named by its cues only on a card-shaped outline."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from engine.cards import Card
from referee.vision.bank import Bank
from referee.vision.faces import Face
from referee.vision.geometry import CARD_ASPECT
from referee.vision.outlines import card_shaped, drop_parts
from referee.vision.proportions import card_proportioned, rectified_aspect
from referee.vision.reading import Reading
from referee.vision.recognize import Recognizer
from referee.vision.scenes import project
from tests.vision.test_detect import corner_error


@pytest.mark.parametrize("tilt", [0, 15, 30, 40])
def test_perspective_is_undone_for_a_tilted_card(tilt: float) -> None:
    rng = np.random.default_rng(tilt)
    for _ in range(5):
        corners = project(np.array([320.0, 240.0]), (120 / CARD_ASPECT, 120), rng.uniform(0, 6.3),
                          np.radians(tilt), rng.uniform(0, 3.1), 120 * rng.uniform(1.8, 4.0))
        assert rectified_aspect(corners) == pytest.approx(CARD_ASPECT, rel=0.01)
        assert card_shaped(corners)


@pytest.mark.parametrize("long_side, shaped", [(155, True), (120, False), (185, False)])
def test_upright_outlines_of_other_shapes_are_not_cards(long_side: float, shaped: bool) -> None:
    quad = np.array([[0, 0], [100, 0], [100, long_side], [0, long_side]], np.float32)
    assert card_shaped(quad) is shaped


def test_part_of_a_card_is_not_named_by_its_pips(wikimedia: dict[Card, Face],
                                                  fournier_bank: Bank) -> None:
    """The lower two thirds of a 6 of copas show four cups: not read as the 4 the bank guessed."""
    frame = np.full((480, 640, 3), (60, 140, 60), np.uint8)
    frame[80:390, 200:400] = cv2.resize(wikimedia[Card.parse("6c")].bgr, (200, 310))
    recognizer = Recognizer(fournier_bank)
    whole = np.array([[200, 80], [399, 80], [399, 389], [200, 389]], np.float32)
    part = np.array([[200, 170], [399, 170], [399, 389], [200, 389]], np.float32)
    far = 0.5  # below the bank's min_similarity: only the cues can name the card
    assert recognizer.confirm(Reading(None, 0.0, whole, Card.parse("6c"), far), frame).card == Card.parse("6c")
    assert recognizer.confirm(Reading(None, 0.0, part, Card.parse("4c"), far), frame).card is None


def _reading(quad: list[list[float]], similarity: float) -> Reading:
    return Reading(Card.parse("2o"), 1.0, np.array(quad, np.float32), Card.parse("2o"), similarity)


def test_part_of_a_card_shaped_outline_goes_however_much_better_it_looks() -> None:
    """The two coins at one end of a 4 of oros look like a 2 of oros of another deck better than
    the whole 4 looks like any of its cards; a card never lies inside a card."""
    whole = _reading([[0, 0], [100, 0], [100, 155], [0, 155]], 0.56)
    part = _reading([[5, 5], [95, 5], [95, 60], [5, 60]], 0.84)
    assert drop_parts([whole, part]) == [whole]
    # inside an outline without a card's sides (two cards and the table between them), it stays
    wide = _reading([[0, 0], [200, 0], [200, 155], [0, 155]], 0.56)
    assert drop_parts([wide, part]) == [wide, part]


@pytest.mark.parametrize("tilt", [0, 25])
@pytest.mark.parametrize("kept", [0.7, 1.3])
def test_an_outline_cut_short_or_run_on_is_given_a_cards_proportions(tilt: float,
                                                                     kept: float) -> None:
    """An outline stopping where a finger crosses the card (0.7 of it), or running on past its
    end onto a table as pale as the card (1.3): one of the outlines with a side moved along its
    neighbours to a card's proportions is the card's own."""
    card = project(np.array([320.0, 240.0]), (120 / CARD_ASPECT, 120), 0.4, np.radians(tilt), 1.0,
                   120 * 3.0).astype(np.float32)
    near = card[[1, 0]]  # the near ends of the long sides (corners 1 and 0 stay)
    wrong = np.concatenate([card[:2], near + kept * (card[2:] - near)])
    assert corner_error(wrong, card) > 0.25
    proportioned = card_proportioned(wrong)
    assert 1 <= len(proportioned) <= 8
    assert min(corner_error(q, card) for q in proportioned) < 0.02
    for q in proportioned:
        assert rectified_aspect(q) == pytest.approx(CARD_ASPECT, rel=0.01)


def test_an_outline_with_a_cards_proportions_is_not_moved() -> None:
    card = project(np.array([320.0, 240.0]), (120 / CARD_ASPECT, 120), 1.1, np.radians(20), 0.3,
                   120 * 3.0).astype(np.float32)
    assert card_proportioned(card) == []
