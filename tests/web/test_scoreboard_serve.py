"""``truco-referee serve``: its options, and which game it shows when it starts."""

from __future__ import annotations

import argparse
import socket
import sqlite3
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from referee.cli import build_parser
from referee.commands.serve import build, own_addresses, run
from referee.commands.serve_address import lan_address
from tests.web.conftest import PIN, ServeProcess, free_port
from web_scoreboard.app import DB_NAME

AUTH = {"X-Table-PIN": PIN}


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


@pytest.mark.parametrize("option", [("--players", "3"), ("--pin", "12"), ("--pin", "12345678x"),
                                    ("--port", "99999"), ("--port", "0"), ("--port", "ocho")])
def test_bad_options_are_refused_in_spanish(option: tuple[str, str],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse(*option)
    said = capsys.readouterr().err
    assert f"argumento {option[0]}" in said and "invalid" not in said


def test_a_bad_pin_that_reaches_the_scoreboard_is_refused(tmp_path: Path) -> None:
    args = parse("--data-dir", str(tmp_path))
    args.pin = "12"
    with pytest.raises(ValueError, match="PIN inválido"):
        build(args)


def test_a_page_opened_on_the_host_at_its_printed_address_gets_the_pin(tmp_path: Path) -> None:
    assert lan_address() in own_addresses(parse())
    app, store = build(parse("--data-dir", str(tmp_path), "--host", "10.1.2.3", "--pin", "1234"))
    try:
        on_the_host = TestClient(app, client=("10.1.2.3", 50000))
        assert on_the_host.get("/api/pin").json() == {"pin": "1234"}
        elsewhere = TestClient(app, client=("10.1.2.4", 50000))
        assert elsewhere.get("/api/pin").status_code == 403
    finally:
        store.close()


def test_a_second_server_on_the_same_data_folder_is_refused(serve: ServeProcess) -> None:
    first = serve.start()
    assert first.post("/api/events", json={"line": "hand"}, headers=AUTH).status_code == 200
    second = ServeProcess(serve.data_dir, free_port())
    try:
        with pytest.raises(AssertionError, match="exited with 1") as refused:
            second.start()
        assert "ya la usa otro tanteador" in str(refused.value)
        assert first.get("/api/state").json()["log"] == ["hand"]
        serve.kill9()  # the lock goes with the process
        again = second.start()
        assert again.get("/api/state").json()["log"] == ["hand"]
    finally:
        second.stop()


def test_a_port_in_use_is_refused_before_the_store_is_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = run(parse("--data-dir", str(tmp_path), "--host", "127.0.0.1", "--port", str(port)))
    assert code == 1 and f"no se puede abrir el puerto {port}" in capsys.readouterr().err
    assert not (tmp_path / DB_NAME).exists()


def test_a_port_in_use_or_an_unknown_host_is_said_in_words(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        assert run(parse("--data-dir", str(tmp_path), "--host", "127.0.0.1", "--port", port)) == 1
    assert "ya lo usa otro programa" in capsys.readouterr().err
    assert run(parse("--data-dir", str(tmp_path), "--host", "no.such.host.invalid")) == 1
    assert "no conozco la dirección no.such.host.invalid" in capsys.readouterr().err


def test_a_data_folder_under_a_file_is_said_in_words(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "afile").write_text("")
    assert run(parse("--data-dir", str(tmp_path / "afile" / "sub"), "--port", str(free_port()))) == 1
    said = capsys.readouterr().err
    assert "hay un archivo donde tendría que haber una carpeta" in said and "Errno" not in said


def test_a_recording_that_cannot_be_heard_ends_a_run_that_ends_with_it(tmp_path: Path) -> None:
    args = build_parser().parse_args([
        "serve", "--wav", str(tmp_path / "missing.wav"), "--exit-when-done", "--data-dir",
        str(tmp_path / "data"), "--models-dir", str(tmp_path / "models"), "--port", str(free_port()),
        "--host", "127.0.0.1"])
    assert run(args) == 1


def test_a_damaged_store_stops_serve_with_what_to_do(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / DB_NAME).write_bytes(b"no soy una base de datos" * 200)
    assert run(parse("--data-dir", str(data), "--port", str(free_port()),
                     "--host", "127.0.0.1")) == 1
    said = capsys.readouterr().err
    assert "el archivo está dañado" in said and "apartá" in said and "Traceback" not in said


def test_a_game_in_play_whose_rules_cannot_be_read_says_what_to_do(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    app, store = build(parse("--data-dir", str(tmp_path), "--players", "4"))
    app.state.service.submit_line("points A +3")
    damaged = app.state.service.game_id
    store.close()
    db = sqlite3.connect(str(tmp_path / DB_NAME), isolation_level=None)
    db.execute("UPDATE games SET settings = ? WHERE id = ?", ('{"players": 4\x01', damaged))
    db.close()
    assert run(parse("--data-dir", str(tmp_path), "--port", str(free_port()),
                     "--host", "127.0.0.1")) == 1
    said = capsys.readouterr().err
    assert (f"las reglas de la partida #{damaged} están dañadas en {tmp_path / DB_NAME} "
            "(Expecting") in said and "Arrancá dando las reglas" in said
    app, store = build(parse("--data-dir", str(tmp_path), "--players", "4"))  # as it says
    try:
        fresh = app.state.service.snapshot()
        assert fresh["game_id"] != damaged and fresh["seats"] == ["A1", "B1", "A2", "B2"]
        assert f"la #{damaged} quedó entre las anteriores" in capsys.readouterr().out
        past = {g["id"]: g for g in app.state.service.list_games()["games"]}[damaged]
        assert past["score"] == {"A": 3, "B": 0} and "reglas guardadas" in past["damaged"]
    finally:
        store.close()


def test_the_room_left_for_the_evening_is_said_at_start(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A disk that fills in the middle of a game stops the referee writing down (the banner): at
    start the table is told how many hours of play the data folder has room for, and warned
    under ``FEW_HOURS``."""
    import shutil
    from collections import namedtuple

    from referee.commands.serve import room_part
    from web_scoreboard.room import FEW_HOURS, STORE_BYTES_PER_HOUR

    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda _: usage(0, 0, 50 * STORE_BYTES_PER_HOUR))
    part = room_part(tmp_path)
    assert part.running and part.detail == (f"{tmp_path}: quedan 1.6 GB libres (unas 50 horas "
                                            "de juego con sus audios)")
    monkeypatch.setattr(shutil, "disk_usage",
                        lambda _: usage(0, 0, (FEW_HOURS - 5) * STORE_BYTES_PER_HOUR))
    part = room_part(tmp_path)
    assert not part.running and "quedan 96.0 MB libres (unas 3 horas" in part.detail
    assert part.detail.endswith("liberá espacio (o borrá partidas viejas en Ajustes) antes de "
                                "que se llene a mitad de una partida")
