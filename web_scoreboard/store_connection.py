"""The store's one SQLite connection: its schema, the write batch of one change, and ``meta``.

Every write is committed (WAL, ``synchronous=FULL``) before the caller broadcasts it, so a
``kill -9`` at any moment loses nothing that a page has already shown.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import wraps
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

from web_scoreboard.store_trouble import StoreError, StoreFailed, said, worded

P = ParamSpec("P")
T = TypeVar("T")

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


@dataclass
class Batch:
    """The writes of one change so far (``Store.batch``)."""

    writes: int = 0


def _tell_stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


S = TypeVar("S", bound="StoreConnection")


def said_if_failed(method: Callable[Concatenate[S, P], T]) -> Callable[Concatenate[S, P], T]:
    """A store method whose SQLite errors come out in the table's words (``StoreFailed``)."""
    @wraps(method)
    def worded_method(self: S, *args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return method(self, *args, **kwargs)
        except StoreError:
            raise
        except sqlite3.Error as err:
            raise self._failed(err) from err
    return worded_method


class StoreConnection:
    """A thread-safe SQLite connection to the store; one connection, serialised by a lock."""

    def __init__(self, path: Path | str, busy_s: float = 5.0,
                 on_damage: Callable[[str], None] = _tell_stderr) -> None:
        """Open (or make) the store at ``path``; a write another program holds is waited for
        ``busy_s`` seconds before it is an error.  ``on_damage`` is told, once each, of the rows
        that cannot be read whole (a damaged value is read as empty)."""
        self.path = Path(path)
        self._on_disk = str(path) != ":memory:"
        if self._on_disk:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._batch: Batch | None = None
        self._on_damage = on_damage
        self._damage_told: set[tuple[str, int]] = set()
        try:
            self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None,
                                       timeout=busy_s)
        except sqlite3.Error as err:
            raise StoreError(f"no puedo abrir los tanteadores guardados en {path}: "
                             f"{self._words(err)}") from err
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
            raise StoreError(f"no puedo usar los tanteadores guardados en {path}: "
                             f"{self._words(err)}") from err
        self._file_id = self._identity()

    def _words(self, err: sqlite3.Error, open_: bool = False) -> str:
        return worded(err, self.path, open_) if self._on_disk else said(err)

    def _failed(self, err: sqlite3.Error) -> StoreFailed:
        return StoreFailed(self._words(err, open_=True))

    def _identity(self) -> tuple[int, int] | None:
        """Which file the store is (its device and inode), to notice it deleted or replaced."""
        if not self._on_disk:
            return None
        try:
            stat = os.stat(self.path)
        except OSError:
            return None
        return stat.st_dev, stat.st_ino

    def _check_still_there(self) -> None:
        """Refuse a write to a file no longer in the data folder: the open connection would keep
        writing to a deleted file, and the write would be lost when the program ends."""
        if self._file_id is None or self._identity() == self._file_id:
            return
        folder = self.path.parent
        if not folder.is_dir():
            gone = f"la carpeta de datos desapareció ({folder})"
        else:
            gone = f"el archivo de los tanteadores ({self.path}) desapareció o lo cambiaron"
        raise StoreFailed(f"{gone}: lo que se toque no se guarda; volvé a arrancar 'serve'")

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
            self._check_still_there()
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as err:
                raise self._failed(err) from err
            self._batch = Batch()
            try:
                yield self._batch
                self._db.execute("COMMIT")  # a full disk may refuse the change only here
            except BaseException as err:
                if self._db.in_transaction:
                    with contextlib.suppress(sqlite3.Error):  # the first trouble is the one to say
                        self._db.execute("ROLLBACK")
                if isinstance(err, sqlite3.Error) and not isinstance(err, StoreError):
                    raise self._failed(err) from err
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

    # -- meta ---------------------------------------------------------------------------------
    @said_if_failed
    def get_meta(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    @said_if_failed
    def set_meta(self, key: str, value: str) -> None:
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    # -- rows, read even when a value in them is damaged -------------------------------------
    def _tell_damage(self, what: str, row_id: int, text: str) -> None:
        if (what, row_id) not in self._damage_told:
            self._damage_told.add((what, row_id))
            self._on_damage(text)


def read_json(text: str, column: str, damaged: dict[str, str]) -> dict[str, Any]:
    """A stored JSON object; ``{}``, with why in ``damaged[column]``, when it cannot be read."""
    try:
        value = json.loads(text)
    except (ValueError, TypeError) as err:
        damaged[column] = str(err)
        return {}
    if not isinstance(value, dict):
        damaged[column] = f"no es un objeto JSON: {str(text)[:40]!r}"
        return {}
    return value
