"""A store that refuses to write (a full disk, a disk that fails): every page stays on what is
stored, says so in a banner until a change is stored again, and the terminal is told once."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from web_scoreboard import ActionError, Heard, TableService
from web_scoreboard.store import Store

PIN = "2468"
AUTH = {"X-Table-PIN": PIN}
FULL = "database or disk is full"


@pytest.fixture
def service(app: FastAPI) -> TableService:
    service: TableService = app.state.service
    return service


class Disk:
    """The store's connection, with a disk that refuses the next ``commits`` COMMITs (as a
    full disk does: the WAL is written at commit), and the next ``reads`` reads of a game's
    row after one (a disk that fails again as the game is read back)."""

    def __init__(self, db: sqlite3.Connection, commits: int = 1 << 30, reads: int = 0,
                 error: str = FULL) -> None:
        self._db, self.commits, self.reads, self.error = db, commits, reads, error
        self.refused = 0

    def execute(self, sql: str, *args: Any) -> Any:
        if sql == "COMMIT" and self.commits > 0:
            self.commits -= 1
            self.refused += 1
            self._db.execute("ROLLBACK")
            raise sqlite3.OperationalError(self.error)
        if sql.startswith("SELECT * FROM games") and self.refused and self.reads > 0:
            self.reads -= 1
            raise sqlite3.OperationalError(self.error)
        return self._db.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._db, name)


@contextmanager
def failing(store: Store, **how: Any) -> Iterator[Disk]:
    """The store on a ``Disk`` that fails as ``how`` says, then on its own again."""
    real = store._db
    disk = Disk(real, **how)
    store._db = disk  # type: ignore[assignment]
    try:
        yield disk
    finally:
        store._db = real


def told_terminal(service: TableService) -> list[tuple[str, str]]:
    said: list[tuple[str, str]] = []
    service.on_store_state = lambda state, words: said.append((state, words))
    return said


def two_games(service: TableService) -> None:
    """Game 1 at 3 to 0, game 2 (in play) at 0 to 2."""
    service.submit_line("hand")
    service.submit_line("points A +3")
    service.new_game()
    service.submit_line("hand")
    service.submit_line("points B +2")


def test_a_new_game_the_disk_refuses_leaves_the_game_in_play(service: TableService,
                                                             client: TestClient) -> None:
    two_games(service)
    before = service.snapshot()
    with failing(service.store), pytest.raises(
            ActionError, match="no se empezó la partida nueva: el disco está lleno") as refused:
        service.new_game()
    assert refused.value.status == 503 and refused.value.code == "store-failed"
    assert service.game_id == service.store.current_game_id() == before["game_id"]
    shown = service.snapshot()
    assert (shown["game_id"], shown["score"], shown["log"]) == (
        before["game_id"], before["score"], before["log"])
    assert client.get("/api/games").json()["current"] == before["game_id"]
    assert [g["id"] for g in client.get("/api/games").json()["games"]] == [2, 1]
    # the disk has room again: the game in play goes on, and its undo takes back its last line
    assert client.post("/api/events", json={"line": "points A +1"}, headers=AUTH).status_code == 200
    assert client.post("/api/undo", headers=AUTH).json()["score"] == {"A": 0, "B": 2}
    assert service.store.effective_lines(2) == ["hand", "points B +2"]


def test_a_game_the_disk_refuses_to_open_is_not_shown(service: TableService,
                                                      client: TestClient) -> None:
    two_games(service)
    with failing(service.store):
        refused = client.post("/api/games/1/open", headers=AUTH)
    assert refused.status_code == 503
    assert refused.json()["error"]["message"].startswith("no se abrió la partida 1: el disco")
    assert service.game_id == service.store.current_game_id() == 2
    assert client.get("/api/state").json()["game_id"] == 2
    assert client.get("/api/state").json()["score"] == {"A": 0, "B": 2}


def test_a_refused_change_whose_game_cannot_be_read_back_is_rebuilt_before_the_next(
        service: TableService) -> None:
    service.submit_line("hand")
    service.submit_line("points A +1")
    with failing(service.store, commits=1, reads=1), pytest.raises(
            ActionError, match="no se pudo guardar: el disco está lleno") as refused:
        service.submit_line("points A +5")
    assert not isinstance(refused.value, sqlite3.Error)
    assert service.snapshot()["score"] == {"A": 1, "B": 0}  # and the banner's snapshot so
    assert service.snapshot()["store"]["state"] == "trouble"
    service.submit_line("points B +1")  # the disk is fine again
    assert service.snapshot()["score"] == {"A": 1, "B": 1}
    assert list(service.table.lines) == service.store.effective_lines(service.game_id) == [
        "hand", "points A +1", "points B +1"]
    assert service.snapshot()["store"] == {"state": "ok", "message": ""}


def test_while_the_game_cannot_be_read_back_every_change_is_refused(
        service: TableService) -> None:
    service.submit_line("hand")
    with failing(service.store, commits=1, reads=2, error="disk I/O error"):
        with pytest.raises(ActionError, match="no se pudo guardar"):
            service.submit_line("points A +5")
        with pytest.raises(ActionError, match="no se puede leer la partida guardada") as refused:
            service.submit_line("points B +1")
        assert refused.value.code == "store-failed"
    service.submit_line("points B +1")
    assert service.store.effective_lines(service.game_id) == ["hand", "points B +1"]
    assert service.snapshot()["score"] == {"A": 0, "B": 1}


def test_a_store_failure_over_the_websocket_is_answered_and_the_page_stays_connected(
        service: TableService, client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_: Any, **__: Any) -> dict[str, Any]:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(service, "submit_line", broken)
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_json({"action": "event", "line": "hand", "pin": PIN, "id": 3})
        reply = ws.receive_json()
        assert reply["id"] == 3 and reply["error"]["code"] == "store-failed"
        assert "el disco falló" in reply["error"]["message"]
        ws.send_json({"action": "ping", "id": 4})
        assert ws.receive_json()["ok"] is True


def test_every_page_says_the_store_refuses_until_a_change_is_stored(
        service: TableService, client: TestClient) -> None:
    said = told_terminal(service)
    assert service.snapshot()["store"] == {"state": "ok", "message": ""}
    service.submit_line("hand")
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        with failing(service.store):
            for line in ("points A +1", "points B +1"):
                with pytest.raises(ActionError, match="el disco está lleno"):
                    service.submit_line(line)
        shown = ws.receive_json()
        while shown["store"]["state"] == "ok":  # the table put back, then the banner
            shown = ws.receive_json()
        assert shown["store"] == {"state": "trouble", "message": (
            "No se puede guardar: el disco está lleno. Lo que se oye y lo que se toca no se "
            "anota hasta que haya lugar.")}
        assert [state for state, _ in said] == ["trouble"]  # once, for two taps refused
        assert FULL in said[0][1] and "hasta que haya lugar" in said[0][1]
        seen = service.snapshot()["seq"]
        service.submit_line("points A +1", seen=seen)  # a tap on the banner's page is not stale
        assert service.snapshot()["store"] == {"state": "ok", "message": ""}
        assert [state for state, _ in said] == ["trouble", "ok"]


def test_a_heard_call_the_store_refuses_is_not_kept_as_refused_by_the_rules(
        service: TableService) -> None:
    service.submit_line("hand")

    def refuse(*_: Any, **__: Any) -> None:
        raise sqlite3.OperationalError(FULL)

    store = service.store
    append: Callable[..., None] = store.append
    store.append = refuse  # type: ignore[method-assign]
    try:
        with pytest.raises(ActionError, match="el disco está lleno"):
            service.record_heard(Heard("truco", "accepted", line="A1: truco", team="A"))
    finally:
        store.append = append  # type: ignore[method-assign]
    assert store.heard(service.game_id) == []  # not noted, not even as refused
    assert service.snapshot()["heard"] == []
    assert service.snapshot()["store"]["state"] == "trouble"
    assert list(service.table.lines) == store.effective_lines(service.game_id) == ["hand"]


def test_a_call_heard_while_the_disk_is_full_is_not_shown_as_noted(service: TableService) -> None:
    service.submit_line("hand")
    with failing(service.store), pytest.raises(ActionError, match="el disco está lleno"):
        service.hear("truco", "A", clip=b"\0\0" * 800)
    assert service.snapshot()["heard"] == [] and service.store.heard(service.game_id) == []
    assert service.snapshot()["store"]["state"] == "trouble"
    assert list(service.table.lines) == ["hand"]
