"""Envido betting: every legal chain accepted and refused, illegal orders, and when it may be sung."""

from __future__ import annotations

import pytest
from engine_steps import new_game, refused, step, steps

from engine import Game

E, R, F = "envido", "real envido", "falta envido"

# chain -> (points if accepted, points if refused); falta at A 10, B 20 with the leader formula
# is what the leader (B) needs: 10.
CHAINS: list[tuple[tuple[str, ...], int, int]] = [
    ((E,), 2, 1),
    ((R,), 3, 1),
    ((F,), 10, 1),
    ((E, E), 4, 2),
    ((E, R), 5, 2),
    ((E, F), 10, 2),
    ((R, F), 10, 3),
    ((E, E, R), 7, 4),
    ((E, E, F), 10, 4),
    ((E, R, F), 10, 5),
    ((E, E, R, F), 10, 7),
]


def sing_chain(game: Game, chain: tuple[str, ...]) -> str:
    """A1 and B1 take turns raising; returns the seat that answers the last call."""
    seats = ("A1", "B1")
    for i, call in enumerate(chain):
        step(game, f"{seats[i % 2]}: {call}")
    return seats[len(chain) % 2]


def game_at_10_20() -> Game:
    game = new_game(hand=False)
    steps(game, "points A 10", "points B 20", "hand", expect=(10, 20))
    return game


@pytest.mark.parametrize(("chain", "accepted", "_"), CHAINS)
def test_chain_accepted_goes_to_the_better_envido(chain: tuple[str, ...], accepted: int,
                                                  _: int) -> None:
    game = game_at_10_20()
    answerer = sing_chain(game, chain)
    step(game, f"{answerer}: quiero", expect=(10, 20))
    step(game, "A1: 27")                          # mano declares first
    step(game, "B1: 31", expect=(10, 20 + accepted))
    assert game.hand is not None and game.hand.envido_status == "decided"


@pytest.mark.parametrize(("chain", "accepted", "_"), CHAINS)
def test_chain_accepted_mano_wins_with_son_buenas(chain: tuple[str, ...], accepted: int,
                                                  _: int) -> None:
    game = game_at_10_20()
    answerer = sing_chain(game, chain)
    step(game, f"{answerer}: quiero")
    step(game, "A1: 33")
    step(game, "B1: son buenas", expect=(10 + accepted, 20))


@pytest.mark.parametrize(("chain", "_", "refused_value"), CHAINS)
def test_chain_refused_goes_to_the_last_caller(chain: tuple[str, ...], _: int,
                                               refused_value: int) -> None:
    game = game_at_10_20()
    answerer = sing_chain(game, chain)
    caller_team = "B" if answerer == "A1" else "A"
    step(game, f"{answerer}: no quiero")
    expected = (10 + refused_value, 20) if caller_team == "A" else (10, 20 + refused_value)
    assert (game.score["A"], game.score["B"]) == expected
    step(game, "A1 plays 4c")  # the hand goes on without declarations


ILLEGAL_ORDERS: list[tuple[tuple[str, ...], str]] = [
    ((R, E), "no se puede cantar después de real envido"),
    ((R, R), "no se puede cantar después de real envido"),
    ((F, E), "después de falta envido"),
    ((F, R), "después de falta envido"),
    ((F, F), "después de falta envido"),
    ((E, E, E), "después de envido envido"),
    ((E, R, E), "después de envido real envido"),
    ((E, R, R), "después de envido real envido"),
    ((E, E, R, E), "después de envido envido real envido"),
    ((E, E, R, R), "después de envido envido real envido"),
    ((E, R, F, E), "después de envido real envido falta envido"),
    ((E, E, R, F, F), "después de envido envido real envido falta envido"),
]


@pytest.mark.parametrize(("chain", "reason"), ILLEGAL_ORDERS)
def test_illegal_order_is_refused(chain: tuple[str, ...], reason: str) -> None:
    game = new_game()
    sing_chain(game, chain[:-1])
    seat = ("A1", "B1")[(len(chain) - 1) % 2]
    refused(game, f"{seat}: {chain[-1]}", reason)


def test_a_team_cannot_raise_its_own_envido() -> None:
    game = new_game(players=4)
    step(game, "A1: envido")
    refused(game, "A2: real envido", "A ya cantó, contesta B")
    refused(game, "A1: quiero", "contesta B")
    step(game, "B2: real envido")
    step(game, "A2: quiero")


def test_envido_only_in_the_first_round() -> None:
    game = new_game()
    steps(game, "A1 plays 4c", "B1 plays 5c")
    refused(game, "B1: envido", "solo en la primera vuelta")
    refused(game, "A1: real envido", "solo en la primera vuelta")


def test_envido_only_before_the_callers_first_card() -> None:
    game = new_game()
    step(game, "A1 plays 4c")
    refused(game, "A1: envido", "ya jugó su primera carta")
    refused(game, "A1: real envido", "ya jugó su primera carta")
    step(game, "B1: envido")                       # B1 has not played yet
    step(game, "A1: quiero")                       # but answering is allowed
    steps(game, "A1: 25", "B1: 26", expect=(0, 2))
    step(game, "B1 plays 5c")


@pytest.mark.parametrize(("answer", "then", "points"), [
    ("real envido", ("B1: quiero", "A1: 25", "B1: 26"), (0, 5)),
    ("real envido", ("B1: no quiero",), (2, 0)),
    ("envido", ("B1: real envido", "A1: no quiero"), (0, 4)),
    ("falta envido", ("B1: no quiero",), (2, 0)),
])
def test_a_raise_in_answer_may_come_after_the_first_card(
        answer: str, then: tuple[str, ...], points: tuple[int, int]) -> None:
    """[IT]: the others answer an envido even after their first card, and a raise is an
    answer (rules.md §3); only starting the envido needs the seat's first card in hand."""
    game = new_game()
    steps(game, "A1 plays 4c", "B1: envido")
    step(game, f"A1: {answer}")
    steps(game, *then, expect=points)
    step(game, "B1 plays 5c")


def test_a_seat_that_played_raises_only_in_answer() -> None:
    game = new_game()
    steps(game, "A1 plays 4c", "B1: envido", "A1: real envido")
    refused(game, "A1: falta envido", "A ya cantó, contesta B")   # its own raise waits
    steps(game, "B1: falta envido", "A1: no quiero", expect=(0, 5))


def test_a_raise_after_the_first_card_answers_an_envido_called_against_a_truco() -> None:
    game = new_game()
    steps(game, "A1 plays 4c", "A1: truco", "B1: envido")   # the envido is first
    step(game, "A1: real envido")
    steps(game, "B1: quiero", "A1: 20", "B1: 33", expect=(0, 5))
    refused(game, "B1 plays 5c", "B tiene que contestar el truco")
    steps(game, "B1: quiero", "hand B", expect=(0, 7))


def test_partner_who_has_not_played_may_still_call() -> None:
    game = new_game(players=4)
    steps(game, "A1 plays 4c", "B1 plays 5c")
    refused(game, "B1: envido", "ya jugó su primera carta")
    step(game, "A2: envido")
    step(game, "B2: no quiero", expect=(1, 0))


def test_envido_once_per_hand() -> None:
    game = new_game()
    steps(game, "A1: envido", "B1: no quiero", expect=(1, 0))
    refused(game, "B1: envido", "el envido ya se jugó en esta mano")


def test_cards_wait_while_the_envido_is_pending_or_declared() -> None:
    game = new_game()
    step(game, "A1: envido")
    refused(game, "A1 plays 4c", "B tiene que contestar el envido")
    step(game, "B1: quiero")
    refused(game, "A1 plays 4c", "faltan los tantos del envido")
    steps(game, "A1: 20", "B1: 30", expect=(0, 2))
    step(game, "A1 plays 4c")


def test_with_four_a_seat_of_the_answering_team_raises_after_its_first_card() -> None:
    game = new_game(players=4)
    steps(game, "A1 plays 4c", "B1 plays 5c")
    refused(game, "B1: envido", "ya jugó su primera carta")   # B1 may not start it ...
    step(game, "A2: envido")                                  # A2 has not played
    step(game, "B1: real envido")                             # ... but may raise in answer
    refused(game, "B2: falta envido", "B ya cantó, contesta A")
    step(game, "A1: falta envido")                            # and so may A1
    steps(game, "B2: no quiero", expect=(5, 0))
    step(game, "A2 plays 6c")


def test_with_six_every_seat_has_played_but_the_caller_and_the_raises_go_on() -> None:
    game = new_game(players=6)
    steps(game, "A1 plays 4c", "B1 plays 5c", "A2 plays 6c", "B2 plays 7c", "A3 plays 4o")
    step(game, "B3: envido")                                  # the last seat, before its card
    steps(game, "A2: envido", "B1: real envido", "A3: falta envido")
    steps(game, "B2: no quiero", expect=(7, 0))
    step(game, "B3 plays 5o")


def test_in_a_pica_pica_duel_the_rival_raises_after_its_first_card() -> None:
    game = new_game(hand=False, players=6, pica_pica=True)
    steps(game, "points A 5", "hand")                         # duels: A1-B2, B1-A3, A2-B3
    steps(game, "A1 plays 4c", "A2 plays 6c", "B2: envido")
    refused(game, "A2: real envido", "ya jugó su primera carta")  # A2 is in another duel
    steps(game, "A1: real envido", "B2: no quiero", expect=(7, 0))
