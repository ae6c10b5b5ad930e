"""The deck and the truco ranking: every pair of steps of the ranking line, in a played round."""

from __future__ import annotations

import itertools

import pytest
from engine_steps import new_game, step

from engine import DECK, Card, Suit
from engine.cards import InvalidCard, flor_value, parse_cards
from engine.rounds import round_winner
from referee.replay import replay

# The ranking as issue and rule texts state it, from the highest; cards on one step tie.
RANKING_LINE: list[list[str]] = [
    ["1e"], ["1b"], ["7e"], ["7o"],
    ["3e", "3b", "3o", "3c"],
    ["2e", "2b", "2o", "2c"],
    ["1c", "1o"],
    ["12e", "12b", "12o", "12c"],
    ["11e", "11b", "11o", "11c"],
    ["10e", "10b", "10o", "10c"],
    ["7c", "7b"],
    ["6e", "6b", "6o", "6c"],
    ["5e", "5b", "5o", "5c"],
    ["4e", "4b", "4o", "4c"],
]


def test_the_ranking_line_is_the_whole_deck() -> None:
    listed = [Card.parse(c) for step_ in RANKING_LINE for c in step_]
    assert sorted(map(str, listed)) == sorted(map(str, DECK))
    assert len(set(DECK)) == 40


@pytest.mark.parametrize(("higher", "lower"), [
    (RANKING_LINE[i], RANKING_LINE[j])
    for i, j in itertools.combinations(range(len(RANKING_LINE)), 2)])
def test_higher_step_wins_the_round_whoever_plays_first(higher: list[str],
                                                         lower: list[str]) -> None:
    for hi, lo in itertools.product(map(Card.parse, higher), map(Card.parse, lower)):
        assert hi.power > lo.power
        assert round_winner([("A1", hi), ("B1", lo)]) == ("A", "A1")
        assert round_winner([("A1", lo), ("B1", hi)]) == ("B", "B1")


@pytest.mark.parametrize("same_step", [s for s in RANKING_LINE if len(s) > 1])
def test_cards_on_one_step_tie(same_step: list[str]) -> None:
    for a, b in itertools.combinations(same_step, 2):
        assert round_winner([("A1", Card.parse(a)), ("B1", Card.parse(b))]) == ("parda", None)


def test_ranking_in_a_played_hand() -> None:
    game = new_game()
    step(game, "A1 plays 7o")
    step(game, "B1 plays 7e")       # 7 espadas beats 7 oros
    assert game.hand is not None and game.hand.rounds[0].result == "B"
    step(game, "B1 plays 1o")
    step(game, "A1 plays 2c")       # a 2 beats the false ace
    step(game, "A1 plays 12c")
    step(game, "B1 plays 7c", expect=(1, 0))  # a figure beats a false seven: A wins 2 of 3


@pytest.mark.parametrize(("text", "rank", "suit"), [
    ("7o", 7, "o"), ("12b", 12, "b"), ("1e", 1, "e"), ("10c", 10, "c"), ("07-oros", 7, "o")])
def test_card_parse_and_str(text: str, rank: int, suit: str) -> None:
    card = Card.parse(text)
    assert (card.rank, card.suit.value) == (rank, suit)
    assert Card.parse(str(card)) == card


@pytest.mark.parametrize("text", ["8o", "9e", "13b", "7x", "", "o7"])
def test_not_a_card(text: str) -> None:
    with pytest.raises(InvalidCard):
        Card.parse(text)


def test_a_card_not_in_the_deck_cannot_be_made() -> None:
    for rank in (0, 8, 9, 13):
        with pytest.raises(InvalidCard, match="el mazo español tiene 1-7, 10, 11 y 12"):
            Card(rank, Suit.OROS)


# -- Messages a player reads: in Spanish, naming the card ------------------------------------


@pytest.mark.parametrize(("texts", "said"), [
    (["7o", "7o"], "la carta 7o está repetida"),          # before: «repeated card in 7o 7o»
    (["7o", "1o", "7O"], "la carta 7o está repetida"),
    (["7o", "7o", "7o"], "la carta 7o está repetida"),
    (["7o", "1e", "7o", "1e"], "las cartas 7o y 1e están repetidas"),
    (["7o", "1e", "3c", "7o", "1e", "3c"], "las cartas 7o, 1e y 3c están repetidas"),
])
def test_a_repeated_card_is_named_in_spanish(texts: list[str], said: str) -> None:
    with pytest.raises(InvalidCard) as refused:
        parse_cards(texts)
    assert str(refused.value) == said


def test_a_text_that_is_not_a_card_is_named_in_spanish() -> None:
    with pytest.raises(InvalidCard) as refused:
        Card.parse(" 7x ")
    assert str(refused.value) == ("«7x» no es una carta: se escribe el número y la letra del palo, "
                                  "p. ej. 7o, 1e, 12b")


@pytest.mark.parametrize(("cards", "said"), [
    ("7o 1o 3e", "no hay flor en 7o, 1o y 3e"),           # before: «no flor in 7o 1o 3e»
    ("7o 1o", "no hay flor en 7o y 1o"),
    ("", "no hay flor en una mano sin cartas"),
])
def test_no_flor_is_said_in_spanish(cards: str, said: str) -> None:
    with pytest.raises(InvalidCard) as refused:
        flor_value(parse_cards(cards.split()))
    assert str(refused.value) == f"{said}: la flor son tres cartas del mismo palo"


def test_a_refused_card_keeps_its_type_for_the_log_reader() -> None:
    assert issubclass(InvalidCard, ValueError)
    rejected = replay(["hand", "A1 shows 7o 7o", "A1 plays 9e"]).to_dict()["rejected"]
    assert [r["reason"] for r in rejected] == [
        "«A1 shows 7o 7o»: la carta 7o está repetida",
        "«A1 plays 9e»: no hay cartas de 9: el mazo español tiene 1-7, 10, 11 y 12"]
