"""Input the scoreboard must refuse cleanly, and changes the store cannot keep: a coded error,
never a crash, and nothing changed."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from engine import Settings
from web_scoreboard import Heard, create_app
from web_scoreboard.store import Store

PIN = "2468"
AUTH = {"X-Table-PIN": PIN}
Post = Callable[..., httpx.Response]
DEEP = "[" * 2000 + "]" * 2000  # valid JSON, under the size limit, nested past Python's stack
TOO_BIG_ID = 99999999999999999999  # more than SQLite's 64-bit integers


def state(client: TestClient) -> dict[str, Any]:
    return dict(client.get("/api/state").json())


def the_table(snap: dict[str, Any]) -> dict[str, Any]:
    """A snapshot but for its number and whether the store writes (a refusal shows both)."""
    return {key: value for key, value in snap.items() if key not in ("seq", "store")}


def error_code(response: httpx.Response) -> str:
    return str(response.json()["error"]["code"])


def test_json_nested_too_deep_is_malformed_json(client: TestClient) -> None:
    before = state(client)
    deep_id = '{"action": "undo", "id": ' + "[" * 1500 + "]" * 1500 + "}"
    for body in (DEEP, deep_id):
        response = client.post("/api/actions", content=body, headers=AUTH)
        assert response.status_code == 400 and error_code(response) == "malformed-json"
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_text(DEEP)
        assert ws.receive_json()["error"]["code"] == "malformed-json"
        ws.send_json({"action": "event", "line": "hand", "pin": PIN, "id": 3})  # still open
        replies = [ws.receive_json(), ws.receive_json()]
        assert {"ok": True, "id": 3, "seq": before["seq"] + 1} in replies
    assert state(client)["log"] == ["hand"]


@pytest.mark.parametrize("method, path", [
    ("GET", f"/api/games/{TOO_BIG_ID}/log"),
    ("POST", f"/api/games/{TOO_BIG_ID}/open"),
    ("POST", f"/api/heard/{TOO_BIG_ID}/confirm"),
    ("POST", f"/api/heard/{TOO_BIG_ID}/dismiss"),
])
def test_an_id_too_large_for_the_store_is_refused(client: TestClient, method: str,
                                                  path: str) -> None:
    response = client.request(method, path, headers=AUTH)
    assert response.status_code == 422 and error_code(response) == "invalid"


@pytest.mark.parametrize("message", [
    {"action": "open-game", "game_id": TOO_BIG_ID},
    {"action": "confirm", "heard_id": TOO_BIG_ID},
    {"action": "dismiss", "heard_id": -TOO_BIG_ID},
])
def test_an_id_too_large_for_the_store_is_refused_over_the_socket(
        client: TestClient, message: dict[str, Any]) -> None:
    before = state(client)
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_text(json.dumps({**message, "pin": PIN, "id": 1}))
        reply = ws.receive_json()
        assert reply["error"]["code"] == "invalid" and reply["id"] == 1
    assert state(client) == before


def test_an_unsure_call_of_a_hand_that_ended_cannot_be_confirmed(
        app: FastAPI, client: TestClient, post: Post) -> None:
    service = app.state.service

    def hear_unsure(text: str) -> dict[str, Any]:
        [row] = service.hear(text, confidence=lambda start, end: 0.3, needed=lambda call: 0.6)
        assert row["status"] == "unsure"
        return dict(row)

    post(client, "hand")
    gone = hear_unsure("envido")
    assert state(client)["heard"][0]["instead"] == ["real envido", "falta envido"]
    old = hear_unsure("truco")
    post(client, "round A")
    post(client, "round A")
    before = state(client)
    # nor as a longer call: none is offered any more
    assert [h["instead"] for h in before["heard"] if h["id"] == gone["id"]] == [[]]
    refused = client.post(f"/api/heard/{old['id']}/confirm", headers=AUTH)
    assert refused.status_code == 409 and error_code(refused) == "hand-over"
    assert "una mano que ya terminó" in refused.json()["error"]["message"]
    assert state(client) == before  # no hand dealt, nothing applied
    # heard after the hand ended, it belongs to the next hand: confirming it deals that hand
    after_end = hear_unsure("truco")
    dealt = client.post(f"/api/heard/{after_end['id']}/confirm", headers=AUTH).json()
    assert dealt["hand"]["number"] == 2 and dealt["log"][-2:] == ["hand", after_end["line"]]
    # and within the hand it was heard in, a confirm still works
    envido = hear_unsure("envido")
    confirmed = client.post(f"/api/heard/{envido['id']}/confirm", headers=AUTH).json()
    assert confirmed["log"][-1] == envido["line"]


def test_the_snapshot_says_when_a_doubtful_call_can_no_longer_be_confirmed(
        app: FastAPI, client: TestClient, post: Post) -> None:
    """The page offers no «Confirmar» the server would refuse: the snapshot tells, with the item,
    why a tap cannot apply it any more (``late``), by the same rule the confirm goes by."""
    service = app.state.service

    def hear_unsure(text: str) -> int:
        [row] = service.hear(text, confidence=lambda start, end: 0.3, needed=lambda call: 0.6)
        assert row["status"] == "unsure"
        return int(row["id"])

    def shown(heard_id: int) -> dict[str, Any]:
        [item] = [h for h in state(client)["heard"] if h["id"] == heard_id]
        return dict(item)

    post(client, "hand")
    old = hear_unsure("envido")
    assert shown(old)["late"] is None and shown(old)["instead"]  # its hand still in play
    post(client, "round A")
    post(client, "round A")
    assert shown(old)["late"] == "ya pasó la mano: si se dijo en esta, anotalo con los botones"
    assert shown(old)["instead"] == [] and shown(old)["status"] == "unsure"
    refused = client.post(f"/api/heard/{old}/confirm", headers=AUTH)
    assert refused.status_code == 409 and error_code(refused) == "hand-over"
    post(client, "hand")
    live = hear_unsure("truco")
    assert shown(live)["late"] is None
    post(client, "points A +30")  # the game is over: nothing is confirmed any more
    assert shown(live)["late"] == "ya terminó la partida"
    assert client.post(f"/api/heard/{live}/confirm", headers=AUTH).status_code >= 400
    client.post("/api/undo", headers=AUTH).raise_for_status()  # the win taken back
    assert shown(live)["late"] is None
    assert client.post(f"/api/heard/{live}/confirm", headers=AUTH).status_code == 200
    assert "late" not in shown(live)  # applied: nothing waits


def chunked(body: bytes, size: int = 512) -> Iterator[bytes]:
    """The body in pieces, sent with Transfer-Encoding: chunked (no Content-Length)."""
    for start in range(0, len(body), size):
        yield body[start:start + size]


@pytest.mark.parametrize("method, path", [
    ("PUT", "/api/names"), ("POST", "/api/events"), ("POST", "/api/settings"),
    ("POST", "/api/games"), ("PUT", "/api/pin"), ("POST", "/api/actions"),
])
def test_a_chunked_body_over_the_limit_is_too_large(client: TestClient, method: str,
                                                    path: str) -> None:
    before = state(client)
    body = json.dumps({"line": "x" * 5000}).encode()
    response = client.request(method, path, content=chunked(body),
                              headers={**AUTH, "Content-Type": "application/json"})
    assert "content-length" not in response.request.headers
    assert response.status_code == 413 and error_code(response) == "too-large"
    assert state(client) == before


def test_a_chunked_body_under_the_limit_is_taken(client: TestClient) -> None:
    response = client.post("/api/events", content=chunked(b'{"line": "hand"}', 4),
                           headers={**AUTH, "Content-Type": "application/json"})
    assert response.status_code == 200 and response.json()["log"] == ["hand"]


class LockedStore(Store):
    """A store whose database another program holds locked, when told to."""

    locked = False

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        if self.locked:
            raise sqlite3.OperationalError("database is locked")
        with super()._transaction() as db:
            yield db


def test_a_change_the_store_cannot_write_answers_store_failed_and_changes_nothing(
        tmp_path: Path) -> None:
    store = LockedStore(tmp_path / "db.sqlite3")
    names = {"A": "Los de acá", "B": "Visita"}
    app = create_app(Settings(), store, pin=PIN)
    with TestClient(app) as client:
        unsure = app.state.service.record_heard(Heard("truco?", "unsure", line="A1: truco"))
        before = state(client)
        store.locked = True
        for response in (
                client.put("/api/names", json=names, headers=AUTH),
                client.post("/api/games", headers=AUTH),
                client.post(f"/api/games/{before['game_id']}/open", headers=AUTH),
                client.post(f"/api/heard/{unsure['id']}/dismiss", headers=AUTH),
                client.put("/api/pin", json={"pin": "1357"}, headers=AUTH)):
            assert response.status_code == 503 and error_code(response) == "store-failed"
            assert the_table(state(client)) == the_table(before)
        assert state(client)["store"]["state"] == "trouble"  # and every page says so
        store.locked = False
        assert client.put("/api/names", json=names, headers=AUTH).json()["names"] == names
    store.close()
    reopened = Store(tmp_path / "db.sqlite3")
    with TestClient(create_app(Settings(), reopened, pin=PIN)) as client:
        assert state(client)["names"] == names
    reopened.close()


@pytest.mark.parametrize("value", ["0", "31", "99999999999999999999999"])
def test_a_rule_set_in_the_log_keeps_to_the_settings_bounds(client: TestClient, post: Post,
                                                            value: str) -> None:
    before = state(client)
    response = post(client, f"set contraflor_points {value}")
    assert response.status_code == 422 and error_code(response) == "line-rejected"
    assert "contraflor_points va de 1 a 30" in response.json()["error"]["message"]
    assert state(client) == before
    assert post(client, "set contraflor_points 30").json()["settings"]["contraflor_points"] == 30


def test_a_store_failing_during_play_is_said_in_words(client: TestClient, store: Store) -> None:
    broken = store._db
    store._db = sqlite3.connect(":memory:", check_same_thread=False)  # no tables: every read fails
    try:
        response = client.get("/api/games/1/log", headers={"X-Table-PIN": PIN})
    finally:
        store._db.close()
        store._db = broken
    assert response.status_code == 503
    message = response.json()["error"]["message"]
    assert message.startswith("los tanteadores guardados fallaron: la base de datos falló")
