"""Envido and flor values of a hand of three cards."""

from __future__ import annotations

import itertools

import pytest

from engine import DECK, envido_value, flor_value, has_flor, parse_cards
from engine.cards import InvalidCard, is_possible_envido

ENVIDO = [
    ("7o 6o 1e", 33),      # 20 + 7 + 6: the best
    ("7e 5e 12b", 32),
    ("1c 12c 4b", 21),      # a figure counts 0
    ("12c 11c 3b", 20),     # two figures of one suit
    ("10b 11b 12e", 20),
    ("7o 6b 5c", 7),        # no pair: the highest single value
    ("12o 11b 1e", 1),
    ("12o 11b 10e", 0),     # no pair and only figures
    ("4e 3b 2c", 4),
    ("7o 6o 5o", 33),       # three of a suit with flor off: the best two
    ("7o 12o 11o", 27),
    ("1c 2c 3c", 25),
    ("10e 11e 12e", 20),
]

FLOR = [("7o 6o 5o", 38), ("1c 2c 3c", 26), ("10e 11e 12e", 20), ("7b 12b 4b", 31)]


@pytest.mark.parametrize(("cards", "value"), ENVIDO)
def test_envido_value(cards: str, value: int) -> None:
    assert envido_value(parse_cards(cards.split())) == value


@pytest.mark.parametrize(("cards", "value"), FLOR)
def test_flor_value(cards: str, value: int) -> None:
    hand = parse_cards(cards.split())
    assert has_flor(hand)
    assert flor_value(hand) == value


@pytest.mark.parametrize("cards", ["7o 6o 5e", "1e 1b 1c"])
def test_no_flor_without_three_of_a_suit(cards: str) -> None:
    hand = parse_cards(cards.split())
    assert not has_flor(hand)
    with pytest.raises(InvalidCard):
        flor_value(hand)


def test_maximum_envido_is_33_and_maximum_flor_is_38() -> None:
    hands = list(itertools.combinations(DECK, 3))
    assert max(envido_value(h) for h in hands) == 33
    assert max(flor_value(h) for h in hands if has_flor(h)) == 38
    assert min(flor_value(h) for h in hands if has_flor(h)) == 20


@pytest.mark.parametrize(("points", "flor", "possible"), [
    (0, False, True), (7, False, True), (8, False, False), (19, False, False),
    (20, False, True), (33, False, True), (34, False, False), (38, True, True),
    (39, True, False), (7, True, False), (20, True, True)])
def test_possible_declared_numbers(points: int, flor: bool, possible: bool) -> None:
    assert is_possible_envido(points, flor) is possible
