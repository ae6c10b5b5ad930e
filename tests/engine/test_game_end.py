"""The game ends the moment a team reaches 30 (or 15); a match is the best of three chicos."""

from __future__ import annotations

import pytest
from engine_steps import game_at, hand_points, new_game, refused, score, step, steps

from engine import Game, SetRule, snapshot


@pytest.mark.parametrize("points", [30, 15])
def test_envido_ends_the_game_in_the_middle_of_a_hand(points: int) -> None:
    game = game_at(points - 2, 0, points=points)
    steps(game, "A1: envido", "B1: quiero", "A1: 30")
    assert not game.over
    step(game, "B1: son buenas", expect=(points, 0))
    assert game.over and game.winner == "A"
    assert game.hand is not None and not game.hand.over   # the hand was not finished
    snap = snapshot(game)
    assert snap["winner"] == "A" and snap["score"] == {"A": points, "B": 0}


@pytest.mark.parametrize("points", [30, 15])
def test_truco_ends_the_game(points: int) -> None:
    game = game_at(points - 2, points - 1, points=points)
    steps(game, "B1: truco", "A1: quiero")
    step(game, "hand B", expect=(points - 2, points + 1))
    assert game.winner == "B"


def test_the_flor_that_reaches_the_target_ends_the_game_before_the_truco() -> None:
    # the hand ends on the refused truco: the flor (A +3) is scored first and ends it
    game = game_at(27, 28, flor=True)
    steps(game, "A1: flor", "B1: truco")
    step(game, "A1: no quiero", expect=(30, 28))
    assert game.winner == "A" and hand_points(game, "truco") == (0, 0)


@pytest.mark.parametrize("answer", ["quiero", "retruco"])
def test_the_flor_closed_by_the_truco_answered_ends_the_game_at_once(answer: str) -> None:
    """Nobody can answer the flor once the truco is answered (rules.md §7): its 3 count then,
    and take A to 30 before a card is played."""
    game = game_at(27, 28, flor=True)
    steps(game, "B1: truco", "A1: flor")
    step(game, f"A1: {answer}", expect=(30, 28))
    assert game.winner == "A"
    assert game.hand is not None and not game.hand.over   # the hand was not finished
    assert snapshot(game)["score"] == {"A": 30, "B": 28}
    refused(game, "B1 plays 4c", "la partida terminó")


def test_the_envido_credited_at_hand_end_reaches_the_target_before_the_truco() -> None:
    game = game_at(29, 28, envido_credit="hand-end")
    steps(game, "A1: envido", "B1: quiero", "A1: 20", "B1: 30", "A1: truco")
    step(game, "B1: no quiero", expect=(29, 30))
    assert game.winner == "B"


def test_leaving_with_a_flor_sung_gives_the_flor_first() -> None:
    game = game_at(29, 27, flor=True)
    steps(game, "A1: truco", "B1: flor")
    step(game, "B1: me voy al mazo", expect=(29, 30))
    assert game.winner == "B"


def test_one_short_is_not_the_end() -> None:
    game = game_at(28, 0)
    step(game, "hand A", expect=(29, 0))
    assert not game.over
    step(game, "hand")


@pytest.mark.parametrize("event", [
    "hand", "B1: truco", "A1: envido", "A1 plays 4c", "round A", "hand B", "B1: me voy al mazo",
    "A1: 30"])
def test_nothing_after_the_game_ended(event: str) -> None:
    game = game_at(28, 0)
    steps(game, "A1: envido", "B1: quiero", "A1: 30", "B1: son buenas")
    assert game.over
    refused(game, event, "la partida terminó")


def test_a_refused_envido_can_end_the_game() -> None:
    game = game_at(0, 29)
    steps(game, "A1: truco", "B1: envido", "A1: no quiero", expect=(0, 30))
    assert game.winner == "B"
    refused(game, "B1: quiero", "la partida terminó")


def win_chico(game: Game, team: str) -> None:
    """Bring ``team`` to the target with a correction and one hand."""
    need = game.settings.points - game.score[team] - 1  # type: ignore[index]
    if need:
        step(game, f"points {team} {need}")
    step(game, "hand")
    step(game, f"hand {team}")


def test_a_match_is_the_best_of_three_chicos() -> None:
    game = new_game(hand=False, match=True)
    win_chico(game, "A")
    assert game.chico_winner() == "A" and game.winner is None
    assert snapshot(game)["chicos"] == {"A": 1, "B": 0}  # won, before the next chico starts
    step(game, "hand", expect=(0, 0))                 # a new chico starts from zero
    assert game.chicos == {"A": 1, "B": 0}
    step(game, "hand B")
    win_chico(game, "B")
    assert game.winner is None
    step(game, "hand", expect=(0, 0))
    assert game.chicos == {"A": 1, "B": 1}
    step(game, "hand A")
    win_chico(game, "A")
    assert game.winner == "A" and game.over
    assert snapshot(game)["chicos"] == {"A": 2, "B": 1}  # the chico that won the match too
    assert score(game) == (30, 0)
    refused(game, "hand", "la partida terminó")


def test_a_match_ends_two_chicos_to_nothing() -> None:
    game = new_game(hand=False, match=True, points=15)
    win_chico(game, "B")
    steps(game, "hand", "hand B", expect=(0, 1))
    win_chico(game, "B")
    assert game.winner == "B" and game.chicos == {"A": 0, "B": 1}
    assert snapshot(game)["chicos"] == {"A": 0, "B": 2}


def test_a_false_declaration_shown_after_the_envido_ended_the_game_reopens_it() -> None:
    """The winner shows the cards before the points count [IT]: a show stays allowed."""
    game = game_at(28, 0)
    steps(game, "A1: envido", "B1: quiero", "A1: 33", "B1: son buenas", expect=(30, 0))
    assert game.winner == "A"
    step(game, "A1 shows 7o 1o 4c", expect=(28, 2))
    assert game.winner is None and not game.over
    step(game, "A1 plays 4c")


def test_a_correction_after_the_game_ended_is_allowed() -> None:
    game = game_at(29, 0)
    step(game, "hand A", expect=(30, 0))
    step(game, "points A -2", expect=(28, 0))
    assert not game.over
    step(game, "hand")


def test_rules_cannot_change_after_the_game_ended() -> None:
    game = game_at(29, 0)
    step(game, "hand A", expect=(30, 0))
    refused(game, SetRule("points", "15"), "la partida terminó")


def test_a_chico_won_in_the_middle_of_a_hand_stops_that_hand() -> None:
    game = new_game(hand=False, match=True)
    steps(game, "points A 28", "hand", "A1: envido", "B1: quiero", "A1: 30", "B1: son buenas")
    assert game.chico_winner() == "A" and not game.over
    refused(game, "B1: truco", "el chico terminó")
    step(game, "hand", expect=(0, 0))
    assert game.chicos == {"A": 1, "B": 0}


def test_a_false_envido_shown_after_the_hand_gives_back_the_truco_the_target_kept_out() -> None:
    """Credited at hand end, the envido took A to 30 and B's truco went unscored; shown false,
    the envido is B's and the game is open again, so B's truco counts after it (§5, §11)."""
    game = game_at(28, 20, envido_credit="hand-end")
    steps(game, "A1: envido", "B1: quiero", "A1: 33", "B1: son buenas", "B1: truco", "A1: quiero")
    steps(game, "A1 plays 4c", "B1 plays 1e", "B1 plays 1b", "A1 plays 4o", expect=(30, 20))
    assert game.winner == "A" and hand_points(game, "truco") == (0, 0)
    step(game, "A1 shows 4o 5o", expect=(28, 24))
    assert not game.over
    assert hand_points(game, "envido") == (0, 2) and hand_points(game, "truco") == (0, 2)
    step(game, "hand")


def test_the_envido_given_away_that_reaches_the_target_keeps_the_truco_out() -> None:
    """In the order of the end of a hand the envido comes before the truco: given to B, it takes
    B to 30, and the truco (A's or B's) is still not scored."""
    game = game_at(28, 28, envido_credit="hand-end")
    steps(game, "A1: envido", "B1: quiero", "A1: 33", "B1: son buenas", "B1: truco", "A1: quiero")
    step(game, "hand B", expect=(30, 28))
    step(game, "A1 shows 7o 5o", expect=(28, 30))
    assert game.winner == "B" and hand_points(game, "truco") == (0, 0)


def test_a_false_flor_shown_after_the_hand_gives_back_the_truco_the_target_kept_out() -> None:
    """The same with the flor credited as soon as it is settled: the flor closed as A left and
    took A to 30; shown false it is B's, and B's truco counts after it."""
    game = game_at(27, 20, flor=True)
    steps(game, "A1: flor", "B1: truco")
    step(game, "A1: me voy al mazo", expect=(30, 20))
    assert game.winner == "A"
    step(game, "A1 shows 7o 5o 4c", expect=(27, 24))
    assert not game.over and hand_points(game, "truco") == (0, 1)


@pytest.mark.parametrize("team", ["A", "B"])
def test_a_finished_game_takes_corrections_that_subtract_only(team: str) -> None:
    game = game_at(28, 10)
    steps(game, "B1: truco", "A1: quiero", "hand A")
    assert game.over and score(game) == (30, 10)
    # before: a «+1» tapped on the finished game scored 31 (or 11) and the past game said so
    refused(game, f"points {team} +1", "la partida ya terminó; una corrección solo puede restar")
    step(game, "points A -2", expect=(28, 10))  # a mistake fixed: the game reopens
    assert not game.over
    step(game, "points B +1", expect=(28, 11))
