"""A change the disk refuses half-way is not made at all: the line, the heard item's verdict and
its clip are stored together or not, and the pages are told only what is stored."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from fastapi import FastAPI

from web_scoreboard import ActionError, Heard, TableService
from web_scoreboard.store import Store


@pytest.fixture
def service(app: FastAPI) -> TableService:
    service: TableService = app.state.service
    service.start()
    return service


@contextmanager
def full_disk(store: Store, write: str) -> Iterator[None]:
    """The store's ``write`` refused as a full disk refuses it; every other write goes in."""
    def refuse(*_: Any, **__: Any) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    kept = getattr(store, write)
    setattr(store, write, refuse)
    try:
        yield
    finally:
        setattr(store, write, kept)


def stored(service: TableService) -> list[str]:
    return service.store.effective_lines(service.game_id)


def heard_call(service: TableService, line: str, status: str = "accepted") -> dict[str, Any]:
    return service.record_heard(Heard(text=line.split(": ")[1], status=status, line=line,
                                      clip=b"\0\0" * 800))


def test_an_undo_refused_half_way_takes_back_nothing_and_a_second_tap_is_stale(
        service: TableService) -> None:
    service.submit_line("hand")
    service.submit_line("points B +1")
    heard_call(service, "B1: envido")
    seen = service.snapshot()["seq"]
    with full_disk(service.store, "set_heard_status"), pytest.raises(ActionError, match="lleno"):
        service.undo(seen=seen)  # the undo row goes in, the heard item's «deshecho» does not
    assert stored(service) == list(service.table.lines) == ["hand", "points B +1", "B1: envido"]
    assert service.snapshot()["seq"] > seen  # the pages are shown the table as it is
    with pytest.raises(ActionError, match="la mesa cambió"):
        service.undo(seen=seen)  # the same tap again takes back nothing more
    assert stored(service) == ["hand", "points B +1", "B1: envido"]


def test_a_confirm_refused_half_way_applies_nothing_and_can_be_made_again(
        service: TableService) -> None:
    for line in ("hand", "A1: envido", "B1: quiero"):
        service.submit_line(line)
    item = heard_call(service, "A1: 28", status="unsure")
    with full_disk(service.store, "set_heard_status"), pytest.raises(ActionError):
        service.confirm_heard(item["id"])
    assert stored(service) == list(service.table.lines) == ["hand", "A1: envido", "B1: quiero"]
    assert service.store.heard_item(item["id"]).status == "unsure"
    service.confirm_heard(item["id"])
    assert stored(service)[-1:] == ["A1: 28"]  # once, by the seat whose turn it is


@pytest.mark.parametrize("write", ["put_clip", "add_heard"])
def test_a_heard_call_whose_evidence_is_refused_is_not_applied(
        service: TableService, write: str) -> None:
    service.submit_line("hand")
    shown: list[str] = []
    service.on_stored = lambda action, line, origin, score: shown.append(line)
    with full_disk(service.store, write), pytest.raises(ActionError, match="no se pudo guardar"):
        heard_call(service, "A1: truco")
    assert stored(service) == list(service.table.lines) == ["hand"]
    assert shown == []  # nor told to the terminal as stored
    assert all(h["text"] != "truco" for h in service.snapshot()["heard"])
    heard_call(service, "A1: truco")
    assert stored(service) == ["hand", "A1: truco"] and shown == ["A1: truco"]


def test_a_change_refused_at_commit_is_not_shown(service: TableService,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    service.submit_line("hand")
    published: list[str] = []
    hub_publish: Callable[[int, str], None] = service.hub.publish
    monkeypatch.setattr(service.hub, "publish",
                        lambda seq, text: (published.append(text), hub_publish(seq, text)))
    real = service.store._db
    service.store._db = RefusesCommit(real)  # type: ignore[assignment]
    try:
        with pytest.raises(ActionError, match="no se pudo guardar: el disco está lleno"):
            service.submit_line("A1: truco")
    finally:
        service.store._db = real
    assert stored(service) == list(service.table.lines) == ["hand"]
    assert published and not any("A1: truco" in text for text in published)
    assert "A1: truco" not in service.current()[1]


class RefusesCommit:
    """A connection whose COMMIT fails as on a full disk (the WAL is written at commit)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def execute(self, sql: str, *args: Any) -> Any:
        if sql == "COMMIT":
            raise sqlite3.OperationalError("database or disk is full")
        return self._db.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._db, name)


def test_a_page_from_before_a_restart_cannot_name_a_snapshot_of_the_new_server(
        make_app: Callable[..., FastAPI]) -> None:
    before: TableService = make_app().state.service
    before.start()
    before.submit_line("hand")
    before.submit_line("round A")
    old_seq = before.snapshot()["seq"]
    after: TableService = make_app().state.service  # the server started again on the same store
    after.start()
    while after.snapshot()["seq"] < old_seq:  # as many changes since the restart as before it
        after.submit_line("points B +1")
    with pytest.raises(ActionError, match="la mesa cambió"):
        after.undo(seen=old_seq)  # the old page's undo takes nothing back
    assert after.snapshot()["seq"] > old_seq
