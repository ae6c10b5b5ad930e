"""A figure's coin tells oros on the faces of both decks, and nothing else looks like it."""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np
import pytest

from engine.cards import FIGURES, Card, Suit
from referee.vision.cues import Cues, read_cues
from referee.vision.emblems import holds_coin, holds_cup
from referee.vision.faces import Face
from referee.vision.figure_cues import contradicts, figure_card, figure_suit
from referee.vision.geometry import flatten
from referee.vision.pips import PIP_SIZE, Pips
from referee.vision.scenes import SceneOptions, random_scene


def seen(face: Face, blur: float, holds: Callable[[np.ndarray], bool] = holds_coin) -> bool:
    img = cv2.resize(face.bgr, PIP_SIZE, interpolation=cv2.INTER_AREA)
    return holds(cv2.GaussianBlur(img, (0, 0), blur) if blur else img)


@pytest.mark.parametrize("deck_name", ["wikimedia", "fournier"])
@pytest.mark.parametrize("blur", [0, 2])
def test_the_coin_is_seen_on_every_oros_figure_and_on_no_other_card(
        deck_name: str, blur: float, request: pytest.FixtureRequest) -> None:
    deck: dict[Card, Face] = request.getfixturevalue(deck_name)
    coins = {card for card, face in deck.items() if seen(face, blur)}
    assert coins == {Card(rank, Suit.OROS) for rank in FIGURES}, sorted(map(str, coins))


@pytest.mark.parametrize("deck_name", ["wikimedia", "fournier"])
@pytest.mark.parametrize("shift", [0.07, -0.07])
def test_a_coin_cut_by_the_margin_left_out_is_still_seen(
        deck_name: str, shift: float, request: pytest.FixtureRequest) -> None:
    """An outline a little off moves the picture by some 7% of the card's height: a coin near the
    top (the rey de oros holds his there) is then cut by the margin the reader leaves out."""
    deck: dict[Card, Face] = request.getfixturevalue(deck_name)
    moved = np.float32([[1, 0, 0], [0, 1, -shift * PIP_SIZE[1]]])
    coins = {card for card, face in deck.items()
             if holds_coin(cv2.warpAffine(cv2.resize(face.bgr, PIP_SIZE, interpolation=cv2.INTER_AREA),
                                          moved, PIP_SIZE, borderMode=cv2.BORDER_REPLICATE))}
    assert coins == {Card(rank, Suit.OROS) for rank in FIGURES}, sorted(map(str, coins))


def test_a_fingertip_over_the_cards_edge_is_no_coin(wikimedia: dict[Card, Face]) -> None:
    """In a generated scene a finger crosses the edge of a sota de espadas.  Flattened on the
    outline the reader found there, the fingertip is round and cut by the margin left out, and
    fills its circle like a coin cut there; but it is skin, not gold."""
    rng = np.random.default_rng(2)
    for _ in range(102):
        scene = random_scene(wikimedia, rng, SceneOptions(max_tilt=40))
    assert [str(placed.card) for placed in scene.cards] == ["10o", "10e"]
    outline = np.float32([[234, 271], [340, 294], [303, 454], [202, 430]])
    assert not holds_coin(flatten(scene.image, outline, PIP_SIZE))
    assert holds_coin(flatten(scene.image, scene.cards[0].corners, PIP_SIZE))


def test_a_coin_run_into_a_horses_coat_is_still_seen(fournier: dict[Card, Face]) -> None:
    """In a generated scene the 1878 caballo de oros lies blurred under a warm light: his coin
    and his horse's tan coat make one yellow blob, which fills no circle; the coin alone is far
    more saturated than the coat."""
    rng = np.random.default_rng(3)
    for _ in range(117):
        scene = random_scene(fournier, rng, SceneOptions())
    caballo = next(placed for placed in scene.cards if placed.card == Card(11, Suit.OROS))
    assert holds_coin(flatten(scene.image, caballo.corners, PIP_SIZE))


@pytest.mark.parametrize("shift", [40, -40])
def test_a_coin_beside_one_cut_by_the_edge_is_not_held(fournier: dict[Card, Face], shift: int) -> None:
    """The 1878 4 of oros lies over the lower part of the caballo de espadas: one of its coins is
    whole on the caballo, the next cut by the edge.  A figure holds one coin, alone."""
    width, height = PIP_SIZE
    caballo = cv2.resize(fournier[Card(11, Suit.ESPADAS)].bgr, PIP_SIZE, interpolation=cv2.INTER_AREA)
    four = cv2.resize(fournier[Card(4, Suit.OROS)].bgr, PIP_SIZE, interpolation=cv2.INTER_AREA)
    moved = np.float32([[1, 0, shift], [0, 1, 0.6 * height]])
    over = cv2.warpAffine(four, moved, PIP_SIZE)
    covers = cv2.warpAffine(np.full((height, width), 255, np.uint8), moved, PIP_SIZE) > 0
    caballo[covers] = over[covers]
    assert not holds_coin(caballo)


def test_blank_paper_holds_no_coin() -> None:
    assert not holds_coin(np.full((PIP_SIZE[1], PIP_SIZE[0], 3), 235, np.uint8))


PICTURE = Pips({"ink": 1}, {"red": 0.3, "yellow": 0.4, "green": 0.0, "blue": 0.3})


@pytest.mark.parametrize(("guess", "pinta", "suit"), [
    ("11b", None, Suit.OROS),          # the coin alone tells oros, whatever the bank's suit
    ("11b", Suit.OROS, Suit.OROS),
    ("11b", Suit.COPAS, Suit.OROS),    # copas at one end is not sure: the coin outweighs it
    ("11o", Suit.BASTOS, None),        # a sure pinta of another suit: no suit
])
def test_the_coin_tells_a_figures_suit(guess: str, pinta: Suit | None, suit: Suit | None) -> None:
    assert figure_suit(Card.parse(guess), Cues(PICTURE, pinta, coin=True)) == suit
    both_ends = Cues(PICTURE, pinta, both_ends=True, coin=True)
    assert figure_suit(Card.parse(guess), both_ends) == (suit if pinta in (None, Suit.OROS) else None)


def test_the_coin_outweighs_copas_read_at_one_end_of_an_oros_figure(
        wikimedia: dict[Card, Face]) -> None:
    """Seen small and blurred, the caballo de oros shows copas' one break at one end."""
    small = cv2.GaussianBlur(cv2.resize(wikimedia[Card.parse("11o")].bgr, (96, 148),
                                        interpolation=cv2.INTER_AREA), (0, 0), 1.5)
    cues = read_cues(cv2.resize(small, PIP_SIZE, interpolation=cv2.INTER_LINEAR))
    assert cues.coin and cues.pinta == Suit.COPAS and not cues.sure
    assert figure_suit(Card.parse("11b"), cues) == Suit.OROS
    assert not contradicts(Card.parse("11o"), cues)
    assert figure_card(Card.parse("11b"), cues, 11) == Card.parse("11o")  # not 11c


def test_the_coin_or_a_pinta_on_its_own_lets_the_picture_overrule_the_banks_rank() -> None:
    cues = Cues(PICTURE, None, coin=True)
    assert figure_card(Card.parse("12c"), cues, 12) == Card.parse("12o")
    assert figure_card(Card.parse("10c"), cues, 12) == Card.parse("12o")
    assert figure_card(Card.parse("10c"), Cues(PICTURE, Suit.ESPADAS, both_ends=True), 11) \
        == Card.parse("11e")
    # a pinta agreeing with the bank's suit, read at one end only, is no witness of its own
    assert figure_card(Card.parse("10o"), Cues(PICTURE, Suit.OROS), 12) is None
    assert figure_card(Card.parse("10o"), Cues(PICTURE, Suit.OROS), 10) == Card.parse("10o")


@pytest.mark.parametrize("deck_name", ["wikimedia", "fournier"])
@pytest.mark.parametrize("blur", [0, 2])
def test_the_cup_is_seen_on_the_copas_figures_and_on_no_other_card(
        deck_name: str, blur: float, request: pytest.FixtureRequest) -> None:
    """The 1878 caballo de copas holds his cup against his horse's head, whose tan coat runs into
    its gold: it is not told apart there."""
    deck: dict[Card, Face] = request.getfixturevalue(deck_name)
    cups = {card for card, face in deck.items() if seen(face, blur, holds_cup)}
    expected = {Card(rank, Suit.COPAS) for rank in FIGURES}
    if deck_name == "fournier":
        expected.discard(Card(11, Suit.COPAS))
    assert cups == expected, sorted(map(str, cups))


def test_blank_paper_holds_no_cup() -> None:
    assert not holds_cup(np.full((PIP_SIZE[1], PIP_SIZE[0], 3), 235, np.uint8))


@pytest.mark.parametrize(("guess", "pinta", "both_ends", "suit"), [
    ("10o", None, False, Suit.COPAS),          # the cup alone tells copas, whatever the bank's suit
    ("10o", Suit.COPAS, True, Suit.COPAS),
    ("10b", Suit.OROS, False, Suit.COPAS),     # no break at one end is not sure: the cup outweighs it
    ("10c", Suit.ESPADAS, False, None),        # two breaks in their places are sure: no suit
    ("10c", Suit.OROS, True, None),            # so is a pinta read at both ends
])
def test_the_cup_tells_a_figures_suit(guess: str, pinta: Suit | None, both_ends: bool,
                                      suit: Suit | None) -> None:
    assert figure_suit(Card.parse(guess), Cues(PICTURE, pinta, both_ends, cup=True)) == suit


def test_a_coin_and_a_cup_tell_no_suit() -> None:
    """No figure holds both: one of them is something else."""
    assert figure_suit(Card.parse("10c"), Cues(PICTURE, None, coin=True, cup=True)) is None
