"""How the microphone and the camera are doing, on the pages: part of every snapshot, published
once per change, never stored nor logged (it describes the running referee, not the game), and
kept across games."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from engine import Settings
from web_scoreboard import ActionError, TableService, create_app
from web_scoreboard.store import Store

UNPLUGGED = "no hay ningún micrófono conectado: enchufá uno; reintento en 2 s"


@pytest.fixture
def service(app: FastAPI) -> TableService:
    service: TableService = app.state.service
    return service


@pytest.fixture
def published(service: TableService, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The sequence numbers of the snapshots the pages are sent from now on."""
    sent: list[int] = []
    hub_publish: Callable[[int, str], None] = service.hub.publish

    def publish(seq: int, text: str) -> None:
        sent.append(seq)
        hub_publish(seq, text)

    monkeypatch.setattr(service.hub, "publish", publish)
    return sent


def test_each_part_shows_its_state_in_the_snapshot_microphone_first(service: TableService) -> None:
    assert service.snapshot()["sources"] == []  # nothing said yet: nothing shown
    service.set_source("camera", "ok", "cámara 0: sigue las cartas jugadas")
    service.set_source("mic", "trouble", UNPLUGGED)
    assert service.snapshot()["sources"] == [
        {"key": "mic", "state": "trouble", "message": UNPLUGGED},
        {"key": "camera", "state": "ok", "message": "cámara 0: sigue las cartas jugadas"}]
    service.set_source("mic", "ok", "escuchando")
    assert service.snapshot()["sources"][0] == {"key": "mic", "state": "ok", "message": "escuchando"}


def test_a_new_snapshot_only_when_something_changed(service: TableService,
                                                    published: list[int]) -> None:
    before = service.snapshot()["seq"]
    shown = service.set_source("mic", "trouble", UNPLUGGED)
    assert shown is not None and shown["seq"] == before + 1 and published == [before + 1]
    for _ in range(3):  # the microphone retries every 2 s and says the same each time
        assert service.set_source("mic", "trouble", UNPLUGGED) is None
    assert published == [before + 1] and service.snapshot()["seq"] == before + 1
    service.set_source("mic", "trouble", UNPLUGGED.replace("2 s", "4 s"))  # a new message
    service.set_source("mic", "ok", "escuchando")
    assert published == [before + 1, before + 2, before + 3]


def test_a_state_is_neither_stored_nor_logged_nor_kept_after_a_restart(
        make_app: Callable[..., FastAPI], store: Store) -> None:
    service: TableService = make_app().state.service
    service.submit_line("hand")
    stored: list[str] = []
    service.on_stored = lambda action, line, origin, score: stored.append(line)
    game = service.game_id
    service.set_source("mic", "trouble", UNPLUGGED)
    service.set_source("camera", "trouble", "la cámara 0 dejó de mandar imágenes; reintento en 2 s")
    assert stored == []  # not told to the terminal as a stored event
    assert [e.line for e in store.log(game)] == ["hand"]
    assert service.game_log(game) == [{"action": "apply", "line": "hand", "origin": "manual"}]
    assert service.snapshot()["heard"] == [] and service.snapshot()["log"] == ["hand"]
    again: TableService = create_app(Settings(), store, pin="2468").state.service
    assert again.snapshot()["sources"] == [] and again.snapshot()["log"] == ["hand"]


def test_the_states_stay_across_games(service: TableService) -> None:
    first = service.game_id
    service.set_source("mic", "trouble", UNPLUGGED)
    service.set_source("camera", "ok", "cámara 0")
    sources = service.snapshot()["sources"]
    assert service.new_game()["sources"] == sources
    assert service.open_game(first)["sources"] == sources
    service.set_names({"A": "Los Pibes", "B": "Ellos"})
    assert service.snapshot()["sources"] == sources


def test_a_tap_is_not_stale_because_the_microphone_came_back(service: TableService) -> None:
    """A page tapping «+1» while the microphone's news is on its way scores: the table is the
    one it showed.  A change of the table in between still makes the tap stale."""
    service.submit_line("hand")
    seen = service.snapshot()["seq"]
    service.set_source("mic", "trouble", UNPLUGGED)
    service.set_source("mic", "ok", "escuchando")
    assert service.submit_line("points A +1", "page", seen)["score"]["A"] == 1
    seen = service.snapshot()["seq"]
    service.submit_line("points B +1", "page")
    service.set_source("camera", "ok", "cámara 0")
    with pytest.raises(ActionError, match="la mesa cambió"):
        service.undo("page", seen)
    later = service.snapshot()["seq"]
    service.set_source("camera", "trouble", "la cámara 0 dejó de mandar imágenes; reintento en 2 s")
    assert service.undo("page", later)["log"] == ["hand", "points A +1"]


@pytest.mark.parametrize(("key", "state"), [("microphone", "ok"), ("mic", "bad"), ("mic C", "ok")])
def test_an_unknown_part_or_state_is_refused(service: TableService, key: str, state: str) -> None:
    with pytest.raises(ValueError, match=f"source '{key}' in state '{state}'"):
        service.set_source(key, state, "")
    assert service.snapshot()["sources"] == []


def test_parts_told_from_many_threads_publish_every_change_in_order(
        service: TableService, published: list[int]) -> None:
    def flap(key: str) -> None:
        for k in range(50):
            service.set_source(key, "ok" if k % 2 else "trouble", f"{key} {k}")

    threads = [threading.Thread(target=flap, args=(key,)) for key in ("mic A", "mic B", "camera")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(published) == 150 and published == sorted(published)
    assert service.snapshot()["sources"] == [
        {"key": key, "state": "ok", "message": f"{key} 49"} for key in ("mic A", "mic B", "camera")]


def test_the_pages_get_each_change_over_the_websocket(client: TestClient,
                                                      service: TableService) -> None:
    with client.websocket_connect("/ws") as ws:
        assert ws.receive_json()["sources"] == []
        service.set_source("camera", "trouble", "se detuvo: sin driver; se anota sin cámara")
        got = ws.receive_json()
        assert got["sources"] == [{"key": "camera", "state": "trouble",
                                   "message": "se detuvo: sin driver; se anota sin cámara"}]
        service.set_source("camera", "ok", "vuelvo a mirar las imágenes")
        assert ws.receive_json()["sources"][0]["state"] == "ok"
