"""Scenario helpers: a game driven by log-like lines, each step checked, applied and scored.

``ev("A1: truco")``, ``ev("B1 plays 7o")``, ``ev("A1: 28")``, ``ev("hand")``, ``ev("round parda")``
build engine events with a tiny parser of its own, so engine tests do not lean on ``referee/``.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine import (
    Adjust,
    Call,
    Card,
    Declare,
    EngineError,
    EnvidoAside,
    EnvidoResult,
    Event,
    Game,
    HandResult,
    NewHand,
    Play,
    RoundResult,
    Say,
    Settings,
    Show,
    snapshot,
)

_CALLS = {c.value: c for c in Call}
_TEAMS = {"A": "A", "B": "B"}


def ev(line: str) -> Event:
    """One event from a log-like line."""
    if ":" in line:
        seat, said = (part.strip() for part in line.split(":", 1))
        if said.lstrip("-").isdigit():
            return Declare(seat, int(said))
        return Say(seat, _CALLS[said])
    words = line.split()
    seat_arg = words[2] if len(words) > 2 else None
    if words[0] == "hand":
        return NewHand() if len(words) == 1 else HandResult(_TEAMS[words[1]], seat_arg)  # type: ignore[arg-type]
    if words[0] == "round":
        winner = None if words[1] == "parda" else _TEAMS[words[1]]
        return RoundResult(winner, seat_arg)  # type: ignore[arg-type]
    if words[0] == "envido" and words[1] == "aside":
        return EnvidoAside(seat_arg)
    if words[0] == "envido":
        return EnvidoResult(_TEAMS[words[1]], seat_arg)  # type: ignore[arg-type]
    if words[0] == "points":
        return Adjust(_TEAMS[words[1]], int(words[2]))  # type: ignore[arg-type]
    if words[1] == "plays":
        return Play(words[0], Card.parse(words[2]))
    if words[1] == "shows":
        return Show(words[0], tuple(Card.parse(w) for w in words[2:]))
    raise ValueError(f"no event in {line!r}")


def new_game(hand: bool = True, **settings: Any) -> Game:
    """A game with these settings, the first hand dealt (A1 mano) unless ``hand=False``."""
    game = Game(Settings(**settings))
    if hand:
        step(game, "hand")
    return game


def game_at(a: int, b: int, **settings: Any) -> Game:
    """A game whose teams stand at ``a`` and ``b`` (corrections), with a hand dealt."""
    game = new_game(hand=False, **settings)
    for team, value in (("A", a), ("B", b)):
        if value:
            step(game, f"points {team} {value}")
    step(game, "hand")
    return game


def score(game: Game) -> tuple[int, int]:
    return game.score["A"], game.score["B"]


def step(game: Game, line: str | Event, expect: tuple[int, int] | None = None) -> None:
    """Assert the event is legal, apply it, and check the score (A, B) when given."""
    event = ev(line) if isinstance(line, str) else line
    try:
        game.check(event)
    except EngineError as err:
        pytest.fail(f"{event} refused: {err.reason}")
    game.apply(event)
    if expect is not None:
        assert score(game) == expect, f"after {event}"


def steps(game: Game, *lines: str, expect: tuple[int, int] | None = None) -> None:
    """Several steps; the score is checked after the last one."""
    for line in lines:
        step(game, line)
    if expect is not None:
        assert score(game) == expect, f"after {lines[-1]}"


def refused(game: Game, line: str | Event, reason: str) -> str:
    """Assert the event is refused with a reason containing ``reason`` and changes nothing."""
    event = ev(line) if isinstance(line, str) else line
    before = snapshot(game)
    assert not game.is_legal(event), f"{event} should be refused"
    with pytest.raises(EngineError) as err:
        game.apply(event)
    assert reason in err.value.reason, f"{event}: {err.value.reason!r} lacks {reason!r}"
    assert snapshot(game) == before
    return err.value.reason


def hand_points(game: Game, category: str) -> tuple[int, int]:
    """This hand's points of one category (envido, flor, truco) for (A, B)."""
    hand = game.hand
    assert hand is not None
    return hand.points[category]["A"], hand.points[category]["B"]
