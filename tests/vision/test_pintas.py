"""The pinta (breaks in the frame line) tells the suit on both decks, figures included."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from engine.cards import Card, Suit
from referee.vision.faces import Face
from referee.vision.features import neutral_paper, normalise
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


@pytest.mark.parametrize(("card", "ends"), [
    # His red robe fills a third of the card: balanced channel by channel, the paper came out
    # cyan (its red at 0.4) and the whole frame line read as colour over it; his crown comes
    # down to a row or two from the top line, not over it.
    ("12c", (Suit.COPAS, Suit.COPAS)),
    ("12b", (Suit.BASTOS, None)),  # his robe covers the bottom line
])
def test_a_reys_pinta_is_read_past_his_robe_and_crown(
        card: str, ends: tuple[Suit | None, Suit | None], wikimedia: dict[Card, Face]) -> None:
    assert read_pintas(flat(wikimedia[Card.parse(card)])) == ends


def test_the_paper_of_a_card_full_of_one_colour_is_balanced_grey(wikimedia: dict[Card, Face]) -> None:
    norm = neutral_paper(normalise(flat(wikimedia[Card.parse("12c")])))
    h, w = norm.shape[:2]
    paper = np.median(norm[int(0.3 * h):int(0.7 * h), int(0.02 * w):int(0.05 * w)].reshape(-1, 3), axis=0)
    assert paper.min() > 0.95 * paper.max() and paper.max() > 0.85, paper


def test_a_gap_longer_than_any_break_is_no_pinta() -> None:
    """A robe's hem over the middle of the line (the naipes-libres rey de espadas, seen at his
    feet) leaves a gap twice as long as copas' break: it is no break."""
    card = drawn(())
    w = card.shape[1]
    card[:, int(0.25 * w):int(0.75 * w)][np.abs(card[:, int(0.25 * w):int(0.75 * w)] - 60).max(axis=2) < 1] = 235
    assert read_pintas(drawn((0.5,))) == (Suit.COPAS, Suit.COPAS)
    assert read_pintas(card) == (None, None)


def crossed(card: np.ndarray, share: float, ends: tuple[bool, bool] = (True, True)) -> np.ndarray:
    """A red drawing (a hat, a crown) over the frame line at this share of its length, at the
    card's top end, its bottom end or both (the card turned: the bottom line read left to right
    from the other end)."""
    w, h = PIP_SIZE
    left, right = int(0.08 * w), int(0.92 * w)
    card = card.copy()
    for cross, y in zip(ends, (int(0.08 * h), h - 1 - int(0.08 * h))):
        if cross:
            x = left + int(share * (right - left)) if y < h / 2 else right - int(share * (right - left))
            cv2.circle(card, (x, y + 6 if y < h / 2 else y - 6), 12, (40, 40, 200), -1)
    return card


@pytest.mark.parametrize(("breaks", "suit"), [((0.21, 0.5, 0.79), Suit.BASTOS), ((0.3, 0.7), Suit.ESPADAS)])
def test_a_line_a_drawing_crosses_is_read_from_the_part_in_sight(
        breaks: tuple[float, ...], suit: Suit) -> None:
    """A drawing over bastos' middle break at both ends hides it; the two breaks in sight, at
    their places, are bastos' and no other suit's.  Over espadas' line, between its breaks, it
    hides no break."""
    assert read_pintas(crossed(drawn(breaks), 0.5)) == (suit, suit)
    assert read_pintas(crossed(drawn(breaks), 0.5, (True, False))) == (suit, suit)


def test_what_is_in_sight_of_one_line_alone_is_no_pinta() -> None:
    card = crossed(drawn((0.21, 0.5, 0.79)), 0.5)
    h = card.shape[0]
    card[h // 2:] = 235  # the other end blank: no line there
    assert read_pintas(card) == (None, None)


@pytest.mark.parametrize("breaks", [(0.5,), ()])
def test_a_drawing_over_the_only_place_tells_no_suit(breaks: tuple[float, ...]) -> None:
    """Copas' one break under a drawing looks like oros' line under it, and the other way."""
    assert read_pintas(crossed(drawn(breaks), 0.5)) == (None, None)
