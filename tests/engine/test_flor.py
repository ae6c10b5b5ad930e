"""Flor (setting on): when it is sung, what it cancels, its answers and their values."""

from __future__ import annotations

import pytest
from engine_steps import hand_points, new_game, refused, score, step, steps

FLOR_CALLS = ["flor", "contraflor", "contraflor al resto", "con flor quiero", "con flor me achico"]


@pytest.mark.parametrize("call", FLOR_CALLS)
def test_flor_off_refuses_every_flor_call(call: str) -> None:
    game = new_game()
    refused(game, f"A1: {call}", "se juega sin flor")


def test_unanswered_flor_is_three_when_the_first_round_ends() -> None:
    game = new_game(flor=True)
    step(game, "A1: flor", expect=(0, 0))
    steps(game, "A1 plays 4c", "B1 plays 5c", expect=(3, 0))
    assert hand_points(game, "flor") == (3, 0)


def test_unanswered_flor_closes_when_every_rival_has_played() -> None:
    game = new_game(flor=True, players=4)
    steps(game, "hand A", "hand")                   # mano B1: order B1 A2 B2 A1
    step(game, "A2: flor")
    steps(game, "B1 plays 4c", "A2 plays 5c", expect=(1, 0))
    step(game, "B2 plays 6c", expect=(4, 0))        # B1 and B2 have played; A1 has not
    assert game.hand is not None and game.hand.rounds[0].result is None


def test_flor_only_before_the_first_card() -> None:
    game = new_game(flor=True)
    step(game, "A1 plays 4c")
    refused(game, "A1: flor", "ya jugó su primera carta")
    step(game, "B1: flor")


def test_flor_only_in_the_first_round() -> None:
    game = new_game(flor=True, players=4)
    steps(game, "A1 plays 4c", "B1 plays 5c", "A2 plays 6c", "B2 plays 7c")
    refused(game, "B2: flor", "la flor se canta en la primera vuelta")


def test_flor_cancels_a_pending_envido() -> None:
    game = new_game(flor=True)
    step(game, "A1: envido")
    step(game, "B1: flor")
    assert game.hand is not None and game.hand.envido_status == "cancelled"
    refused(game, "B1: quiero", "a la flor no se le contesta quiero")  # not the envido
    refused(game, "A1: envido", "con flor no hay envido")
    steps(game, "A1 plays 4c", expect=(0, 3))       # every rival (A1) has played


def test_quiero_to_a_flor_says_what_answers_a_flor() -> None:
    game = new_game(flor=True)
    step(game, "A1: flor")
    assert refused(game, "B1: quiero", "a la flor") == (
        "B1: quiero: a la flor no se le contesta quiero: "
        "se contesta flor, contraflor, contraflor al resto o con flor me achico")
    refused(game, "B1: no quiero", "a la flor no se le contesta no quiero: se contesta flor,")
    game = new_game(flor=True)
    steps(game, "B1: truco", "A1: flor")
    step(game, "A1: quiero")          # a truco left waiting is still answered while the flor is open


@pytest.mark.parametrize("answer,then,points", [
    ("A1: flor", ("A1: 30", "B1: 31"), (0, 6)),
    ("A1: contraflor", ("B1: con flor quiero", "A1: 35", "B1: 31"), (6, 0)),
    ("A1: contraflor al resto", ("B1: con flor me achico",), (4, 0)),
])
def test_a_flor_that_cancelled_an_envido_is_answered_with_flor(
        answer: str, then: tuple[str, ...], points: tuple[int, int]) -> None:
    game = new_game(flor=True)
    steps(game, "A1: envido", "B1: flor", answer, *then, expect=points)


def test_an_envido_against_a_truco_is_answered_with_flor_by_the_truco_caller() -> None:
    game = new_game(flor=True)
    steps(game, "A1: truco", "B1: envido", "A1: flor")   # the flor cancels the envido ...
    assert game.hand is not None and game.hand.envido_status == "cancelled"
    steps(game, "B1: quiero", "hand A", expect=(5, 0))  # ... and the truco still waits


def test_no_flor_after_an_envido_is_accepted() -> None:
    game = new_game(flor=True)
    steps(game, "A1: envido", "B1: quiero")
    refused(game, "B1: flor", "el envido ya se jugó")


def test_flor_against_flor_the_better_takes_three_per_flor() -> None:
    game = new_game(flor=True)
    steps(game, "A1: flor", "B1: flor")
    refused(game, "A1 plays 4c", "faltan los tantos de la flor")
    refused(game, "B1: 30", "le toca decir a A1")
    steps(game, "A1: 35", "B1: 36", expect=(0, 6))


def test_flor_against_flor_son_buenas() -> None:
    game = new_game(flor=True)
    steps(game, "A1: flor", "B1: flor", "A1: 38", "B1: son buenas", expect=(6, 0))


def test_two_flors_of_one_team_are_three_each() -> None:
    game = new_game(flor=True, players=4)
    steps(game, "A1: flor", "A2: flor")
    steps(game, "A1 plays 4c", "B1 plays 5c", "A2 plays 6c", "B2 plays 7c", expect=(6, 0))


def test_contraflor_accepted_is_worth_contraflor_points() -> None:
    game = new_game(flor=True)
    steps(game, "A1: flor", "B1: contraflor")
    refused(game, "A1: quiero", "a la contraflor no se le contesta quiero: "
            "se contesta con flor quiero, con flor me achico o contraflor al resto")
    refused(game, "A1: contraflor", "a la contraflor se contesta con flor quiero")
    step(game, "A1: con flor quiero")
    steps(game, "A1: 30", "B1: 32", expect=(0, 6))


def test_contraflor_points_is_a_setting() -> None:
    game = new_game(flor=True, contraflor_points=4)
    steps(game, "A1: flor", "B1: contraflor", "A1: con flor quiero", "A1: 33", "B1: son buenas",
          expect=(4, 0))


def test_contraflor_refused_gives_the_raisers_flor_and_one() -> None:
    game = new_game(flor=True)
    steps(game, "A1: flor", "B1: contraflor", "A1: con flor me achico", expect=(0, 4))


def test_direct_contraflor_al_resto_refused_gives_the_raisers_flor_and_one() -> None:
    game = new_game(flor=True)
    steps(game, "A1: flor", "B1: contraflor al resto", "A1: con flor me achico", expect=(0, 4))


def test_con_flor_me_achico_to_a_flor_gives_the_singers_flor() -> None:
    game = new_game(flor=True)
    steps(game, "A1: flor", "B1: con flor me achico", expect=(3, 0))


def test_con_flor_me_achico_counts_every_flor_of_the_singing_team() -> None:
    game = new_game(players=4, flor=True)
    steps(game, "A1: flor", "A2: flor", "B1: con flor me achico", expect=(6, 0))


def test_con_flor_me_achico_is_said_before_ones_first_card() -> None:
    game = new_game(players=4, flor=True)
    steps(game, "A1: flor", "A1 plays 4c", "B1 plays 5c")
    refused(game, "B1: con flor me achico", "ya jugó su primera carta")
    step(game, "B2: con flor me achico", expect=(3, 0))


def test_a_third_flor_joins_the_contest_until_the_first_number() -> None:
    game = new_game(players=4, flor=True)
    steps(game, "A1: flor", "B1: flor", "A2: flor")
    steps(game, "A1: 25", "B1: 33", "A2: son buenas", expect=(0, 9))   # 3 for each of 3 flors
    game = new_game(players=4, flor=True)
    steps(game, "A1: flor", "B1: flor", "A1: 25")
    refused(game, "A2: flor", "la flor ya está en juego")


def test_contraflor_al_resto_accepted() -> None:
    game = new_game(hand=False, flor=True)
    steps(game, "points A 20", "points B 10", "hand")
    steps(game, "A1: flor", "B1: contraflor al resto")
    refused(game, "A1: contraflor", "a la contraflor al resto se contesta con flor quiero")
    refused(game, "A1: contraflor al resto", "a la contraflor al resto se contesta")
    steps(game, "A1: con flor quiero", "A1: 30", "B1: 25")
    assert score(game) == (20 + 10 + 6, 10)          # the falta (10) plus 3 per flor
    assert game.winner == "A"


def test_contraflor_al_resto_with_resto_falta_only() -> None:
    game = new_game(hand=False, flor=True, resto="falta")
    steps(game, "points A 20", "points B 10", "hand")
    steps(game, "A1: flor", "B1: contraflor al resto", "A1: con flor quiero", "A1: 20", "B1: 25",
          expect=(20, 20))


def test_contraflor_raised_to_al_resto_and_refused() -> None:
    game = new_game(flor=True)
    steps(game, "A1: flor", "B1: contraflor", "A1: contraflor al resto")
    refused(game, "A1: con flor me achico", "no hay flor del otro equipo")
    step(game, "B1: con flor me achico", expect=(6, 0))  # the contraflor, accepted by raising


def test_con_flor_quiero_needs_a_contraflor() -> None:
    game = new_game(flor=True)
    step(game, "A1: flor")
    refused(game, "B1: con flor quiero", "no hay contraflor para querer")


def test_the_truco_caller_cannot_put_the_flor_first() -> None:
    game = new_game(flor=True, players=4)
    step(game, "A1: truco")
    refused(game, "A2: flor", "A cantó el truco: el envido está primero solo para B")
    step(game, "B2: flor")


def test_a_truco_waits_for_the_flor_contest() -> None:
    game = new_game(flor=True)
    step(game, "A1: truco")
    step(game, "B1: flor")                          # the flor is first too
    step(game, "A1: flor")
    refused(game, "B1: quiero", "primero se dicen los tantos")
    steps(game, "A1: 25", "B1: 31", expect=(0, 6))
    step(game, "B1: quiero")
    step(game, "hand B", expect=(0, 8))


def test_a_false_flor_shown_gives_the_points_away() -> None:
    game = new_game(flor=True)
    steps(game, "A1: flor", "A1 plays 4c", "B1 plays 5c", expect=(3, 0))
    step(game, "A1 shows 4c 7o 1o", expect=(0, 3))


def test_a_true_flor_shown_is_confirmed() -> None:
    game = new_game(flor=True)
    steps(game, "A1: flor", "B1: flor", "A1: 28", "B1: son buenas", expect=(6, 0))
    refused(game, "B1 shows 7e 6e 5e", "muestra quien ganó la flor")
    step(game, "A1 shows 7o 1o 12o", expect=(6, 0))
    assert game.hand is not None and game.hand.flor_shown is True


def test_a_flor_shown_with_another_value_gives_the_points_away() -> None:
    game = new_game(flor=True)
    steps(game, "A1: flor", "B1: flor", "A1: 33", "B1: son buenas", expect=(6, 0))
    step(game, "A1 shows 7o 1o 12o", expect=(0, 6))   # a flor of 28, not 33


def test_a_raise_or_an_acceptance_of_the_flor_needs_a_seat_with_flor() -> None:
    game = new_game(hand=False, flor=True, players=4)
    steps(game, "points A 5", "points B 20", "hand")
    steps(game, "A1 plays 4c", "B1 plays 5c", "A2: flor", "B2: contraflor")
    refused(game, "A1: contraflor al resto", "ya jugó su primera carta")  # never sang a flor
    refused(game, "A1: con flor quiero", "ya jugó su primera carta")
    step(game, "A2: contraflor al resto")
    steps(game, "B2: con flor quiero", "A2: 33", "B2: 30")
    assert score(game) == (5 + 10 + 6, 20)  # the falta (10) plus 3 for each of the two flors


def test_con_flor_quiero_by_a_partner_with_a_flor_of_its_own_joins_the_contest() -> None:
    game = new_game(flor=True, players=4)
    steps(game, "A1: flor", "B1: contraflor", "A2: con flor quiero")
    assert game.hand is not None and game.hand.flor_sung == ["A1", "B1", "A2"]


@pytest.mark.parametrize("call", ["flor", "contraflor", "contraflor al resto",
                                  "con flor me achico"])
def test_a_truco_answered_closes_the_answers_to_an_open_flor(call: str) -> None:
    # B1 kept its flor past the truco answered: it lost it, and A1's flor is worth its 3
    game = new_game(flor=True)
    steps(game, "A1: flor", "B1: truco", "A1: quiero")
    refused(game, f"B1: {call}", "el truco ya fue querido")
    steps(game, "A1 plays 4c", "B1 plays 5c", expect=(3, 0))
    assert hand_points(game, "flor") == (3, 0)


@pytest.mark.parametrize("call", ["flor", "contraflor", "contraflor al resto"])
def test_the_truco_caller_cannot_answer_a_flor_once_the_truco_is_answered(call: str) -> None:
    game = new_game(flor=True)
    steps(game, "A1: truco", "B1: flor", "B1: quiero")
    refused(game, f"A1: {call}", "el truco ya fue querido")
    steps(game, "A1 plays 4c", expect=(0, 3))       # every rival (A1) has played


def test_a_truco_accepted_by_a_retruco_closes_the_answers_to_a_flor() -> None:
    game = new_game(flor=True)
    steps(game, "A1: flor", "B1: truco", "A1: retruco")
    refused(game, "B1: flor", "el truco ya fue querido")
    refused(game, "B1: contraflor", "el truco ya fue querido")
    step(game, "B1: quiero")
    refused(game, "B1: contraflor al resto", "el truco ya fue querido")


def test_a_contraflor_al_resto_after_the_truco_is_answered_does_not_end_the_game() -> None:
    game = new_game(flor=True, players=4)
    steps(game, "A1: flor", "B1: truco", "A2: quiero")
    refused(game, "B2: contraflor al resto", "el truco ya fue querido")
    refused(game, "B2: con flor me achico", "el truco ya fue querido")
    steps(game, "A1 plays 4c", "B1 plays 5c", "A2 plays 6c", "B2 plays 7c", expect=(3, 0))
    assert game.winner is None


def test_while_the_truco_waits_a_flor_may_be_answered_by_either_team() -> None:
    game = new_game(flor=True)
    steps(game, "A1: flor", "B1: truco", "B1: contraflor")   # the truco caller answers the flor
    steps(game, "A1: con flor quiero", "A1: 25", "B1: 33", expect=(0, 6))
    steps(game, "A1: quiero", "hand B", expect=(0, 8))


@pytest.mark.parametrize("answer", ["quiero", "no quiero"])
def test_once_the_truco_is_answered_a_quiero_is_not_sent_to_the_flor(answer: str) -> None:
    """No seat can answer the flor any more (§7): the refusal does not teach its answers."""
    game = new_game(flor=True)
    steps(game, "A1: truco", "B1: flor", "B1: quiero")
    refused(game, "A1: contraflor", "el truco ya fue querido")
    # before: «a la flor no se le contesta quiero: se contesta flor, contraflor, …»
    refused(game, f"A1: {answer}", f"A1: {answer}: no hay nada cantado para contestar")


@pytest.mark.parametrize(("lines", "team"), [
    (("A1: flor", "B1: truco", "A1: quiero"), (3, 0)),
    (("A1: flor", "B1: truco", "A1: retruco"), (3, 0)),        # a raise accepts the truco
    (("A1: truco", "B1: flor", "B1: quiero"), (0, 3)),
    (("A1: truco", "B1: flor", "B1: retruco"), (0, 3)),
])
def test_a_flor_that_can_no_longer_be_answered_counts_at_once(
        lines: tuple[str, ...], team: tuple[int, int]) -> None:
    """The truco answered closes the flor (rules.md §7): its 3 count then, not when the rivals
    have played or the hand ends."""
    game = new_game(flor=True)
    steps(game, *lines, expect=team)
    assert game.hand is not None and game.hand.flor_status == "decided"


def test_a_flor_closed_by_the_truco_waits_for_the_hand_end_with_hand_end_credit() -> None:
    game = new_game(flor=True, envido_credit="hand-end")
    steps(game, "A1: flor", "B1: truco", "A1: quiero", expect=(0, 0))
    assert hand_points(game, "flor") == (3, 0)
    step(game, "hand A", expect=(5, 0))


def test_a_flor_closed_by_the_truco_is_undone_with_it() -> None:
    game = new_game(flor=True)
    steps(game, "A1: flor", "B1: truco", "A1: quiero", expect=(3, 0))
    game.undo()
    assert score(game) == (0, 0) and game.hand is not None and game.hand.flor_status == "open"
    step(game, "B1: contraflor")                 # while the truco waits, B1 may still answer
