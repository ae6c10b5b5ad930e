"""The state is a replay of its log: undo step by step back to the start, replay gives the same."""

from __future__ import annotations

from typing import Any

from engine_steps import ev, step

from engine import Game, SetRule, Settings, snapshot

A_GAME = [
    "hand", "A1: truco", "B1: envido", "A1: quiero", "A1: 27", "B1: 30", "B1: retruco",
    "A1: quiero", "A1 plays 4c", "B1 plays 3e", "B1 plays 1e", "A1 plays 5c", "B1 shows 7e 3e 1e",
    "hand", "B1: flor", "A1: contraflor", "B1: con flor quiero", "B1: 33", "A1: son buenas",
    "B1 plays 2o", "A1 plays 2e", "B1: truco", "A1: me voy al mazo",
    "hand", "A1: real envido", "B1: no quiero", "round parda", "A1: truco", "B1: no quiero",
]


def play(settings: Settings) -> tuple[Game, list[dict[str, Any]]]:
    game = Game(settings)
    snaps = [snapshot(game)]
    for line in A_GAME:
        step(game, line)
        snaps.append(snapshot(game))
    return game, snaps


def test_undo_back_to_the_start() -> None:
    game, snaps = play(Settings(flor=True))
    for line, before in zip(reversed(A_GAME), reversed(snaps[:-1])):
        assert str(game.undo()) == str(ev(line))
        assert snapshot(game) == before
    assert game.events == []
    assert snapshot(game) == snapshot(Game(Settings(flor=True)))


def test_undo_then_a_different_event() -> None:
    game, _ = play(Settings(flor=True))
    game.undo()
    step(game, "B1: quiero")
    assert game.hand is not None and game.hand.truco_level == 2 and not game.hand.over


def test_replay_of_the_log_gives_the_same_state() -> None:
    for settings in (Settings(flor=True), Settings(flor=True, envido_credit="hand-end")):
        game, snaps = play(settings)
        again = Game(settings)
        for event in game.events:
            again.apply(event)
        assert snapshot(again) == snaps[-1]


def test_the_log_is_the_events_in_notation() -> None:
    _, snaps = play(Settings(flor=True))
    assert snaps[-1]["log"] == [str(ev(line)) for line in A_GAME]
    assert snaps[-1]["score"] == {"A": 2, "B": 12}


def test_rules_written_as_set_lines_give_the_same_rules_again() -> None:
    """A game kept as a log starts with the ``set`` lines of its rules (the scoreboard's
    download); applied to a new game they give the same rules, the defaults none."""
    assert Settings().rule_lines() == []
    for rules in (Settings(players=6, pica_pica=True, flor=True, contraflor_points=4),
                  Settings(points=15, falta="dos-faltas", envido_credit="hand-end",
                           mazo_extra=True, match=True, resto="falta")):
        game = Game()
        for line in rules.rule_lines():
            _, name, value = line.split(" ")
            game.apply(SetRule(name, value))
        assert game.settings == rules
    assert Settings(players=6, pica_pica=True).rule_lines() == ["set players 6",
                                                                "set pica_pica on"]
