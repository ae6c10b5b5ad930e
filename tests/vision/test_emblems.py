"""A figure's coin tells oros on the faces of both decks, and nothing else looks like it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from engine.cards import FIGURES, Card, Suit
from referee.vision.cues import Cues, figure_card, figure_suit
from referee.vision.emblems import holds_coin
from referee.vision.faces import Face
from referee.vision.pips import PIP_SIZE, Pips


def seen(face: Face, blur: float) -> bool:
    img = cv2.resize(face.bgr, PIP_SIZE, interpolation=cv2.INTER_AREA)
    return holds_coin(cv2.GaussianBlur(img, (0, 0), blur) if blur else img)


@pytest.mark.parametrize("deck_name", ["wikimedia", "fournier"])
@pytest.mark.parametrize("blur", [0, 2])
def test_the_coin_is_seen_on_every_oros_figure_and_on_no_other_card(
        deck_name: str, blur: float, request: pytest.FixtureRequest) -> None:
    deck: dict[Card, Face] = request.getfixturevalue(deck_name)
    coins = {card for card, face in deck.items() if seen(face, blur)}
    assert coins == {Card(rank, Suit.OROS) for rank in FIGURES}, sorted(map(str, coins))


def test_blank_paper_holds_no_coin() -> None:
    assert not holds_coin(np.full((PIP_SIZE[1], PIP_SIZE[0], 3), 235, np.uint8))


PICTURE = Pips({"ink": 1}, {"red": 0.3, "yellow": 0.4, "green": 0.0, "blue": 0.3})


@pytest.mark.parametrize(("guess", "pinta", "suit"), [
    ("11b", None, Suit.OROS),          # the coin alone tells oros, whatever the bank's suit
    ("11b", Suit.OROS, Suit.OROS),
    ("11b", Suit.COPAS, None),         # the coin and the pinta disagree: no suit
    ("11o", Suit.BASTOS, None),
])
def test_the_coin_tells_a_figures_suit(guess: str, pinta: Suit | None, suit: Suit | None) -> None:
    assert figure_suit(Card.parse(guess), Cues(PICTURE, pinta, coin=True)) == suit


def test_the_coin_names_a_figure_only_with_the_banks_rank() -> None:
    cues = Cues(PICTURE, None, coin=True)
    assert figure_card(Card.parse("12c"), cues, 12) == Card.parse("12o")
    assert figure_card(Card.parse("10c"), cues, 11) is None  # the picture alone may be wrong
    assert figure_card(Card.parse("10c"), Cues(PICTURE, Suit.ESPADAS, both_ends=True), 11) \
        == Card.parse("11e")
