"""The store's heard items (what the voice referee heard, and what the camera saw, with their
verdicts) and their clips and pictures, each kept once by its bytes.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from dataclasses import dataclass
from typing import Any

from referee import clip_codec
from web_scoreboard.store_connection import StoreConnection, read_json, said_if_failed


@dataclass(frozen=True)
class HeardRow:
    """What the voice referee heard, with its verdict and the id of its audio clip."""

    id: int
    game_id: int
    at: float
    status: str
    text: str
    line: str | None
    reason: str | None
    team: str | None
    clip_id: str | None
    extra: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "at": self.at, "status": self.status, "text": self.text,
            "line": self.line, "reason": self.reason, "team": self.team,
            "clip_id": self.clip_id, **({"extra": self.extra} if self.extra else {}),
        }


class StoredHeard(StoreConnection):
    """The heard items of every game, and the clips and pictures they name."""

    # -- heard --------------------------------------------------------------------------------
    @said_if_failed
    def add_heard(self, game_id: int, status: str, text: str, *, line: str | None = None,
                  reason: str | None = None, team: str | None = None,
                  clip_id: str | None = None, extra: dict[str, Any] | None = None) -> HeardRow:
        now = time.time()
        with self._transaction() as db:
            cur = db.execute(
                "INSERT INTO heard (game_id, at, status, text, line, reason, team, clip_id, extra)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (game_id, now, status, text, line, reason, team, clip_id,
                 json.dumps(extra or {})),
            )
            heard_id = int(cur.lastrowid or 0)
        return HeardRow(heard_id, game_id, now, status, text, line, reason, team, clip_id,
                        extra or {})

    @said_if_failed
    def heard_item(self, heard_id: int) -> HeardRow | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM heard WHERE id = ?", (heard_id,)).fetchone()
        return None if row is None else self._heard_row(row)

    @said_if_failed
    def heard(self, game_id: int, limit: int = 30) -> list[HeardRow]:
        """The latest heard items of a game, newest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT * FROM heard WHERE game_id = ? ORDER BY id DESC LIMIT ?",
                (game_id, limit)).fetchall()
        return [self._heard_row(r) for r in rows]

    @said_if_failed
    def heard_of(self, game_id: int, status: str | None = None) -> list[HeardRow]:
        """Every heard item of one game with this status (any, by default), oldest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT * FROM heard WHERE game_id = ? AND (? IS NULL OR status = ?) ORDER BY id",
                (game_id, status, status)).fetchall()
        return [self._heard_row(r) for r in rows]

    @said_if_failed
    def heard_with(self, status: str, after: int = 0) -> list[HeardRow]:
        """Every heard item of every game with this status stored after the row ``after`` (ids
        only grow, whatever the clock said), oldest first."""
        with self._lock:
            rows = self._db.execute("SELECT * FROM heard WHERE status = ? AND id > ? ORDER BY id",
                                    (status, after)).fetchall()
        return [self._heard_row(r) for r in rows]

    def last_heard(self, status: str, at_most: float | None = None) -> int:
        """The row of the newest heard item with this status (dated at or before ``at_most``,
        UNIX time, if given), 0 for none."""
        with self._lock:
            row = self._db.execute("SELECT MAX(id) FROM heard WHERE status = ? AND at <= ?",
                                   (status, float("inf") if at_most is None else at_most)
                                   ).fetchone()
        return int(row[0] or 0)

    @said_if_failed
    def set_heard_status(self, heard_id: int, status: str, reason: str | None = None,
                         line: str | None = None) -> None:
        """A heard item's new verdict (and its line, if given: a refused call judged again)."""
        with self._transaction() as db:
            db.execute("UPDATE heard SET status = ?, reason = ?, line = COALESCE(?, line)"
                       " WHERE id = ?", (status, reason, line, heard_id))

    @said_if_failed
    def set_heard_extra(self, heard_id: int, extra: dict[str, Any]) -> None:
        with self._transaction() as db:
            db.execute("UPDATE heard SET extra = ? WHERE id = ?", (json.dumps(extra), heard_id))

    # -- clips --------------------------------------------------------------------------------
    @said_if_failed
    def put_clip(self, data: bytes, mime: str = clip_codec.WAV) -> str:
        """Keep a clip or picture; its id, made from its bytes, so that the same sound is kept
        once (the calls and look-alikes of one phrase share its clip)."""
        clip_id = hashlib.sha256(data).hexdigest()[:16]
        with self._transaction() as db:
            db.execute("INSERT OR IGNORE INTO clips (id, mime, data, at) VALUES (?, ?, ?, ?)",
                       (clip_id, mime, data, time.time()))
        return clip_id

    @said_if_failed
    def clip(self, clip_id: str) -> tuple[bytes, str] | None:
        with self._lock:
            row = self._db.execute("SELECT data, mime FROM clips WHERE id = ?",
                                   (clip_id,)).fetchone()
        return None if row is None else (bytes(row[0]), str(row[1]))

    # -- rows, read even when a value in them is damaged -------------------------------------
    def _heard_row(self, row: sqlite3.Row | tuple[Any, ...]) -> HeardRow:
        hid, game_id, at, status, text, line, reason, team, clip_id, extra = row
        damaged: dict[str, str] = {}
        read = read_json(extra or "{}", "extra", damaged)
        if damaged:
            self._tell_damage("heard", int(hid), f"lo oído n.º {hid} (partida #{game_id}, "
                              f"«{text}») guardado en {self.path} tiene sus datos de más "
                              f"dañados ({damaged['extra']}): se muestra sin ellos")
        return HeardRow(int(hid), int(game_id), float(at), status, text, line, reason, team,
                        clip_id, read)
