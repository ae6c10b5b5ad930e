"""Nothing shown is ever lost: the state is rebuilt from the stored log, even after ``kill -9``."""

from __future__ import annotations

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
