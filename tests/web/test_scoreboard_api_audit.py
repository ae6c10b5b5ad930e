"""What a real table does to the API: Safari's range requests for a clip, a page that never reads."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from web_scoreboard import Heard
from web_scoreboard.hub import Subscriber

CLIP = b"RIFF" + bytes(range(256)) * 4  # 1028 bytes


def clip_url(app: FastAPI) -> str:
    heard = app.state.service.record_heard(
        Heard("turco", "rejected", reason="«turco» no es truco", clip=CLIP))
    return f"/api/clips/{heard['clip_id']}"


@pytest.mark.parametrize(("asked", "first", "last"), [
    ("bytes=0-1", 0, 1),  # Safari's first question, before it plays anything
    ("bytes=1000-", 1000, 1027),
    ("bytes=1000-5000", 1000, 1027),
    ("bytes=-28", 1000, 1027),
])
def test_a_clip_is_given_by_the_byte_range_asked(app: FastAPI, client: TestClient, asked: str,
                                                 first: int, last: int) -> None:
    got = client.get(clip_url(app), headers={"Range": asked})
    assert got.status_code == 206
    assert got.headers["content-range"] == f"bytes {first}-{last}/{len(CLIP)}"
    assert got.content == CLIP[first:last + 1]


@pytest.mark.parametrize("asked", ["", "bytes=0-1,4-5", "bytes=5-2", "items=0-1", "bytes=-"])
def test_a_clip_asked_whole_or_by_ranges_it_does_not_serve_comes_whole(
        app: FastAPI, client: TestClient, asked: str) -> None:
    got = client.get(clip_url(app), headers={"Range": asked} if asked else {})
    assert got.status_code == 200 and got.content == CLIP
    assert got.headers["accept-ranges"] == "bytes"


@pytest.mark.parametrize("asked", ["bytes=1028-", "bytes=5000-6000", "bytes=-0"])
def test_a_range_past_the_clip_s_end_is_refused_in_words(app: FastAPI, client: TestClient,
                                                        asked: str) -> None:
    got = client.get(clip_url(app), headers={"Range": asked})
    assert got.status_code == 416 and got.headers["content-range"] == f"bytes */{len(CLIP)}"
    assert got.json()["error"] == {"code": "bad-range", "message": "el rango pedido cae fuera "
                                   "del archivo, que tiene 1028 bytes"}


def test_a_page_that_sends_and_never_reads_is_let_go_not_kept_growing() -> None:
    async def never(_: str) -> None:  # its sender never gets to run: the page reads nothing
        raise AssertionError("not sent")

    page = Subscriber(send=never, max_pending=4)
    taken = [page.reply(f'{{"ok": true, "id": {n}}}') for n in range(10)]
    assert taken == [True] * 4 + [False] * 6
    assert len(page.pending) == 4 and page.closed


@pytest.mark.parametrize(("method", "path", "body", "status", "error"), [
    ("POST", "/api/events", "[" * 2000 + "]" * 2000, 400,
     {"code": "malformed-json", "message": "el mensaje no es JSON válido"}),
    ("GET", "/api/nope", None, 404, {"code": "not-found", "message": "no hay nada en /api/nope"}),
    ("DELETE", "/api/state", None, 405,
     {"code": "wrong-method", "message": "/api/state no se pide con DELETE"}),
])
def test_the_frameworks_own_refusals_are_said_in_spanish(
        client: TestClient, method: str, path: str, body: str | None, status: int,
        error: dict[str, str]) -> None:
    got = client.request(method, path, content=body, headers={
        "X-Table-PIN": "2468", "Content-Type": "application/json"})
    assert got.status_code == status and got.json() == {"error": error}
    assert client.get("/api/state").json()["log"] == []
