"""``truco-referee serve``: its options, and which game it shows when it starts."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from referee.cli import build_parser
from referee.commands.serve import build


def parse(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["serve", "--no-mic", *argv])


def test_help_explains_every_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--help"])
    out = capsys.readouterr().out
    for option in ("--no-mic", "--port", "--pin", "--data-dir", "--players", "--points",
                   "--flor", "--falta"):
        assert option in out


def test_rule_options_start_a_new_game_only_when_they_change_the_rules(tmp_path: Path) -> None:
    app, store = build(parse("--data-dir", str(tmp_path), "--players", "4", "--pin", "1234"))
    first = app.state.service.snapshot()
    assert first["seats"] == ["A1", "B1", "A2", "B2"]
    app.state.service.submit_line("points A +3")
    store.close()
    app, store = build(parse("--data-dir", str(tmp_path), "--players", "4"))
    resumed = app.state.service.snapshot()
    assert resumed["game_id"] == first["game_id"] and resumed["score"]["A"] == 3
    assert app.state.guard.pin == "1234"  # kept in the store
    store.close()
    app, store = build(parse("--data-dir", str(tmp_path), "--points", "15", "--no-flor"))
    fresh = app.state.service.snapshot()
    assert fresh["game_id"] != first["game_id"] and fresh["target"] == 15
    assert fresh["seats"] == ["A1", "B1", "A2", "B2"]  # the other rules carry over
    store.close()


def test_bad_options_are_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        parse("--players", "3")
    with pytest.raises(ValueError, match="invalid pin"):
        build(parse("--data-dir", str(tmp_path), "--pin", "12"))
