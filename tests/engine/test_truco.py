"""Truco, retruco, vale cuatro: values, who may raise, raising in answer, and the envido first."""

from __future__ import annotations

import pytest
from engine_steps import new_game, refused, score, step, steps

from engine import Game

T, RT, V4 = "truco", "retruco", "vale cuatro"

# calls in order (A1 and B1 take turns, each raise accepting the previous level) -> value
# accepted, value refused.
CHAINS = [((T,), 2, 1), ((T, RT), 3, 2), ((T, RT, V4), 4, 3)]


def call_chain(game: Game, calls: tuple[str, ...]) -> tuple[str, str]:
    """A1 and B1 alternate; returns (caller of the last call, the seat that answers it)."""
    seats = ("A1", "B1")
    for i, call in enumerate(calls):
        step(game, f"{seats[i % 2]}: {call}")
    return seats[(len(calls) - 1) % 2], seats[len(calls) % 2]


@pytest.mark.parametrize(("calls", "accepted", "_"), CHAINS)
def test_accepted_truco_is_worth_its_level(calls: tuple[str, ...], accepted: int, _: int) -> None:
    game = new_game()
    answerer = call_chain(game, calls)[1]
    step(game, f"{answerer}: quiero", expect=(0, 0))
    assert game.hand is not None and game.hand.truco_value() == accepted
    steps(game, "A1 plays 1e", "B1 plays 4c", "A1 plays 1b", "B1 plays 5c", expect=(accepted, 0))


@pytest.mark.parametrize(("calls", "accepted", "_"), CHAINS)
def test_accepted_truco_lost_with_the_cards(calls: tuple[str, ...], accepted: int, _: int) -> None:
    game = new_game()
    answerer = call_chain(game, calls)[1]
    step(game, f"{answerer}: quiero")
    steps(game, "A1 plays 4c", "B1 plays 1e", "B1 plays 1b", "A1 plays 5c", expect=(0, accepted))


@pytest.mark.parametrize(("calls", "_", "refused_value"), CHAINS)
def test_refused_truco_gives_one_less_to_the_caller(calls: tuple[str, ...], _: int,
                                                   refused_value: int) -> None:
    game = new_game()
    caller, answerer = call_chain(game, calls)
    step(game, f"{answerer}: no quiero")
    expected = (refused_value, 0) if caller == "A1" else (0, refused_value)
    assert score(game) == expected
    assert game.hand is not None and game.hand.over


def test_without_truco_the_hand_is_worth_one() -> None:
    game = new_game()
    steps(game, "A1 plays 3e", "B1 plays 4c", "A1 plays 3b", "B1 plays 5c", expect=(1, 0))


def test_only_the_team_that_accepted_last_may_raise() -> None:
    game = new_game(players=4)
    steps(game, "A1: truco", "B2: quiero")
    refused(game, "A1: retruco", "solo puede subir B, que quiso el último")
    refused(game, "A2: retruco", "solo puede subir B, que quiso el último")
    step(game, "B1: retruco")
    refused(game, "B2: vale cuatro", "B ya cantó, falta la respuesta de A")
    step(game, "A2: quiero")
    refused(game, "B1: vale cuatro", "solo puede subir A, que quiso el último")
    step(game, "A1: vale cuatro")
    steps(game, "B2: quiero")
    refused(game, "B1: vale cuatro", "ya se quiso el vale cuatro")
    step(game, "hand B", expect=(0, 4))


def test_raises_follow_the_ladder() -> None:
    game = new_game()
    refused(game, "A1: retruco", "primero va el truco")
    refused(game, "A1: vale cuatro", "primero va el truco")
    step(game, "A1: truco")
    refused(game, "B1: vale cuatro", "al truco se contesta quiero, no quiero o retruco")
    refused(game, "B1: truco", "al truco se contesta")
    step(game, "B1: quiero")
    refused(game, "B1: truco", "ya se quiso el truco")


def test_quiero_retruco_and_plain_retruco_both_accept_the_truco() -> None:
    spoken = new_game()
    steps(spoken, "A1: truco", "B1: quiero", "B1: retruco", "A1: no quiero", expect=(0, 2))
    plain = new_game()
    steps(plain, "A1: truco", "B1: retruco", "A1: no quiero", expect=(0, 2))
    assert spoken.hand is not None and plain.hand is not None
    assert spoken.hand.points == plain.hand.points


def test_raise_in_answer_makes_the_raiser_the_holder() -> None:
    game = new_game()
    steps(game, "A1: truco", "B1: retruco")
    assert game.hand is not None
    assert (game.hand.truco_level, game.hand.truco_holder) == (2, "B")
    step(game, "A1: vale cuatro")                   # A answers the retruco by raising
    assert (game.hand.truco_level, game.hand.truco_holder) == (3, "A")
    step(game, "B1: quiero")
    step(game, "hand A", expect=(4, 0))


def test_truco_may_be_called_in_any_round() -> None:
    game = new_game()
    steps(game, "A1 plays 3e", "B1 plays 4c")
    steps(game, "A1: truco", "B1: quiero")
    steps(game, "A1 plays 4o", "B1 plays 1e")
    steps(game, "B1: retruco", "A1: no quiero", expect=(0, 2))


def test_the_envido_is_first() -> None:
    game = new_game()
    step(game, "A1: truco")
    step(game, "B1: envido")                        # the truco stays pending
    refused(game, "B1: quiero", "contesta A")       # quiero now answers the envido
    step(game, "A1: real envido")
    step(game, "B1: quiero")
    refused(game, "B1: quiero", "primero se dicen los tantos")
    steps(game, "A1: 30", "B1: 31", expect=(0, 5))
    refused(game, "A1 plays 4c", "B tiene que contestar el truco")
    step(game, "B1: quiero")
    assert game.hand is not None and game.hand.truco_value() == 2
    step(game, "hand A", expect=(2, 5))


def test_the_envido_is_first_refused_envido() -> None:
    game = new_game()
    steps(game, "A1: truco", "B1: envido", "A1: no quiero", expect=(0, 1))
    step(game, "B1: no quiero", expect=(1, 1))


def test_only_the_challenged_team_may_put_the_envido_first() -> None:
    game = new_game(players=4)
    step(game, "A1: truco")
    refused(game, "A2: envido", "A cantó el truco: el envido está primero solo para B")
    refused(game, "A1: envido", "A cantó el truco: el envido está primero solo para B")
    step(game, "B1: envido")


def test_no_envido_after_the_truco_is_accepted() -> None:
    game = new_game()
    steps(game, "A1: truco", "B1: quiero")
    refused(game, "B1: envido", "el truco ya fue querido")
    refused(game, "A1: envido", "el truco ya fue querido")


def test_no_envido_while_a_retruco_is_pending() -> None:
    game = new_game()
    steps(game, "A1: truco", "B1: retruco")
    refused(game, "A1: envido", "el truco ya fue querido")


def test_no_truco_while_the_envido_waits() -> None:
    game = new_game()
    step(game, "A1: envido")
    refused(game, "B1: truco", "B tiene que contestar el envido")
    step(game, "B1: quiero")
    refused(game, "B1: truco", "faltan los tantos del envido")


def test_quiero_with_nothing_pending() -> None:
    game = new_game()
    refused(game, "B1: quiero", "no hay nada cantado para contestar")
    refused(game, "B1: no quiero", "no hay nada cantado para contestar")
    step(game, "A1: truco")
    refused(game, "A1: quiero", "contesta B, no A")
