"""Falta envido under each formula, at several scores, accepted and won by either team."""

from __future__ import annotations

import pytest
from engine_steps import new_game, score, step, steps

from engine import Game

# (formula, points, score A, score B, envido winner, falta value)
FALTA: list[tuple[str, int, int, int, str, int]] = [
    # leader: what the leading team needs to win, whoever wins the envido
    ("leader", 30, 0, 0, "A", 30),
    ("leader", 30, 10, 20, "A", 10),
    ("leader", 30, 10, 20, "B", 10),
    ("leader", 30, 27, 3, "B", 3),
    ("leader", 15, 5, 8, "A", 7),
    # malas: in malas (leader under 15) the falta wins the game for its winner; in buenas as leader
    ("malas", 30, 10, 12, "A", 20),
    ("malas", 30, 10, 12, "B", 18),
    ("malas", 30, 0, 0, "B", 30),
    ("malas", 30, 20, 10, "B", 10),
    ("malas", 30, 15, 0, "B", 15),        # 15 is already buenas
    ("malas", 15, 5, 8, "A", 7),          # a 15-point game has no malas: as leader
    # dos-faltas: in malas, what the leader needs to reach buenas; in buenas, to win
    ("dos-faltas", 30, 10, 12, "A", 3),
    ("dos-faltas", 30, 0, 0, "B", 15),
    ("dos-faltas", 30, 16, 5, "B", 14),
    ("dos-faltas", 15, 5, 8, "B", 7),
    # winner: what the envido's winner needs to win
    ("winner", 30, 20, 10, "B", 20),
    ("winner", 30, 20, 10, "A", 10),
    ("winner", 15, 0, 14, "A", 15),
]


def game_at(formula: str, points: int, a: int, b: int) -> Game:
    game = new_game(hand=False, falta=formula, points=points)
    for team, value in (("A", a), ("B", b)):
        if value:
            step(game, f"points {team} {value}")
    step(game, "hand", expect=(a, b))
    return game


@pytest.mark.parametrize(("formula", "points", "a", "b", "winner", "value"), FALTA)
def test_falta_envido_accepted(formula: str, points: int, a: int, b: int, winner: str,
                               value: int) -> None:
    game = game_at(formula, points, a, b)
    steps(game, "A1: falta envido", "B1: quiero")
    if winner == "A":
        steps(game, "A1: 33", "B1: son buenas")
        assert score(game) == (a + value, b)
    else:
        steps(game, "A1: 20", "B1: 30")
        assert score(game) == (a, b + value)
    reached = max(score(game)) >= points
    assert game.over is reached
    assert game.winner == (winner if reached else None)


@pytest.mark.parametrize(("formula", "points", "a", "b"), [
    ("leader", 30, 10, 20), ("malas", 30, 10, 12), ("dos-faltas", 30, 0, 0),
    ("winner", 30, 20, 10)])
def test_falta_envido_refused_is_one(formula: str, points: int, a: int, b: int) -> None:
    game = game_at(formula, points, a, b)
    steps(game, "A1: falta envido", "B1: no quiero", expect=(a + 1, b))


def test_falta_envido_after_envido_refused_gives_the_envido() -> None:
    game = game_at("malas", 30, 10, 12)
    steps(game, "A1: envido", "B1: falta envido", "A1: no quiero", expect=(10, 14))
