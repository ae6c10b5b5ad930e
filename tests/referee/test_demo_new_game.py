"""With a --data-dir that already holds a game, the demo plays its script from a new game: the
one in progress is put aside among the past games, and the demo says so."""

from __future__ import annotations

import argparse
from pathlib import Path

from engine.settings import Settings
from referee.commands import serve
from referee.commands.demo import put_aside, serve_arguments
from referee.demo import DEMO_POINTS
from web_scoreboard.app import DB_NAME, create_app
from web_scoreboard.store import Store


def _game_in_progress(data_dir: Path, rules: dict[str, int], lines: tuple[str, ...]) -> int:
    store = Store(data_dir / DB_NAME)
    try:
        service = create_app(Settings.from_dict(rules), store).state.service
        for line in lines:
            service.submit_line(line)
        game_id = store.current_game_id()
        assert game_id is not None
        return game_id
    finally:
        store.close()


def _serve_args(data_dir: Path) -> argparse.Namespace:
    """The options ``serve`` runs the demo with, on ``data_dir``."""
    args = argparse.Namespace(data_dir=data_dir, exit_when_done=True, port=18901,
                              host="127.0.0.1", recognizer=None, pin=None)
    return serve_arguments(args, data_dir / "partida.wav", data_dir, None, None)


def test_a_game_in_progress_is_put_aside_and_the_script_starts_a_new_one(tmp_path: Path) -> None:
    old = _game_in_progress(tmp_path, {"points": DEMO_POINTS},
                            ("hand", "A1: truco", "B1: no quiero"))
    notice = put_aside(tmp_path)
    assert notice is not None
    assert f"La partida #{old} (A 1 — B 0)" in notice and "«Partidas anteriores»" in notice
    app, store = serve.build(_serve_args(tmp_path))
    try:
        game_id = store.current_game_id()
        assert game_id is not None and game_id != old
        assert store.log(game_id) == [] and old in [g.id for g in store.games()]
        assert app.state.service.snapshot()["score"] == {"A": 0, "B": 0}
    finally:
        store.close()


def test_a_game_of_other_rules_is_put_aside_even_before_its_first_call(tmp_path: Path) -> None:
    _game_in_progress(tmp_path, {"players": 4, "points": 30}, ())
    assert put_aside(tmp_path) is not None
    _, store = serve.build(_serve_args(tmp_path))
    try:
        game_id = store.current_game_id()
        assert game_id is not None
        game = store.game(game_id)
        assert game is not None
        assert game.settings == Settings.from_dict({"points": DEMO_POINTS}).to_dict()
    finally:
        store.close()


def test_a_new_game_of_the_demo_s_rules_or_no_store_is_left_as_it_is(tmp_path: Path) -> None:
    assert put_aside(tmp_path) is None
    game_id = _game_in_progress(tmp_path, {"points": DEMO_POINTS}, ())
    assert put_aside(tmp_path) is None
    store = Store(tmp_path / DB_NAME)
    try:
        assert store.current_game_id() == game_id
    finally:
        store.close()
