"""Nothing shown is ever lost: the state is rebuilt from the stored log, even after ``kill -9``."""

from __future__ import annotations

import shutil
import signal
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from fastapi.testclient import TestClient

from engine import Settings
from web_scoreboard import create_app
from web_scoreboard.store import LogEntry, Store

PIN = "2468"
AUTH = {"X-Table-PIN": PIN}
HAND = ["hand", "A1: envido", "B1: quiero", "A1: 30", "B1: son buenas", "A1: truco",
        "B1: quiero", "round B", "round A", "round A", "hand", "B1: truco", "A1: no quiero"]


def lasting(snap: dict[str, Any]) -> dict[str, Any]:
    """What must survive a restart: everything but the per-process sequence numbers."""
    return {k: v for k, v in snap.items() if k not in ("seq", "boot")}


def test_a_new_app_on_the_same_store_shows_the_same_game(tmp_path: Path) -> None:
    path = tmp_path / "scoreboard.sqlite3"
    first_store = Store(path)
    with TestClient(create_app(Settings(), first_store, pin=PIN)) as client:
        for line in HAND:
            assert client.post("/api/events", json={"line": line}, headers=AUTH).status_code == 200
        client.post("/api/undo", headers=AUTH)
        client.put("/api/names", json={"A": "Pepe", "B": "Tito"}, headers=AUTH)
        before = client.get("/api/state").json()
    first_store.close()
    with TestClient(create_app(Settings(), Store(path), pin=PIN)) as client:
        after = client.get("/api/state").json()
    assert lasting(after) == lasting(before)
    assert after["score"] == {"A": 4, "B": 0} and after["names"]["A"] == "Pepe"


def test_kill_9_and_restart_shows_the_same_score(serve: Any) -> None:
    client = serve.start()
    for line in HAND:
        assert client.post("/api/events", json={"line": line}, headers=AUTH).status_code == 200
    before = client.get("/api/state").json()
    assert before["score"] == {"A": 4, "B": 1}
    serve.kill9()
    client = serve.start()
    after = client.get("/api/state").json()
    assert lasting(after) == lasting(before)


def test_sigterm_closes_the_store_before_serve_ends(serve: Any) -> None:
    client = serve.start()
    for line in ("hand", "points A +3"):
        assert client.post("/api/events", json={"line": line}, headers=AUTH).status_code == 200
    serve.proc.send_signal(signal.SIGTERM)  # systemd stopping it, or a shutdown
    assert serve.proc.wait(timeout=20) == -signal.SIGTERM  # still ended by the signal
    # closed, not cut: the -wal copied into the file, which alone holds the game
    assert not (serve.data_dir / "scoreboard.sqlite3-wal").exists()
    store = Store(serve.data_dir / "scoreboard.sqlite3")
    try:
        game = store.current_game_id()
        assert game is not None and store.effective_lines(game) == ["hand", "points A +3"]
    finally:
        store.close()
    assert "terminado por la señal SIGTERM" in serve.proc.stdout.read().decode()


def post_until_stopped(client: httpx.Client, stop: threading.Event,
                       acknowledged: list[str]) -> None:
    """Post manual points without pause; remember each one the server said it applied."""
    cycle = ["points A +1", "points B +1", "points A -1", "points B -1"]
    n = 0
    while not stop.is_set():
        line = cycle[n % len(cycle)]
        try:
            response = client.post("/api/events", json={"line": line}, headers=AUTH)
        except httpx.TransportError:
            return
        if response.status_code == 200:
            acknowledged.append(line)
            n += 1
        elif response.status_code == 429:
            time.sleep(0.05)


def test_kill_9_in_the_middle_of_a_stream_of_events_loses_nothing_acknowledged(
        serve: Any) -> None:
    client = serve.start()
    client.post("/api/events", json={"line": "hand"}, headers=AUTH)
    acknowledged: list[str] = ["hand"]
    stop = threading.Event()
    poster = threading.Thread(target=post_until_stopped, args=(client, stop, acknowledged))
    poster.start()
    time.sleep(1.5)
    serve.kill9()  # while the poster is still sending
    stop.set()
    poster.join(timeout=10)
    assert len(acknowledged) > 10
    restored = serve.start().get("/api/state").json()["log"]
    assert restored[:len(acknowledged)] == acknowledged
    assert len(restored) <= len(acknowledged) + 1  # at most the one in flight when killed


def test_a_killed_game_can_still_be_listed_and_reopened(serve: Any) -> None:
    client = serve.start()
    client.post("/api/events", json={"line": "points B +7"}, headers=AUTH)
    first = client.get("/api/state").json()["game_id"]
    client.post("/api/games", json={}, headers=AUTH)
    serve.kill9()
    client = serve.start()
    games = client.get("/api/games").json()
    assert games["current"] != first and len(games["games"]) == 2
    reopened = client.post(f"/api/games/{first}/open", headers=AUTH).json()
    assert reopened["score"] == {"A": 0, "B": 7}


def test_serve_prints_the_address_and_the_pin(serve: Any) -> None:
    serve.start()
    serve.stop()
    assert serve.proc is not None and serve.proc.stdout is not None
    output = serve.proc.stdout.read().decode()
    assert f":{serve.port}/" in output and PIN in output


def test_a_stored_line_the_rules_now_refuse_is_left_out_with_a_warning(tmp_path: Path) -> None:
    store = Store(tmp_path / "scoreboard.sqlite3")
    game = store.create_game(Settings().to_dict(), {"A": "Nosotros", "B": "Ellos"})
    lines = ["hand", "A1: truco", "A1: vale nueve", "B1: quiero", "points B +3"]
    store.append(game, [LogEntry("apply", x, "page") for x in lines], {"A": 0, "B": 0}, None)
    with TestClient(create_app(Settings(), store, pin=PIN)) as client:
        snap = client.get("/api/state").json()
        assert snap["log"] == ["hand", "A1: truco", "B1: quiero", "points B +3"]
        assert snap["score"] == {"A": 0, "B": 3}
        assert len(snap["warnings"]) == 1 and "«A1: vale nueve»" in snap["warnings"][0]
        assert store.effective_lines(game) == snap["log"]  # the store now matches the game
        undone = client.post("/api/undo", headers=AUTH).json()
        assert undone["log"] == store.effective_lines(game) == snap["log"][:-1]
    store.close()


def test_stored_rules_that_no_longer_exist_fall_back_to_the_defaults(tmp_path: Path) -> None:
    store = Store(tmp_path / "scoreboard.sqlite3")
    store.create_game({"players": 5, "points": 30}, {"A": "Nosotros", "B": "Ellos"})
    with TestClient(create_app(Settings(), store, pin=PIN)) as client:
        snap = client.get("/api/state").json()
        assert snap["seats"] == ["A1", "B1"] and "reglas guardadas" in snap["warnings"][0]
    store.close()


def test_a_tap_after_the_data_folder_was_deleted_is_refused_not_acknowledged(
        tmp_path: Path) -> None:
    store = Store(tmp_path / "data" / "scoreboard.sqlite3")
    with TestClient(create_app(Settings(), store, pin=PIN)) as client:
        assert client.post("/api/events", json={"line": "hand"}, headers=AUTH).status_code == 200
        shutil.rmtree(tmp_path / "data")  # `rm -rf` of the data folder while serving
        refused = client.post("/api/events", json={"line": "points A +2"}, headers=AUTH)
        assert refused.status_code == 503
        assert refused.json()["error"]["message"].startswith(
            "no se pudo guardar: la carpeta de datos desapareció")
        assert client.get("/api/state").json()["score"] == {"A": 0, "B": 0}
    store.close()


def test_a_past_game_whose_rules_cannot_be_read_is_listed_downloaded_and_deleted(
        tmp_path: Path) -> None:
    path = tmp_path / "scoreboard.sqlite3"
    store = Store(path)
    with TestClient(create_app(Settings(), store, pin=PIN)) as client:
        client.post("/api/events", json={"line": "points B +7"}, headers=AUTH)
        past = client.get("/api/state").json()["game_id"]
        client.post("/api/games", json={}, headers=AUTH)
    store.close()
    db = sqlite3.connect(str(path), isolation_level=None)
    db.execute("UPDATE games SET settings = ? WHERE id = ?", ('{"points": 3\x01', past))
    db.close()
    store = Store(path, on_damage=lambda _: None)
    with TestClient(create_app(Settings(), store, pin=PIN)) as client:
        games = client.get("/api/games").json()["games"]
        assert [g.get("damaged", "")[:28] for g in games if g["id"] == past] == [
            "sus reglas guardadas están d"]
        assert client.get(f"/api/games/{past}/replay").status_code == 200
        opened = client.post(f"/api/games/{past}/open", headers=AUTH)
        assert opened.status_code == 503 and "no se abre" in opened.json()["error"]["message"]
        assert client.delete(f"/api/games/{past}", headers=AUTH).status_code == 200
        assert past not in [g["id"] for g in client.get("/api/games").json()["games"]]
    store.close()


def test_a_crash_python_cannot_catch_is_said_not_silent(serve: Any) -> None:
    """SQLite's memory-mapped -shm on a disk gone bad ends the process with SIGBUS: it says so
    (``cli._say_crashes``), where it ended with no word before."""
    serve.start()
    serve.proc.send_signal(signal.SIGBUS)
    assert serve.proc.wait(timeout=20) == -signal.SIGBUS
    assert "Fatal Python error: Bus error" in serve.proc.stdout.read().decode()
