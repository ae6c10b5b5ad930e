"""The scoreboard's SQLite store: games, their event logs, what the referee heard, and audio clips.

Every write is committed (WAL, ``synchronous=FULL``) before the caller broadcasts it, so a
``kill -9`` at any moment loses nothing that a page has already shown.  A game's state is never
stored: it is rebuilt by replaying the game's log.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from referee import clip_codec

Action = Literal["apply", "undo"]

# What SQLite's (English) complaints mean for the table, first match wins.
TROUBLES = (
    (("malformed", "not a database", "corrupt"), "el archivo está dañado"),
    (("locked", "busy"), "otro programa lo tiene tomado"),
    (("full",), "el disco está lleno"),
    (("readonly", "read-only"), "no se puede escribir en él"),
    (("unable to open",), "no se puede abrir"),
    (("disk i/o",), "el disco falló al leerlo o escribirlo"),
)


def said(err: sqlite3.Error) -> str:
    """A SQLite error in the table's words (the English text in parentheses, for whoever fixes
    it)."""
    text = str(err)
    meaning = next((words for keys, words in TROUBLES if any(k in text.lower() for k in keys)),
                   "la base de datos falló")
    return f"{meaning} ({text})"


class StoreError(Exception):
    """The store cannot be opened: damaged, taken by another program, or unwritable."""


AUTO_VACUUM_INCREMENTAL = 2  # PRAGMA auto_vacuum's value for INCREMENTAL

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    settings TEXT NOT NULL,
    names TEXT NOT NULL,
    score_a INTEGER NOT NULL DEFAULT 0,
    score_b INTEGER NOT NULL DEFAULT 0,
    winner TEXT
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id INTEGER NOT NULL REFERENCES games(id),
    action TEXT NOT NULL CHECK (action IN ('apply', 'undo')),
    line TEXT NOT NULL,
    origin TEXT NOT NULL,
    at REAL NOT NULL,
    joined INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS events_game ON events(game_id, id);
CREATE TABLE IF NOT EXISTS heard (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id INTEGER NOT NULL REFERENCES games(id),
    at REAL NOT NULL,
    status TEXT NOT NULL,
    text TEXT NOT NULL,
    line TEXT,
    reason TEXT,
    team TEXT,
    clip_id TEXT,
    extra TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS heard_game ON heard(game_id, id);
CREATE TABLE IF NOT EXISTS clips (
    id TEXT PRIMARY KEY,
    mime TEXT NOT NULL,
    data BLOB NOT NULL,
    at REAL NOT NULL
);
"""


@dataclass(frozen=True)
class GameRow:
    """One stored game, as listed on the page."""

    id: int
    created_at: float
    updated_at: float
    settings: dict[str, Any]
    names: dict[str, str]
    score: dict[str, int]
    winner: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "created_at": self.created_at, "updated_at": self.updated_at,
            "settings": self.settings, "names": self.names, "score": self.score,
            "winner": self.winner,
        }


@dataclass(frozen=True)
class LogEntry:
    """One row of a game's log: a canonical line applied, or the last one undone.

    ``joined``: applied by the same log line as the row before it (the «retruco» of «B1: quiero
    retruco»), so that an undo takes both back, after a restart too.
    """

    action: Action
    line: str
    origin: str
    joined: bool = False


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


@dataclass
class Batch:
    """The writes of one change so far (``Store.batch``)."""

    writes: int = 0


class Store:
    """A thread-safe SQLite store; one connection, serialised by a lock."""

    def __init__(self, path: Path | str, busy_s: float = 5.0) -> None:
        """Open (or make) the store at ``path``; a write another program holds is waited for
        ``busy_s`` seconds before it is an error."""
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._batch: Batch | None = None
        try:
            self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None,
                                       timeout=busy_s)
        except sqlite3.Error as err:
            raise StoreError(f"no puedo abrir los tanteadores guardados en {path}: "
                             f"{said(err)}") from err
        try:
            self._db.execute("PRAGMA auto_vacuum=INCREMENTAL")  # takes only on a new store
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(SCHEMA)
            self._add_joined_column()
            check = self._db.execute("PRAGMA quick_check(1)").fetchone()  # damage, said now
            if check is None or check[0] != "ok":
                raise sqlite3.DatabaseError(f"database disk image is malformed: {check}")
        except sqlite3.Error as err:
            self._db.close()
            advice = ("; apartalo (cambiale el nombre) y arrancá de nuevo: empieza un tanteador "
                      "vacío, y el viejo queda para rescatarlo" if _damaged(err) else "")
            raise StoreError(f"no puedo usar los tanteadores guardados en {path}: "
                             f"{said(err)}{advice}") from err

    def _add_joined_column(self) -> None:
        """Give a store made before lines were kept whole its ``events.joined`` column."""
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(events)")}
        if "joined" not in columns:
            self._db.execute("ALTER TABLE events ADD COLUMN joined INTEGER NOT NULL DEFAULT 0")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def batch(self) -> Iterator[Batch]:
        """Several writes as one change: all of them are stored, or none if one fails (or the
        caller raises inside).  The writes made inside join it; a batch inside a batch too."""
        with self._lock:
            if self._batch is not None:
                yield self._batch
                return
            self._db.execute("BEGIN IMMEDIATE")
            self._batch = Batch()
            try:
                yield self._batch
                self._db.execute("COMMIT")  # a full disk may refuse the change only here
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
            finally:
                self._batch = None

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self.batch() as batch:
            if not self._db.in_transaction:  # SQLite gave the batch up after a failed write
                raise sqlite3.OperationalError("the change's transaction was rolled back")
            yield self._db
            batch.writes += 1

    # -- meta ---------------------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    # -- games --------------------------------------------------------------------------------
    def create_game(self, settings: dict[str, Any], names: dict[str, str]) -> int:
        now = time.time()
        with self._transaction() as db:
            cur = db.execute(
                "INSERT INTO games (created_at, updated_at, settings, names) VALUES (?, ?, ?, ?)",
                (now, now, json.dumps(settings), json.dumps(names)),
            )
            game_id = int(cur.lastrowid or 0)
            db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('current_game', ?)",
                       (str(game_id),))
        return game_id

    def game(self, game_id: int) -> GameRow | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else _game_row(row)

    def games(self, limit: int = 100) -> list[GameRow]:
        with self._lock:
            rows = self._db.execute(
                "SELECT * FROM games ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
        return [_game_row(r) for r in rows]

    def delete_game(self, game_id: int) -> int:
        """Delete a game whole: its log, what was heard in it, and the clips and pictures no other
        game's items name.  The bytes of clips and pictures deleted (``give_back_room``, after
        the change is stored, hands their room back to the disk)."""
        with self._transaction() as db:
            unused = """FROM clips WHERE id IN (SELECT clip_id FROM heard WHERE game_id = ?)
                AND id NOT IN (SELECT clip_id FROM heard WHERE game_id != ? AND clip_id IS NOT NULL)"""
            freed = db.execute(f"SELECT coalesce(sum(length(data)), 0) {unused}",
                               (game_id, game_id)).fetchone()[0]
            db.execute(f"DELETE {unused}", (game_id, game_id))
            for table, column in (("heard", "game_id"), ("events", "game_id"), ("games", "id")):
                db.execute(f"DELETE FROM {table} WHERE {column} = ?", (game_id,))
        return int(freed)

    def give_back_room(self) -> bool:
        """Shrink the file by the room deleted rows left.  A store keeps that room apart
        (``auto_vacuum`` incremental) from its making; one made before is rewritten once
        (``VACUUM``, which needs as much free disk as the store takes) to keep it apart from then
        on.  False if SQLite could not (a full disk): the room is then reused by what is stored
        next, and nothing kept is touched.  Not inside a batch: SQLite shrinks a file only
        between changes."""
        with self._lock:
            if self._batch is not None:
                raise RuntimeError("give_back_room inside a batch would commit it half-way")
            try:
                if self._db.execute("PRAGMA auto_vacuum").fetchone()[0] != AUTO_VACUUM_INCREMENTAL:
                    self._db.execute("PRAGMA auto_vacuum=INCREMENTAL")
                    self._db.execute("VACUUM")
                else:  # a script, so that SQLite runs the pragma to its end
                    self._db.executescript("PRAGMA incremental_vacuum;")
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the moved pages, written
            except sqlite3.Error:
                return False
        return True

    def current_game_id(self) -> int | None:
        value = self.get_meta("current_game")
        return int(value) if value is not None and self.game(int(value)) else None

    def set_current_game(self, game_id: int) -> None:
        self.set_meta("current_game", str(game_id))

    def set_names(self, game_id: int, names: dict[str, str]) -> None:
        with self._transaction() as db:
            db.execute("UPDATE games SET names = ?, updated_at = ? WHERE id = ?",
                       (json.dumps(names), time.time(), game_id))

    # -- events -------------------------------------------------------------------------------
    def append(self, game_id: int, entries: Iterable[LogEntry],
               score: dict[str, int], winner: str | None) -> None:
        """Store log rows and the game's resulting score in one committed transaction."""
        now = time.time()
        with self._transaction() as db:
            db.executemany(
                "INSERT INTO events (game_id, action, line, origin, at, joined)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                [(game_id, e.action, e.line, e.origin, now, int(e.joined)) for e in entries],
            )
            db.execute(
                "UPDATE games SET score_a = ?, score_b = ?, winner = ?, updated_at = ? WHERE id = ?",
                (score.get("A", 0), score.get("B", 0), winner, now, game_id),
            )

    def log(self, game_id: int) -> list[LogEntry]:
        """The full record of a game, undos included."""
        with self._lock:
            rows = self._db.execute(
                "SELECT action, line, origin, joined FROM events WHERE game_id = ? ORDER BY id",
                (game_id,)).fetchall()
        return [LogEntry(r[0], r[1], r[2], bool(r[3])) for r in rows]

    def effective_log(self, game_id: int) -> list[LogEntry]:
        """The applied rows that make up the game now: each undo row takes back the last one."""
        applied: list[LogEntry] = []
        for entry in self.log(game_id):
            if entry.action == "apply":
                applied.append(entry)
            elif applied:
                applied.pop()
        return applied

    def effective_lines(self, game_id: int) -> list[str]:
        """The canonical lines that make up the game now: applied lines minus undone ones."""
        return [entry.line for entry in self.effective_log(game_id)]

    # -- heard and clips ----------------------------------------------------------------------
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

    def heard_item(self, heard_id: int) -> HeardRow | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM heard WHERE id = ?", (heard_id,)).fetchone()
        return None if row is None else _heard_row(row)

    def heard(self, game_id: int, limit: int = 30) -> list[HeardRow]:
        """The latest heard items of a game, newest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT * FROM heard WHERE game_id = ? ORDER BY id DESC LIMIT ?",
                (game_id, limit)).fetchall()
        return [_heard_row(r) for r in rows]

    def heard_of(self, game_id: int, status: str | None = None) -> list[HeardRow]:
        """Every heard item of one game with this status (any, by default), oldest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT * FROM heard WHERE game_id = ? AND (? IS NULL OR status = ?) ORDER BY id",
                (game_id, status, status)).fetchall()
        return [_heard_row(r) for r in rows]

    def heard_with(self, status: str, after: float = 0.0) -> list[HeardRow]:
        """Every heard item of every game with this status heard after ``after`` (UNIX time),
        oldest first."""
        with self._lock:
            rows = self._db.execute("SELECT * FROM heard WHERE status = ? AND at > ? ORDER BY id",
                                    (status, after)).fetchall()
        return [_heard_row(r) for r in rows]

    def set_heard_status(self, heard_id: int, status: str, reason: str | None = None,
                         line: str | None = None) -> None:
        """A heard item's new verdict (and its line, if given: a refused call judged again)."""
        with self._transaction() as db:
            db.execute("UPDATE heard SET status = ?, reason = ?, line = COALESCE(?, line)"
                       " WHERE id = ?", (status, reason, line, heard_id))

    def set_heard_extra(self, heard_id: int, extra: dict[str, Any]) -> None:
        with self._transaction() as db:
            db.execute("UPDATE heard SET extra = ? WHERE id = ?", (json.dumps(extra), heard_id))

    def put_clip(self, data: bytes, mime: str = clip_codec.WAV) -> str:
        """Keep a clip or picture; its id, made from its bytes, so that the same sound is kept
        once (the calls and look-alikes of one phrase share its clip)."""
        clip_id = hashlib.sha256(data).hexdigest()[:16]
        with self._transaction() as db:
            db.execute("INSERT OR IGNORE INTO clips (id, mime, data, at) VALUES (?, ?, ?, ?)",
                       (clip_id, mime, data, time.time()))
        return clip_id

    def clip(self, clip_id: str) -> tuple[bytes, str] | None:
        with self._lock:
            row = self._db.execute("SELECT data, mime FROM clips WHERE id = ?",
                                   (clip_id,)).fetchone()
        return None if row is None else (bytes(row[0]), str(row[1]))


def _damaged(err: sqlite3.Error) -> bool:
    return any(k in str(err).lower() for k in TROUBLES[0][0])


def _game_row(row: sqlite3.Row | tuple[Any, ...]) -> GameRow:
    gid, created, updated, settings, names, score_a, score_b, winner = row
    return GameRow(int(gid), float(created), float(updated), json.loads(settings),
                   json.loads(names), {"A": int(score_a), "B": int(score_b)}, winner)


def _heard_row(row: sqlite3.Row | tuple[Any, ...]) -> HeardRow:
    hid, game_id, at, status, text, line, reason, team, clip_id, extra = row
    return HeardRow(int(hid), int(game_id), float(at), status, text, line, reason, team,
                    clip_id, json.loads(extra or "{}"))
