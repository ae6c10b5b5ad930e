"""The snapshots the pages are shown: numbered, made of the game in play, the heard strip and how
the referee's ears and eyes are doing, and pushed to every page through the hub.

``Snapshots`` is not thread-safe: the ``TableService`` holds its lock around every change.
"""

from __future__ import annotations

import json
import secrets
import time
from typing import Any, Protocol

from web_scoreboard.errors import ActionError
from web_scoreboard.game_in_play import GameInPlay, is_call
from web_scoreboard.heard_strip import HeardStrip, may_be_confirmed
from web_scoreboard.hub import Hub


class Doubts(Protocol):
    """What a snapshot tells of a heard item a tap may still apply (``HeardCalls``)."""

    def instead(self, item: dict[str, Any]) -> list[str]:
        """The longer calls it may be confirmed as."""

    def too_late(self, item: dict[str, Any], game_over: bool) -> str | None:
        """Why it can no longer be confirmed (None while it can)."""


# The referee's ears and eyes, in the order the pages show them (``TableService.set_source``).
SOURCE_KEYS = ("mic", "mic A", "mic B", "camera")
SOURCE_STATES = ("ok", "poor", "trouble", "off")


def source_state(key: str, state: str, message: str = "") -> dict[str, str]:
    """How a source is doing, as a snapshot shows it; ValueError for a key not in
    ``SOURCE_KEYS`` or a state not in ``SOURCE_STATES``."""
    if key not in SOURCE_KEYS or state not in SOURCE_STATES:
        raise ValueError(f"source {key!r} in state {state!r}: the key is one of "
                         f"{', '.join(SOURCE_KEYS)} and the state {', '.join(SOURCE_STATES)}")
    return {"key": key, "state": state, "message": message}


# Whether what is heard and tapped is being stored (``TableService``: a change the disk refused
# makes it "trouble", the next change stored makes it "ok" again).
STORE_STATES = ("ok", "trouble")


def store_state(state: str, message: str = "") -> dict[str, str]:
    """Whether the store takes the changes, as a snapshot shows it; ValueError for a state not in
    ``STORE_STATES``."""
    if state not in STORE_STATES:
        raise ValueError(f"store state {state!r}: one of {', '.join(STORE_STATES)}")
    return {"state": state, "message": message}


class Snapshots:
    """The snapshots of this running server: the latest one shown, and what the next shows."""

    def __init__(self, hub: Hub, log_limit: int = 1000) -> None:
        self._hub = hub
        self._log_limit = log_limit
        # Snapshots are numbered on from the boot's millisecond, not from 0: a page still showing
        # a snapshot of the server before a restart can never name one of this server's
        # (``require_seen``), and the numbers keep growing across restarts.
        self._seq = time.time_ns() // 1_000_000
        # The snapshot the table last changed in: those made since for the sources alone
        # (``set_source``) show the same table, and a tap on one of them is not stale.
        self._table_seq = self._seq
        self._boot = secrets.token_hex(4)
        self._sources: dict[str, dict[str, str]] = {}
        self._store = store_state("ok")
        # Whether the data folder runs low on room (``room.RoomWatch``), and what to say of it.
        self._room = {"low": False, "message": ""}
        # The voices' calibration from the tablet (``TableService.set_calibration``); None when
        # this server has no microphone to calibrate with.
        self._calibration: dict[str, Any] | None = None
        self._current: tuple[int, str, dict[str, Any]] = (0, "{}", {})

    def snapshot(self) -> dict[str, Any]:
        """The latest snapshot shown."""
        return self._current[2]

    def current(self) -> tuple[int, str]:
        """The latest snapshot's sequence number and JSON text."""
        seq, text, _ = self._current
        return seq, text

    def require_seen(self, seen: int | None) -> None:
        """A change the page asked for while it showed snapshot ``seen``: refused if the table
        changed since (a double tap, or another tablet was quicker), so it never takes back a
        line the person did not see, nor scores twice what two people tapped once.  A snapshot
        that only said how the microphone or the camera is doing shows the same table."""
        if seen is not None and not self._table_seq <= seen <= self._seq:
            raise ActionError("stale", "la mesa cambió desde que la miraste: fijate cómo quedó y "
                              "volvé a tocar si hace falta", 409)

    def set_source(self, source: dict[str, str]) -> bool:
        """Keep how a source is doing (``source_state``) for the snapshots to come; False if it
        was doing so already."""
        if self._sources.get(source["key"]) == source:
            return False
        self._sources[source["key"]] = source
        return True

    def set_store(self, state: dict[str, str]) -> bool:
        """Keep whether the store takes the changes (``store_state``) for the snapshots to come;
        False if it was so already."""
        if self._store == state:
            return False
        self._store = dict(state)
        return True

    def set_room(self, low: bool, message: str) -> bool:
        """Keep whether the data folder runs low on room for the snapshots to come; False if
        it was so already."""
        room = {"low": low, "message": message}
        if self._room == room:
            return False
        self._room = room
        return True

    def set_calibration(self, state: dict[str, Any] | None) -> bool:
        """Keep how the voices' calibration is going for the snapshots to come; False if it
        was going so already."""
        if self._calibration == state:
            return False
        self._calibration = None if state is None else dict(state)
        return True

    def make(self, game: GameInPlay, strip: HeardStrip, doubts: Doubts,
             table: bool = True) -> tuple[int, str, dict[str, Any]]:
        """The next snapshot: its number, its JSON text and itself; ``doubts`` tells of a
        doubtful heard item (``_heard_item``); ``table`` False for one that changes only the
        sources, the calibration or the store's state (``set_source``): the table as the last
        snapshot showed it (after a change the store refused, the Table in memory may not be
        put back yet: ``Changes.settle``)."""
        last = self._current[2]
        self._seq += 1
        if table or not last:
            self._table_seq = self._seq
            snap = self._build(game, strip, doubts)
        else:
            snap = {**last, **self._own(), "seq": self._seq}
        text = json.dumps(snap, ensure_ascii=False, separators=(",", ":"))
        return self._seq, text, snap

    def show(self, current: tuple[int, str, dict[str, Any]]) -> None:
        """Make a snapshot the latest one and push it to every page."""
        self._current = current
        self._hub.publish(current[0], current[1])

    @staticmethod
    def _heard_item(item: dict[str, Any], doubts: Doubts, game_over: bool) -> dict[str, Any]:
        """A heard item as shown; one a tap may still apply with the longer calls it may be
        confirmed as (``instead``) and, once its hand or the game ended, why it can no longer be
        (``late``, else None): the server would refuse the tap, so the page offers none and does
        not count it as waiting."""
        if not may_be_confirmed(item):
            return item
        late = doubts.too_late(item, game_over)
        return {**item, "instead": [] if late else doubts.instead(item), "late": late}

    def _build(self, game: GameInPlay, strip: HeardStrip, doubts: Doubts) -> dict[str, Any]:
        table = game.table
        snap = dict(table.snapshot())
        log = list(snap.get("log") or table.lines)
        last = table.lines[-1] if table.lines else None
        snap.update(
            seq=self._seq, boot=self._boot, game_id=game.game_id, names=dict(game.names),
            heard=[self._heard_item(h, doubts, bool(snap.get("winner"))) for h in strip.shown()],
            pin_required=True, warnings=game.warnings,
            log=log[-self._log_limit:], log_total=len(log), last_line=last,
            can_undo=last is not None, can_flip=last is not None and is_call(last),
            swap_to=table.opposite_answer(), longer_than_last=table.longer_than_last(),
            partners=table.partners_of_last(),
            guess=strip.guess_of_last(table.lines),
        )
        snap.update(self._own())
        return snap

    def _own(self) -> dict[str, Any]:
        """What a snapshot says of this running server rather than of the table: how the
        referee's ears and eyes are doing, the voices' calibration, whether the store writes
        and has room."""
        return {
            "sources": [dict(self._sources[key]) for key in SOURCE_KEYS if key in self._sources],
            "calibration": None if self._calibration is None else dict(self._calibration),
            "store": dict(self._store),
            "room": dict(self._room),
        }
