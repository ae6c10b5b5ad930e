"""An ace whose bank guess is a card of several pips is named by its one emblem and its pinta;
the 1878 ace of espadas, which the other bank takes for a 3, also by its middle filled without a
blade."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from engine.cards import Card, Suit
from referee.vision.ace_cues import one_emblem_ace, ribboned_ace
from referee.vision.cues import Cues, read_cues
from referee.vision.faces import Face
from referee.vision.pips import PIP_SIZE, Pips
from referee.vision.reading import Reading
from referee.vision.recognize import Recognizer
from referee.vision.scenes import SceneOptions, render

ACE_OF_SWORDS = Card(1, Suit.ESPADAS)


def flat(face: Face) -> np.ndarray:
    return cv2.resize(face.bgr, PIP_SIZE, interpolation=cv2.INTER_AREA)


@pytest.mark.parametrize("deck_name", ["wikimedia", "fournier"])
def test_only_the_ace_of_swords_is_one_emblem_through_the_middle(
        deck_name: str, request: pytest.FixtureRequest) -> None:
    """On both decks' faces: the coin, the cup and the club fill an ace's middle, the pips of a
    2-7 share the ink out, a figure is wide in the middle or fills it."""
    deck: dict[Card, Face] = request.getfixturevalue(deck_name)
    flats = {card: flat(face) for card, face in deck.items()}
    named = {card: one_emblem_ace(read_cues(img), img) for card, img in flats.items()}
    assert named[ACE_OF_SWORDS] == ACE_OF_SWORDS
    assert not {str(c): str(n) for c, n in named.items() if n is not None and c != ACE_OF_SWORDS}


def sword(share: float = 0.8, height: float = 0.7, middle: float = 0.4) -> Pips:
    return Pips({"ink": 3, "red": 2, "yellow": 2, "green": 0, "blue": 4},
                {"red": 0.2, "yellow": 0.6, "green": 0.0, "blue": 0.1}, middle, (share, height))


@pytest.mark.parametrize(("pips", "named"), [
    (sword(), True),
    (sword(share=0.65), False),     # the clubs of a 1878 5-7 of bastos touching
    (sword(height=0.4), False),     # one pip, not a drawing across the card
    (sword(middle=0.2), False),     # the middle bare: a 2 or a 4
    (sword(middle=0.9), False),     # the middle full: a coin, a cup, a figure
])
def test_one_emblem_ace_table(fournier: dict[Card, Face], pips: Pips, named: bool) -> None:
    picture = flat(fournier[ACE_OF_SWORDS])  # narrow in the middle
    cues = Cues(pips, Suit.ESPADAS)  # two breaks at one end: sure
    assert one_emblem_ace(cues, picture) == (ACE_OF_SWORDS if named else None)


def test_no_ace_without_a_sure_pinta(fournier: dict[Card, Face]) -> None:
    picture = flat(fournier[ACE_OF_SWORDS])
    assert one_emblem_ace(Cues(sword(), Suit.COPAS), picture) is None  # one break at one end
    assert one_emblem_ace(Cues(sword(), None), picture) is None


def test_a_caballos_picture_is_not_an_aces(fournier: dict[Card, Face]) -> None:
    caballo = flat(fournier[Card(11, Suit.ESPADAS)])  # wide in the middle
    assert one_emblem_ace(Cues(sword(), Suit.ESPADAS, both_ends=True), caballo) is None


@pytest.mark.parametrize("deck_name", ["wikimedia", "fournier"])
def test_only_the_1878_ace_of_swords_guessed_a_three_is_named_by_its_bladeless_middle(
        deck_name: str, request: pytest.FixtureRequest) -> None:
    """On both decks' faces, sharp and blurred, guessed a 3 of bastos: the 1878 ace of espadas is
    named, and no other card (the 3s of espadas fill their middle with a blade's blue, the
    naipes-libres ace is a blade across the middle)."""
    deck: dict[Card, Face] = request.getfixturevalue(deck_name)
    named = set()
    for card, face in deck.items():
        for image in (flat(face), cv2.GaussianBlur(flat(face), (9, 9), 0)):
            if ribboned_ace(Card(3, Suit.BASTOS), read_cues(image), image) is not None:
                named.add(str(card))
    assert named == ({"1e"} if deck_name == "fournier" else set())


@pytest.mark.parametrize(("guess", "middle", "blue", "pinta", "named"), [
    ("3b", 0.40, 0.01, "e", True),
    ("3e", 0.35, 0.05, "e", True),
    ("3e", 0.31, 0.30, "e", False),   # a blade through the middle: the 3
    ("3b", 0.20, 0.00, "e", False),   # the middle bare: no ace's
    ("3b", 0.90, 0.00, "e", False),   # the middle full: a figure, a finger
    ("3b", 0.40, 0.01, "b", False),   # the pinta reads bastos: a 3 of bastos
    ("2b", 0.40, 0.01, "e", False),   # only the bank's 3 is read so
])
def test_ribboned_ace_table(fournier: dict[Card, Face], guess: str, middle: float, blue: float,
                            pinta: str, named: bool) -> None:
    picture = flat(fournier[ACE_OF_SWORDS])  # narrow in the middle
    pips = Pips({"ink": 5, "red": 7, "yellow": 2, "green": 1, "blue": 5}, {}, middle,
                middle_blue=blue)
    cues = Cues(pips, Suit(pinta), both_ends=True)
    assert ribboned_ace(Card.parse(guess), cues, picture) == (ACE_OF_SWORDS if named else None)


def confirmed(recognizer: Recognizer, face: Face, guess: Card, named: Card | None = None,
              confidence: float = 0.1, similarity: float = 0.52) -> Card | None:
    """What ``confirm`` leaves on a scene of ``face`` of the bank guessing ``guess`` (by default
    far from the card and leaving it unnamed; or naming ``named`` at ``confidence``)."""
    opts = SceneOptions(max_tilt=20, finger_rate=0.0, overlap_rate=0.0, card_size=(0.5, 0.7))
    scene = render([face], np.random.default_rng(3), opts)
    reading = Reading(named, confidence, scene.cards[0].corners, guess, similarity=similarity)
    return recognizer.confirm(reading, scene.image).card


def test_the_1878_ace_of_swords_the_other_bank_takes_for_a_three_of_clubs(
        recognizer: Recognizer, fournier: dict[Card, Face]) -> None:
    """The naipes-libres bank's guess for the 1878 ace of espadas is a 3 of bastos: its cues
    cannot confirm a three, and its one emblem and its pinta name the ace."""
    guess = Card(3, Suit.BASTOS)
    assert confirmed(recognizer, fournier[ACE_OF_SWORDS], guess) == ACE_OF_SWORDS
    assert confirmed(recognizer, fournier[Card(3, Suit.ESPADAS)], guess) != ACE_OF_SWORDS


def named_unsure(recognizer: Recognizer, face: Face, card: Card, confidence: float) -> Card | None:
    """What ``confirm`` leaves of ``card``, named by the bank at ``confidence`` on a scene of
    ``face``."""
    return confirmed(recognizer, face, card, card, confidence, similarity=0.62)


@pytest.mark.parametrize("deck_name", ["wikimedia", "fournier"])
def test_an_ace_named_unsure_is_dropped_when_its_pinta_reads_another_suit(
        recognizer: Recognizer, deck_name: str, request: pytest.FixtureRequest) -> None:
    """Across decks the ace of espadas, one long emblem, may be far ahead of every card but the
    ace of bastos: its pinta tells them apart.  A sure bank is not second-guessed, and an ace of
    its own suit stays named."""
    deck: dict[Card, Face] = request.getfixturevalue(deck_name)
    ace_of_clubs = Card(1, Suit.BASTOS)
    unsure = recognizer.settings.min_confidence
    assert named_unsure(recognizer, deck[ACE_OF_SWORDS], ace_of_clubs, unsure) is None
    assert named_unsure(recognizer, deck[ACE_OF_SWORDS], ace_of_clubs, 0.95) == ace_of_clubs
    assert named_unsure(recognizer, deck[ace_of_clubs], ace_of_clubs, unsure) == ace_of_clubs
