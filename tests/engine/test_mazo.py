"""Me voy al mazo: the truco as it stands, pending bets refused, and the mazo_extra setting."""

from __future__ import annotations

import pytest
from engine_steps import ev, hand_points, new_game, refused, step, steps


def test_mazo_before_anything_gives_one() -> None:
    game = new_game()
    step(game, "A1: me voy al mazo", expect=(0, 1))
    assert game.hand is not None and game.hand.over and game.hand.winner == "B"


@pytest.mark.parametrize(("calls", "leaver", "expect"), [
    (("A1: truco", "B1: quiero"), "B1", (2, 0)),
    (("A1: truco", "B1: quiero"), "A1", (0, 2)),
    (("A1: truco", "B1: retruco", "A1: quiero"), "A1", (0, 3)),
    (("A1: truco", "B1: retruco", "A1: vale cuatro", "B1: quiero"), "B1", (4, 0)),
])
def test_mazo_gives_the_accepted_truco(calls: tuple[str, ...], leaver: str,
                                       expect: tuple[int, int]) -> None:
    game = new_game()
    steps(game, *calls)
    step(game, f"{leaver}: me voy al mazo", expect=expect)


@pytest.mark.parametrize(("calls", "leaver", "expect"), [
    (("A1: truco",), "B1", (1, 0)),
    (("A1: truco", "B1: retruco"), "A1", (0, 2)),
    (("A1: truco", "B1: retruco", "A1: vale cuatro"), "B1", (3, 0)),
])
def test_a_pending_truco_counts_as_refused(calls: tuple[str, ...], leaver: str,
                                           expect: tuple[int, int]) -> None:
    game = new_game()
    steps(game, *calls)
    step(game, f"{leaver}: me voy al mazo", expect=expect)


def test_not_while_the_own_call_waits() -> None:
    game = new_game(players=4)
    step(game, "A1: truco")
    refused(game, "A2: me voy al mazo", "el truco espera respuesta")
    step(game, "B2: me voy al mazo", expect=(1, 0))


def test_with_truco_and_envido_pending_only_the_team_that_must_answer_may_leave() -> None:
    game = new_game()
    steps(game, "A1: truco", "B1: envido")
    refused(game, "B1: me voy al mazo", "el envido espera respuesta")
    step(game, "A1: me voy al mazo", expect=(0, 2))   # envido refused (1) + the hand (1)
    assert hand_points(game, "envido") == (0, 1)


@pytest.mark.parametrize(("calls", "leaver", "expect", "envido"), [
    (("A1: envido",), "B1", (2, 0), (1, 0)),
    (("A1: envido", "B1: real envido"), "A1", (0, 3), (0, 2)),
    (("A1: envido", "B1: envido", "A1: real envido"), "B1", (5, 0), (4, 0)),
    (("A1: truco", "B1: envido", "A1: real envido"), "B1", (3, 0), (2, 0)),  # both refused
])
def test_a_pending_envido_counts_as_refused(calls: tuple[str, ...], leaver: str,
                                            expect: tuple[int, int],
                                            envido: tuple[int, int]) -> None:
    game = new_game()
    steps(game, *calls)
    step(game, f"{leaver}: me voy al mazo", expect=expect)
    assert hand_points(game, "envido") == envido


def test_a_pending_contraflor_counts_as_refused() -> None:
    game = new_game(flor=True)
    steps(game, "A1: flor", "B1: contraflor")
    step(game, "A1: me voy al mazo", expect=(0, 5))   # the refused contraflor (4) and the hand


def test_not_during_the_declarations() -> None:
    game = new_game()
    steps(game, "A1: envido", "B1: quiero")
    refused(game, "B1: me voy al mazo", "primero se dicen los tantos")


def test_mazo_extra_in_the_first_round_before_envido() -> None:
    game = new_game(mazo_extra=True)
    step(game, "A1 plays 4c")
    step(game, "B1: me voy al mazo", expect=(2, 0))
    assert hand_points(game, "envido") == (1, 0)


def test_mazo_extra_not_after_the_envido_was_played() -> None:
    game = new_game(mazo_extra=True)
    steps(game, "A1: envido", "B1: no quiero", expect=(1, 0))
    step(game, "B1: me voy al mazo", expect=(2, 0))


def test_mazo_extra_not_after_the_first_round() -> None:
    game = new_game(mazo_extra=True)
    steps(game, "A1 plays 4c", "B1 plays 5c")
    step(game, "B1: me voy al mazo", expect=(1, 0))


def test_without_mazo_extra_no_extra_point() -> None:
    game = new_game()
    step(game, "B1: me voy al mazo", expect=(1, 0))


def test_in_four_players_the_mazo_is_for_the_team() -> None:
    game = new_game(players=4)
    steps(game, "A1 plays 4c", "B1 plays 5c")
    step(game, "A2: me voy al mazo", expect=(0, 1))
    refused(game, "B2 plays 6c", "la mano ya terminó")


def test_mazo_extra_not_after_a_truco_was_wanted() -> None:
    game = new_game(mazo_extra=True)
    steps(game, "A1: truco", "B1: quiero")            # the envido can no longer be called
    step(game, "B1: me voy al mazo", expect=(2, 0))
    assert hand_points(game, "envido") == (0, 0)


# (players, the lines before the mazo, the seat that leaves, score after, whether envido could
# still be called by some seat then)
MAZO_EXTRA_CASES = [
    (2, ("A1 plays 4c", "B1: truco"), "A1", (0, 1), False),   # A1 played, B1 called the truco
    (2, ("B1: truco",), "A1", (0, 2), True),                  # A1 may still: the envido is first
    (4, ("A1 plays 4c", "B1 plays 5c", "A2 plays 6c", "B2: truco"), "A2", (0, 1), False),
    (4, ("A1 plays 4c", "B1: truco"), "A1", (0, 2), True),    # A2 has not played yet
    (6, ("A1 plays 4c", "B1 plays 5c", "A2 plays 6c", "B2 plays 7c", "A3 plays 4o", "B3: truco"),
     "A1", (0, 1), False),
    (6, ("A1 plays 4c", "B1 plays 5c", "A2 plays 6c", "B2 plays 7c", "B3: truco"),
     "A1", (0, 2), True),                                     # A3 has not played yet
]


@pytest.mark.parametrize(("players", "before", "leaver", "after", "envido_open"),
                         MAZO_EXTRA_CASES)
def test_mazo_extra_only_while_some_seat_could_still_call_envido(
        players: int, before: tuple[str, ...], leaver: str, after: tuple[int, int],
        envido_open: bool) -> None:
    """The extra point follows the envido's own rule (§3, §9): given exactly when some seat
    could call envido at that moment."""
    game = new_game(players=players, mazo_extra=True)
    steps(game, *before)
    seats = game.settings.seats
    assert any(game.is_legal(ev(f"{seat}: envido")) for seat in seats) == envido_open
    step(game, f"{leaver}: me voy al mazo", expect=after)
    assert hand_points(game, "envido") == (0, 1 if envido_open else 0)


def test_mazo_extra_in_a_pica_pica_duel_asks_the_duels_seats() -> None:
    game = new_game(hand=False, players=6, pica_pica=True, mazo_extra=True)
    steps(game, "points A 5", "hand", "A1 plays 4c", "B2: truco")   # duel A1-B2: neither may
    step(game, "A1: me voy al mazo", expect=(5, 1))
    steps(game, "B1: truco")                                        # duel B1-A3: A3 may
    step(game, "A3: me voy al mazo", expect=(5, 3))
