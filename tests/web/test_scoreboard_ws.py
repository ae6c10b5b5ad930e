"""The scoreboard's WebSocket: a full snapshot on connect and after every change, checked commands."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from web_scoreboard import Heard
from web_scoreboard.access import RateLimit

PIN = "2468"
Post = Callable[..., httpx.Response]


def receive_until(ws: WebSocketTestSession, wanted: Callable[[dict[str, Any]], bool],
                  limit: int = 10) -> list[dict[str, Any]]:
    """Messages up to and including the first one ``wanted`` accepts."""
    seen = []
    for _ in range(limit):
        message = ws.receive_json()
        seen.append(message)
        if wanted(message):
            return seen
    raise AssertionError(f"no wanted message in {seen}")


def is_error(message: dict[str, Any]) -> bool:
    return "error" in message


def test_every_page_gets_a_snapshot_on_connect_and_after_each_event(client: TestClient,
                                                                    post: Post) -> None:
    with client.websocket_connect("/ws") as first, client.websocket_connect("/ws") as second:
        initial = [first.receive_json(), second.receive_json()]
        assert initial[0] == initial[1] == client.get("/api/state").json()
        for line in ("hand", "A1: truco", "B1: quiero"):
            answer = post(client, line).json()
            for ws in (first, second):
                snap = ws.receive_json()
                assert snap == answer
        assert snap["hand"]["truco"]["level"] == 2
        assert [s["seq"] for s in initial] == [answer["seq"] - 3] * 2


def test_heard_items_reach_the_pages(app: FastAPI, client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        app.state.service.record_heard(Heard("turco", "rejected", reason="«turco» no es truco"))
        snap = ws.receive_json()
        assert snap["heard"][0]["text"] == "turco"
        assert snap["heard"][0]["reason"] == "«turco» no es truco"


def test_a_command_over_the_socket_is_applied_and_answered(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_json({"action": "event", "line": "hand", "pin": PIN, "id": 7})
        messages = [ws.receive_json(), ws.receive_json()]  # the answer and the broadcast
        snaps = [m for m in messages if "score" in m]
        replies = [m for m in messages if m.get("ok")]
        assert replies == [{"ok": True, "id": 7, "seq": snaps[0]["seq"]}]
        assert snaps[0]["log"] == ["hand"]


def assert_refused(client: TestClient, ws: WebSocketTestSession, payload: str | bytes,
                   code: str) -> dict[str, Any]:
    before = client.get("/api/state").json()
    if isinstance(payload, bytes):
        ws.send_bytes(payload)
    else:
        ws.send_text(payload)
    error = ws.receive_json()
    assert error["error"]["code"] == code, error
    assert error["error"]["message"]
    assert client.get("/api/state").json() == before
    return dict(error)


def test_malformed_json_on_the_socket(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        assert_refused(client, ws, '{"action": "event", "line": ', "malformed-json")
        assert_refused(client, ws, b"\xff\xfe", "malformed-json")


def test_unknown_action_on_the_socket(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        error = assert_refused(client, ws, json.dumps({"action": "win", "pin": PIN, "id": "x1"}),
                               "unknown-action")
        assert error["id"] == "x1"
        assert_refused(client, ws, json.dumps({"line": "hand", "pin": PIN}), "missing-action")


def test_wrong_pin_on_the_socket(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        message = {"action": "event", "line": "hand", "pin": "1111"}
        assert_refused(client, ws, json.dumps(message), "wrong-pin")
        assert_refused(client, ws, json.dumps({"action": "undo"}), "pin-required")


def test_oversized_message_on_the_socket(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        message = {"action": "event", "line": "hand", "pin": PIN, "id": "p" * 5000}
        assert_refused(client, ws, json.dumps(message), "too-large")
        ws.send_json({"action": "event", "line": "hand", "pin": PIN})
        assert receive_until(ws, lambda m: m.get("ok") is True)


def test_the_socket_keeps_working_after_refusals(client: TestClient, post: Post) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        assert_refused(client, ws, "not json", "malformed-json")
        answer = post(client, "hand").json()
        assert ws.receive_json() == answer


def test_a_page_that_sends_too_fast_is_slowed_down(make_app: Callable[..., FastAPI]) -> None:
    app = make_app(rate_limit=RateLimit(per_second=0.01, burst=2))
    with TestClient(app) as client, client.websocket_connect("/ws") as ws:
        ws.receive_json()
        for _ in range(2):
            ws.send_json({"action": "event", "line": "points A +1", "pin": PIN})
            answer, broadcast = ws.receive_json(), ws.receive_json()
            assert {answer.get("ok"), broadcast.get("ok")} == {True, None}
        before = client.get("/api/state").json()
        message = json.dumps({"action": "event", "line": "points A +1", "pin": PIN})
        assert_refused(client, ws, message, "rate-limited")
        assert before["score"]["A"] == 2


def test_pages_get_updates_even_when_the_app_runs_without_its_lifespan(app: FastAPI,
                                                                       post: Post) -> None:
    client = TestClient(app)  # not entered: no start-up hooks
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        answer = post(client, "hand").json()
        assert ws.receive_json() == answer
