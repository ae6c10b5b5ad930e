"""A manual correction that takes the target back reopens the game as a false declaration shown
does: the points of the hand the target had left out then count (rules.md §5, §12)."""

from __future__ import annotations

from engine_steps import game_at, hand_points, step, steps

from engine import Game, snapshot


def envido_then_truco_lost(a: int, b: int) -> Game:
    """Credited at hand end, A's envido (a false 33) takes A to 30 and B's truco is left out."""
    game = game_at(a, b, envido_credit="hand-end")
    steps(game, "A1: envido", "B1: quiero", "A1: 33", "B1: son buenas", "B1: truco", "A1: quiero")
    steps(game, "A1 plays 4c", "B1 plays 1e", "B1 plays 1b", "A1 plays 4o")
    assert game.winner == "A" and hand_points(game, "truco") == (0, 0)
    return game


def test_a_correction_that_reopens_the_game_gives_back_the_truco_the_target_kept_out() -> None:
    game = envido_then_truco_lost(28, 20)
    step(game, "points A -1", expect=(29, 22))
    assert not game.over and hand_points(game, "truco") == (0, 2)
    step(game, "hand")


def test_a_correction_and_a_false_show_give_the_same_score_in_either_order() -> None:
    shown_first = envido_then_truco_lost(28, 20)
    steps(shown_first, "A1 shows 4o 5o", "points A -1", expect=(27, 24))
    corrected_first = envido_then_truco_lost(28, 20)
    steps(corrected_first, "points A -1", "A1 shows 4o 5o", expect=(27, 24))
    for game in (shown_first, corrected_first):
        assert hand_points(game, "envido") == (0, 2) and hand_points(game, "truco") == (0, 2)


def test_the_points_given_back_stop_again_at_the_target() -> None:
    """B at 28: the truco given back takes B to 30, and B wins."""
    game = envido_then_truco_lost(28, 28)
    step(game, "points A -1", expect=(29, 30))
    assert game.winner == "B"


def test_a_correction_that_leaves_the_target_reached_gives_nothing_back() -> None:
    game = envido_then_truco_lost(29, 20)   # the envido took A to 31
    step(game, "points A -1", expect=(30, 20))
    assert game.winner == "A" and hand_points(game, "truco") == (0, 0)
    step(game, "points A -1", expect=(29, 22))
    assert not game.over


def test_the_points_given_back_are_recorded_with_the_event_that_gave_them() -> None:
    """The hand's points stay whole; ``scored_later`` tells the truco's 2 came with the correction,
    not when the hand was played."""
    game = envido_then_truco_lost(28, 20)
    step(game, "points A -1")
    correction = len(game.events) - 1
    assert game.hand is not None and game.hand.scored_later == [("truco", "B", 2, correction)]
    record = snapshot(game)["hands"][-1]
    assert record["points"]["truco"] == {"A": 0, "B": 2}
    assert record["scored_later"] == [{"category": "truco", "team": "B", "points": 2,
                                       "event": correction}]
    game.undo()
    assert game.hand is not None and game.hand.scored_later == []


def test_the_points_a_false_show_gives_back_are_recorded_with_the_show() -> None:
    game = envido_then_truco_lost(28, 20)
    steps(game, "A1 shows 4o 5o", "points A -1")
    show = len(game.events) - 2
    assert game.hand is not None and game.hand.scored_later == [("truco", "B", 2, show)]


def test_points_scored_while_the_hand_is_played_are_not_scored_later() -> None:
    game = game_at(10, 20)
    steps(game, "A1: envido", "B1: quiero", "A1: 33", "B1: son buenas", "hand B")
    record = snapshot(game)["hands"][-1]
    assert record["scored_later"] == [] and record["points"]["truco"] == {"A": 0, "B": 1}
