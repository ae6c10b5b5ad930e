"""Rounds and pardas: who wins the hand from its rounds, turn order, and partners' ties."""

from __future__ import annotations

import itertools

import pytest
from engine_steps import new_game, refused, step, steps

from engine import Game
from engine.rounds import hand_winner

P = "parda"

# Every way a hand can end (round results in order) -> the hand's winner ("mano" = mano's team).
# Any shorter prefix of these leaves the hand open.
ENDINGS: list[tuple[tuple[str, ...], str]] = [
    (("A", "A"), "A"),
    (("A", "B", "A"), "A"),
    (("A", "B", "B"), "B"),
    (("A", "B", P), "A"),       # a parda after a decided first round: the first round's winner
    (("A", P), "A"),
    (("B", "B"), "B"),
    (("B", "A", "B"), "B"),
    (("B", "A", "A"), "A"),
    (("B", "A", P), "B"),
    (("B", P), "B"),
    ((P, "A"), "A"),            # a first-round parda: the next decided round decides
    ((P, "B"), "B"),
    ((P, P, "A"), "A"),
    ((P, P, "B"), "B"),
    ((P, P, P), "mano"),        # three pardas: mano's team
]
OPEN = [("A",), ("B",), (P,), ("A", "B"), ("B", "A"), (P, P)]


def test_the_table_lists_every_combination() -> None:
    """Each sequence of 1-3 results is an ending, still open, or past an ending (cannot happen)."""
    endings = {rounds for rounds, _ in ENDINGS}
    for n in (1, 2, 3):
        for rounds in itertools.product(("A", "B", P), repeat=n):
            past_an_end = any(rounds[:k] in endings for k in range(1, n))
            assert (rounds in endings) + (rounds in OPEN) + past_an_end == 1, rounds


@pytest.mark.parametrize(("rounds", "winner"), ENDINGS)
@pytest.mark.parametrize("mano", ["A", "B"])
def test_hand_winner_table(rounds: tuple[str, ...], winner: str, mano: str) -> None:
    expected = mano if winner == "mano" else winner
    for n in range(1, len(rounds)):
        assert hand_winner(list(rounds[:n]), mano) is None  # type: ignore[arg-type]
    assert hand_winner(list(rounds), mano) == expected  # type: ignore[arg-type]


def second_hand(game: Game) -> None:
    """Move mano to B1: the first hand goes to A by a reported result."""
    steps(game, "hand A", "hand", expect=(1, 0))


@pytest.mark.parametrize(("rounds", "winner"), ENDINGS)
@pytest.mark.parametrize("mano", ["A", "B"])
def test_reported_rounds(rounds: tuple[str, ...], winner: str, mano: str) -> None:
    game = new_game()
    if mano == "B":
        second_hand(game)
    before = dict(game.score)
    for result in rounds:
        assert game.hand is not None and not game.hand.over
        step(game, f"round {result}")
    expected = mano if winner == "mano" else winner
    assert game.hand is not None and game.hand.over and game.hand.winner == expected
    assert game.score[expected] == before[expected] + 1
    refused(game, "round A", "la mano ya terminó")


# Cards for each round: A's card and B's card for a round won by A, by B, or a parda.
ROUND_CARDS = [
    {"A": ("3e", "4c"), "B": ("4e", "3c"), P: ("3o", "3b")},
    {"A": ("2e", "5c"), "B": ("5e", "2c"), P: ("2o", "2b")},
    {"A": ("12e", "6c"), "B": ("6e", "12c"), P: ("12o", "12b")},
]


@pytest.mark.parametrize(("rounds", "winner"), ENDINGS)
def test_played_rounds(rounds: tuple[str, ...], winner: str) -> None:
    """The same table with the cards seen: the winner of a round leads the next one, after a
    parda whoever led it leads again."""
    game = new_game()
    leader = "A1"
    for i, result in enumerate(rounds):
        a_card, b_card = ROUND_CARDS[i][result]
        cards = {"A1": a_card, "B1": b_card}
        follower = "B1" if leader == "A1" else "A1"
        refused(game, f"{follower} plays {cards[follower]}", f"le toca a {leader}")
        steps(game, f"{leader} plays {cards[leader]}", f"{follower} plays {cards[follower]}")
        leader = {"A": "A1", "B": "B1"}.get(result, leader)
    expected = "A" if winner == "mano" else winner
    assert game.hand is not None and game.hand.winner == expected
    assert game.score[expected] == 1
    refused(game, f"{leader} plays 7b", "la mano ya terminó")


def test_a_tie_between_partners_is_not_a_parda() -> None:
    game = new_game(players=4)
    steps(game, "A1 plays 3e", "B1 plays 4c", "A2 plays 3o", "B2 plays 5c")
    assert game.hand is not None and game.hand.rounds[0].result == "A"
    refused(game, "A2 plays 6c", "le toca a A1")     # the first of the tied partners leads
    step(game, "A1 plays 6c")


def test_a_tie_between_rivals_is_a_parda_with_four_players() -> None:
    game = new_game(players=4)
    steps(game, "A1 plays 4c", "B1 plays 3e", "A2 plays 3o", "B2 plays 5c")
    assert game.hand is not None and game.hand.rounds[0].result == P


def test_a_tie_between_partners_with_six_players() -> None:
    game = new_game(players=6)
    steps(game, "A1 plays 4c", "B1 plays 2e", "A2 plays 5c", "B2 plays 6c", "A3 plays 7c",
          "B3 plays 2o")
    assert game.hand is not None and game.hand.rounds[0].result == "B"


def test_turn_order_around_the_table() -> None:
    game = new_game(players=4)
    refused(game, "B1 plays 4c", "le toca a A1")
    step(game, "A1 plays 4c")
    refused(game, "A2 plays 5c", "le toca a B1")
    refused(game, "A1 plays 5c", "ya jugó en esta vuelta")
    steps(game, "B1 plays 5c", "A2 plays 6c")
    refused(game, "B2 plays 6c", "esa carta ya está en la mesa")
    step(game, "B2 plays 7c")
    assert game.hand is not None and game.hand.turn() == "B2"


def test_mixed_reported_and_played_rounds() -> None:
    game = new_game()
    step(game, "round B")
    assert game.hand is not None and game.hand.turn() == "B1"
    steps(game, "B1 plays 4c", "A1 plays 3e")
    step(game, "round parda", expect=(0, 1))          # A, B won one each: parda -> B, the first


def test_hand_result_reported() -> None:
    game = new_game()
    steps(game, "A1 plays 4c", "B1 plays 3e")
    step(game, "hand A", expect=(1, 0))
    refused(game, "hand B", "la mano ya terminó")
