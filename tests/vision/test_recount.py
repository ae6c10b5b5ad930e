"""A 2-7 the bank names without being sure is dropped when its pips count a neighbouring rank
(a 4-7 of espadas also when no count of its swords finds its rank), and then read by where its pips lie (a 4 of copas or oros by its bare middle, a 5-7 of espadas
by its swords); a 5 of espadas the bank takes for another 2-7 of
espadas is named by its swords (a 5 or a 7 also by its hilts and the blade across its middle),
a 5-7 of espadas by as many hilts as blades, and a 4 far from the bank by its four pips and its bare
middle."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from engine.cards import Card, Suit
from referee.vision.cues import (
    SUIT_HUE,
    Cues,
    cues_agree,
    miscounted,
    pinta_of_two,
    read_cues,
)
from referee.vision.faces import Face
from referee.vision.layout_cues import (
    five_of_swords,
    four_with_print,
    hilts_across,
    six_of_swords,
    swords_counted,
)
from referee.vision.pips import PIP_SIZE, Pips
from referee.vision.reading import Reading
from referee.vision.recognize import Recognizer
from referee.vision.scenes import SceneOptions, render

ONE_COLOUR = [Card(rank, suit) for rank in range(2, 8) for suit in SUIT_HUE]


def flat(face: Face) -> np.ndarray:
    return cv2.resize(face.bgr, PIP_SIZE, interpolation=cv2.INTER_AREA)


def cues_of(face: Face) -> Cues:
    return read_cues(flat(face))


def neighbours(card: Card) -> list[Card]:
    return [Card(rank, card.suit) for rank in (card.rank - 1, card.rank + 1) if 2 <= rank <= 7]


@pytest.mark.parametrize("deck_name", ["wikimedia", "fournier"])
def test_a_face_is_never_miscounted_as_itself_and_mostly_as_its_neighbours(
        deck_name: str, request: pytest.FixtureRequest) -> None:
    deck: dict[Card, Face] = request.getfixturevalue(deck_name)
    cues = {card: cues_of(deck[card]) for card in ONE_COLOUR}
    assert not [str(c) for c, q in cues.items() if miscounted(c, q)]
    pairs = [(c, n) for c in ONE_COLOUR for n in neighbours(c)]
    caught = sum(miscounted(n, cues[c]) for c, n in pairs)
    assert caught >= 0.8 * len(pairs), f"{caught}/{len(pairs)} neighbouring ranks told apart"


def test_bastos_have_no_one_colour_to_count(wikimedia: dict[Card, Face]) -> None:
    assert not miscounted(Card(6, Suit.BASTOS), cues_of(wikimedia[Card(7, Suit.BASTOS)]))


def confirmed(recognizer: Recognizer, face: Face, guess: Card, confidence: float,
              similarity: float = 0.72) -> Card | None:
    """What ``confirm`` leaves of the bank guessing ``guess`` on a scene of ``face`` (named if
    ``confidence`` reaches the recognizer's bar)."""
    opts = SceneOptions(max_tilt=20, finger_rate=0.0, overlap_rate=0.0, card_size=(0.5, 0.7))
    scene = render([face], np.random.default_rng(3), opts)
    named = guess if confidence >= recognizer.settings.min_confidence else None
    reading = Reading(named, confidence, scene.cards[0].corners, guess, similarity=similarity)
    return recognizer.confirm(reading, scene.image).card


def test_an_unsure_bank_six_on_a_seven_of_swords_is_dropped_and_read_by_its_swords(
        recognizer: Recognizer, wikimedia: dict[Card, Face]) -> None:
    """The bank names the 6 (under ``sure_confidence``) on a 7 de espadas; its pips count seven,
    so the 6 is dropped, and the card is read like one the bank left unnamed: its hilts and
    blades name the 7."""
    seven, six = Card(7, Suit.ESPADAS), Card(6, Suit.ESPADAS)
    assert confirmed(recognizer, wikimedia[seven], six, 0.75) == seven
    assert confirmed(recognizer, wikimedia[six], six, 0.75) == six
    assert confirmed(recognizer, wikimedia[seven], six, 0.95) == six  # a sure bank is not checked


@pytest.mark.parametrize("deck_name", ["wikimedia", "fournier"])
def test_a_card_named_only_by_its_clear_lead_is_named_in_the_suit_a_sure_pinta_reads(
        deck_name: str, recognizer: Recognizer, request: pytest.FixtureRequest) -> None:
    """Across decks the bank named 4s of bastos 4s of espadas at its bar, by their clear lead
    (``lead_confidence``): the pinta's three breaks drop the espadas, and the four clubs name the
    4 of bastos; where the pips do not count the rank (a 5 of bastos) nothing is named.  A little
    surer, the bank is not checked so, and a 4 of espadas named at the bar stays."""
    deck: dict[Card, Face] = request.getfixturevalue(deck_name)
    bastos, espadas = Card(4, Suit.BASTOS), Card(4, Suit.ESPADAS)
    at_the_bar = recognizer.settings.lead_confidence
    assert confirmed(recognizer, deck[bastos], espadas, at_the_bar) == bastos
    assert confirmed(recognizer, deck[Card(5, Suit.BASTOS)], espadas, at_the_bar) is None
    assert confirmed(recognizer, deck[bastos], espadas, 0.8) == espadas
    assert confirmed(recognizer, deck[espadas], espadas, at_the_bar) == espadas


@pytest.mark.parametrize("deck_name", ["wikimedia", "fournier"])
def test_a_six_of_swords_is_not_named_by_its_pips_over_a_sword_across_the_middle(
        deck_name: str, recognizer: Recognizer, request: pytest.FixtureRequest) -> None:
    """A 7 de espadas whose middle sword's hilt and blade touch counts six blobs of blue, and the
    bank's guess of a 6 was named so; the 6 leaves the middle bare, the 7 lays a sword across it."""
    deck: dict[Card, Face] = request.getfixturevalue(deck_name)
    six = Card(6, Suit.ESPADAS)
    seven = cues_of(deck[Card(7, Suit.ESPADAS)])
    counted_six = replace(seven, pips=replace(seven.pips, counts={**seven.pips.counts, "blue": 6}))
    assert not cues_agree(six, counted_six)
    assert cues_agree(six, cues_of(deck[six]))
    bare = replace(counted_six, pips=replace(counted_six.pips, middle=0.0))
    assert cues_agree(six, bare)


@pytest.mark.parametrize("deck_name", ["wikimedia", "fournier"])
def test_an_unsure_bank_two_ranks_off_on_the_swords_is_dropped_when_no_count_finds_its_rank(
        deck_name: str, recognizer: Recognizer, request: pytest.FixtureRequest) -> None:
    """The bank names a 7 (under ``sure_confidence``) on a 5 or a 3 de espadas: neither the ink,
    nor the blades, nor the hilts count seven, so the 7 is dropped and the card read by its
    swords (five blades and five hilts name the 5); each 2-7 of espadas keeps its own rank so."""
    deck: dict[Card, Face] = request.getfixturevalue(deck_name)
    seven = Card(7, Suit.ESPADAS)
    assert confirmed(recognizer, deck[Card(5, Suit.ESPADAS)], seven, 0.75) == Card(5, Suit.ESPADAS)
    assert confirmed(recognizer, deck[Card(3, Suit.ESPADAS)], seven, 0.75) is None
    for rank in range(2, 8):
        card = Card(rank, Suit.ESPADAS)
        assert confirmed(recognizer, deck[card], card, 0.75) == card


def test_an_unsure_bank_five_on_a_four_of_cups_is_the_four(recognizer: Recognizer,
                                                           wikimedia: dict[Card, Face]) -> None:
    """Four cups counted, the pinta of copas and nothing in the middle: the 4, not the 5."""
    four, five = Card(4, Suit.COPAS), Card(5, Suit.COPAS)
    assert confirmed(recognizer, wikimedia[four], five, 0.75) == four
    assert confirmed(recognizer, wikimedia[five], five, 0.75) == five


@pytest.mark.parametrize("deck_name", ["wikimedia", "fournier"])
def test_only_the_five_of_swords_counts_five_blue_swords_with_one_across_the_middle(
        deck_name: str, request: pytest.FixtureRequest) -> None:
    """On both decks' faces, whatever 2-7 of espadas the bank guessed: the 4 and the 6 leave the
    middle bare, the 3 and the 7 count other numbers of swords."""
    deck: dict[Card, Face] = request.getfixturevalue(deck_name)
    five = Card(5, Suit.ESPADAS)
    for guess in (Card(rank, Suit.ESPADAS) for rank in range(2, 8)):
        named = {card: five_of_swords(guess, cues_of(face)) for card, face in deck.items()}
        assert named[five] == five
        assert not {str(c) for c, n in named.items() if n is not None and c != five}


def test_an_unsure_bank_seven_on_a_five_of_swords_is_the_five(recognizer: Recognizer,
                                                              wikimedia: dict[Card, Face]) -> None:
    """A far guess (below ``min_similarity``) of a 7, five swords in blue and one across the
    middle: the 5.  The 4, whose middle is bare, is no 5: its four swords name it the 4."""
    five, seven, four = Card(5, Suit.ESPADAS), Card(7, Suit.ESPADAS), Card(4, Suit.ESPADAS)
    assert confirmed(recognizer, wikimedia[five], seven, 0.3, similarity=0.5) == five
    assert confirmed(recognizer, wikimedia[four], seven, 0.3, similarity=0.5) == four


@pytest.mark.parametrize(("deck_name", "ranks"), [("wikimedia", {5, 6, 7}), ("fournier", {5, 6})])
def test_hilts_and_blades_name_only_the_five_six_and_seven_of_swords(
        deck_name: str, ranks: set[int], request: pytest.FixtureRequest) -> None:
    """On both decks' faces: each 5-7 of espadas whose pinta reads (the 1878 7's does not), and
    no other card, not the 2-4 of espadas nor the figures holding a sword."""
    deck: dict[Card, Face] = request.getfixturevalue(deck_name)
    named = {card: swords_counted(cues_of(face)) for card, face in deck.items()}
    assert {str(c): str(n) for c, n in named.items() if n is not None} == {
        str(Card(rank, Suit.ESPADAS)): str(Card(rank, Suit.ESPADAS)) for rank in ranks}


@pytest.mark.parametrize(("swords", "blobs", "middle", "named"), [
    (5, 6, 0.06, Card(5, Suit.ESPADAS)), (5, 6, 0.004, None),  # a 4 with a stray fifth sword
    (6, 7, 0.01, Card(6, Suit.ESPADAS)), (6, 7, 0.165, None),  # a 7 with a sword lost
    (6, 13, 0.02, None),                 # a 7 whose middle sword a finger hides, in pieces
    (7, 7, 0.12, Card(7, Suit.ESPADAS)), (4, 4, 0.0, None),    # four and four: not named so
])
def test_swords_counted_only_where_the_middle_and_the_ink_agree(
        swords: int, blobs: int, middle: float, named: Card | None) -> None:
    """A 5 and a 7 have a sword across the middle, a 6 none, and all the ink counts the swords and
    at most two blobs more (readings seen on held-out scenes)."""
    counts = {"ink": blobs, "red": 1, "yellow": swords, "green": 0, "blue": swords}
    cues = Cues(Pips(counts, {}, middle), Suit.ESPADAS, both_ends=True)
    assert swords_counted(cues) == named


@pytest.mark.parametrize(("guess", "hilts", "blades", "blobs", "blue_middle", "pinta", "named"), [
    ("7e", 5, 4, 7, 0.05, "e", "5e"),    # a blade thinned out of the count, red ornaments counted
    ("2e", 5, 5, 5, 0.03, "e", "5e"),
    ("7b", 5, 4, 9, 0.06, "e", "5e"),    # the bank's suit is not asked: the pinta's is
    ("7e", 7, 6, 7, 0.12, "e", "7e"),
    ("4e", 5, 4, 6, 0.0, "e", None),     # a 4 with a stray gold blob: no blade across the middle
    ("7e", 7, 6, 7, 0.006, "e", None),   # a 6 with a hilt in two: no blade across the middle
    ("7e", 5, 6, 6, 0.06, "e", None),    # six blades: a 7 with two hilts lost
    ("7e", 6, 6, 6, 0.06, "e", None),    # an even count: a 6 has no blade across
    ("3e", 5, 4, 4, 0.13, "e", None),    # the naipes-libres 3, its guards in pieces
    ("7e", 5, 4, 7, 0.05, None, None),   # no pinta read
    ("10e", 5, 4, 7, 0.05, "e", None),   # a figure guessed
])
def test_odd_hilts_and_a_blade_across_the_middle_name_the_five_or_seven_of_swords(
        guess: str, hilts: int, blades: int, blobs: int, blue_middle: float, pinta: str | None,
        named: str | None) -> None:
    counts = {"ink": blobs, "red": 3, "yellow": hilts, "green": 0, "blue": blades}
    cues = Cues(Pips(counts, {}, 0.05, middle_blue=blue_middle), Suit(pinta) if pinta else None,
                both_ends=True)
    assert hilts_across(Card.parse(guess), cues) == (Card.parse(named) if named else None)


@pytest.mark.parametrize("deck_name", ["wikimedia", "fournier"])
def test_hilts_and_a_blade_across_name_only_the_five_and_seven_of_swords_among_the_faces(
        deck_name: str, request: pytest.FixtureRequest) -> None:
    """On both decks' faces, sharp and blurred, guessed a 2: each 5 and 7 of espadas whose hilts
    count it is named, and no other card (the 4s and 6s hold no blue in the middle, the 3s count
    other hilts)."""
    deck: dict[Card, Face] = request.getfixturevalue(deck_name)
    named: dict[str, set[str]] = {}
    for card, face in deck.items():
        for image in (flat(face), cv2.GaussianBlur(flat(face), (5, 5), 0)):
            found = hilts_across(Card(2, Suit.ESPADAS), read_cues(image))
            if found is not None:
                named.setdefault(str(card), set()).add(str(found))
    assert named.get("5e") == {"5e"}
    assert all(card == found for card, cards in named.items() for found in cards), named
    assert set(named) <= {"5e", "7e"}


def test_an_unsure_bank_neighbour_on_a_seven_or_six_of_swords_is_counted(
        recognizer: Recognizer, wikimedia: dict[Card, Face]) -> None:
    """A close guess the bank is not sure of, of the rank next to the card's: the swords'
    hilts and blades count the card (``layout_cues.swords_counted``)."""
    six, seven = Card(6, Suit.ESPADAS), Card(7, Suit.ESPADAS)
    assert confirmed(recognizer, wikimedia[seven], six, 0.3) == seven
    assert confirmed(recognizer, wikimedia[six], seven, 0.3) == six


def middle_cues(middle: float, counts: dict[str, int], pinta: Suit | None) -> Cues:
    full = {"ink": 0, "red": 0, "yellow": 0, "green": 0, "blue": 0} | counts
    return Cues(Pips(full, {}, middle), pinta, both_ends=True)


@pytest.mark.parametrize(("guess", "ink", "middle", "pinta", "named"), [
    ("4c", 5, 0.10, "c", "4c"),   # four cups and the maker's name between them
    ("4o", 5, 0.05, "o", "4o"),
    ("4c", 5, 0.30, "c", None),   # a cup in the middle: a 5
    ("4c", 6, 0.10, "c", None),   # six blobs
    ("4c", 5, 0.10, "o", None),   # the pinta reads another suit
    ("4e", 5, 0.00, "e", None),   # a sword's hilt comes apart from its blade: no witness
    ("5c", 5, 0.10, "c", None),   # only the bank's 4 is read so
])
def test_a_four_whose_fifth_blob_lies_off_the_middle_is_a_four(
        guess: str, ink: int, middle: float, pinta: str, named: str | None) -> None:
    cues = middle_cues(middle, {"ink": ink}, Suit(pinta))
    assert four_with_print(Card.parse(guess), cues) == (Card.parse(named) if named else None)


@pytest.mark.parametrize("deck_name", ["wikimedia", "fournier"])
def test_no_face_of_copas_or_oros_is_named_a_four_by_its_bare_middle(
        deck_name: str, request: pytest.FixtureRequest) -> None:
    """Guessed a 4 of its suit, no face is named the 4 by five blobs around a bare middle: the 5s
    hold their fifth pip in the middle, and the faces' 4s count four (the 1878 name, sharp, is
    smaller than a cup)."""
    deck: dict[Card, Face] = request.getfixturevalue(deck_name)
    named = [str(card) for card, face in deck.items() if card.suit in (Suit.COPAS, Suit.OROS)
             and four_with_print(Card(4, card.suit), cues_of(face)) is not None]
    assert not named


@pytest.mark.parametrize(("best", "middle", "swords", "pinta", "named"), [
    ("6e 7e", 0.0, 6, "e", "6e"),    # no sword across the middle, six swords
    ("7e 6e", 0.005, 7, "e", "6e"),
    ("6e 7e", 0.0, 4, "e", None),    # a 4 leaves the middle bare too
    ("6e 7e", 0.022, 7, "e", None),  # a thin sword across: a 5 or a 7, not told by the middle
    ("6e 7e", 0.0, 6, None, None),   # no pinta read
    ("6e 5e", 0.0, 6, "e", None),    # not the bank's 6 and 7
    ("6c 7c", 0.0, 6, "c", None),    # copas: the middle tells no 6 from a 7
])
def test_a_bare_middle_tells_the_six_of_swords_from_the_seven(
        best: str, middle: float, swords: int, pinta: str | None, named: str | None) -> None:
    guess, second = (Card.parse(c) for c in best.split())
    cues = middle_cues(middle, {"blue": swords, "yellow": swords}, Suit(pinta) if pinta else None)
    assert six_of_swords(guess, second, cues) == (Card.parse(named) if named else None)


@pytest.mark.parametrize("deck_name", ["wikimedia", "fournier"])
def test_the_bare_middle_names_only_the_six_of_swords_among_the_faces(
        deck_name: str, request: pytest.FixtureRequest) -> None:
    """On both decks' faces, with the bank's two best the 6 and the 7 of espadas: the 6 is named,
    and no other card (the naipes-libres 4 of espadas, its middle bare, has four swords)."""
    deck: dict[Card, Face] = request.getfixturevalue(deck_name)
    six, seven = Card(6, Suit.ESPADAS), Card(7, Suit.ESPADAS)
    named = {card: six_of_swords(six, seven, cues_of(face)) for card, face in deck.items()}
    assert {str(c): str(n) for c, n in named.items() if n is not None} == {"6e": "6e"}


PIP_CARDS = [Card(rank, suit) for rank in range(2, 8) for suit in Suit]


@pytest.mark.parametrize("deck_name", ["wikimedia", "fournier"])
def test_a_far_guess_is_named_a_four_only_on_a_four(deck_name: str, recognizer: Recognizer,
                                                  request: pytest.FixtureRequest) -> None:
    """Far from the bank (similarity 0.4), whatever 2-7 it guessed (here a 2 of the card's suit
    and the 3 of another), a card is named a 4 by its four pips, a sure pinta of breaks and a
    bare middle (``layout_cues.far_four``) only when it is one; the 1878 4 of bastos, which a
    naipes-libres bank takes for a 2 or a 3, and both decks' 4s of espadas are."""
    deck: dict[Card, Face] = request.getfixturevalue(deck_name)
    named: dict[Card, set[Card | None]] = {}
    for card in PIP_CARDS:
        other = next(s for s in Suit if s != card.suit)
        named[card] = {confirmed(recognizer, deck[card], guess, 0.0, similarity=0.4)
                       for guess in (Card(2, card.suit), Card(3, other))}
    fours = {str(c): sorted(map(str, n - {None})) for c, n in named.items()
             if any(n_ is not None and n_.rank == 4 for n_ in n)}
    assert all(c.startswith("4") and n == [c] for c, n in fours.items()), fours
    assert "4e" in fours
    if deck_name == "fournier":
        assert "4b" in fours


@pytest.mark.parametrize(("best", "pinta", "both", "own_colour", "named"), [
    ("6e 6b", "e", True, 5, "6e"),    # the bank's rank twice, the pinta picks its suit ...
    ("4e 4b", "b", True, 0, "4b"),    # ... whichever of the two (bastos: no one colour)
    ("6c 6o", "c", True, 6, "6c"),
    ("6c 6o", "c", False, 6, None),   # copas at one end: not sure
    ("4e 4b", "e", False, 3, "4e"),   # espadas at one end: sure
    ("2o 2c", "o", True, 2, None),    # oros has no break to read: a hidden line reads so too
    ("2b 2e", "e", True, 0, None),    # espadas without a blade of blue
    ("4e 4b", "c", True, 4, None),    # the pinta reads neither suit of the two
    ("6e 7e", "e", True, 6, None),    # two ranks: the bank's rank not twice
    ("10e 10b", "e", True, 1, None),  # figures are read apart
    ("1e 1b", "e", True, 1, None),    # an ace has no rank to be sure of
])
def test_the_bank_rank_twice_and_a_sure_pinta_name_a_pip_card(
        best: str, pinta: str, both: bool, own_colour: int, named: str | None) -> None:
    guess, second = (Card.parse(c) for c in best.split())
    suit = Suit(pinta)
    counts = {"ink": 4} | ({SUIT_HUE[suit]: own_colour} if suit in SUIT_HUE else {})
    cues = Cues(Pips(counts, {}, 0.0), suit, both_ends=both)
    assert pinta_of_two(guess, second, cues) == (Card.parse(named) if named else None)


@pytest.mark.parametrize("deck_name", ["wikimedia", "fournier"])
def test_the_bank_rank_twice_names_no_face_wrongly(deck_name: str,
                                                    request: pytest.FixtureRequest) -> None:
    """On both decks' faces, each 2-7 with the bank's two best its own rank in its suit and in
    another: named the card itself where its pinta is sure, never another card."""
    deck: dict[Card, Face] = request.getfixturevalue(deck_name)
    named = {}
    for card in PIP_CARDS:
        cues = cues_of(deck[card])
        for other in (s for s in Suit if s != card.suit):
            named[(card, other)] = pinta_of_two(Card(card.rank, other), card, cues)
    assert not {f"{c}/{o.value}": str(n) for (c, o), n in named.items() if n not in (None, c)}
    assert sum(n == c for (c, _), n in named.items()) >= 0.6 * len(named)
