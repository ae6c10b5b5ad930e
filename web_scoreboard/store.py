"""The scoreboard's SQLite store: games, their event logs, what the referee heard, and audio clips.

Every write is committed (WAL, ``synchronous=FULL``) before the caller broadcasts it, so a
``kill -9`` at any moment loses nothing that a page has already shown.  A game's state is never
stored: it is rebuilt by replaying the game's log.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import wraps
from pathlib import Path
from typing import Any, Concatenate, Literal, ParamSpec, TypeVar

from referee import clip_codec
from web_scoreboard.store_trouble import DamagedGame, StoreError, StoreFailed, said, worded

Action = Literal["apply", "undo"]
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
    # The columns that could not be read (``settings``, ``names``), with why: shown as the
    # defaults.
    damaged: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "created_at": self.created_at, "updated_at": self.updated_at,
            "settings": self.settings, "names": self.names, "score": self.score,
            "winner": self.winner, **({"damaged": self.note()} if self.damaged else {}),
        }

    def note(self) -> str:
        """What of the game could not be read, for the page."""
        if "settings" in self.damaged and "names" in self.damaged:
            return "sus reglas y sus nombres guardados están dañados: se muestran los de siempre"
        if "settings" in self.damaged:
            return "sus reglas guardadas están dañadas: se muestran las de siempre"
        return "sus nombres guardados están dañados: se muestran los de siempre"


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


def _tell_stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _said_if_failed(
        method: Callable[Concatenate[Store, P], T]) -> Callable[Concatenate[Store, P], T]:
    """A store method whose SQLite errors come out in the table's words (``StoreFailed``)."""
    @wraps(method)
    def worded_method(self: Store, *args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return method(self, *args, **kwargs)
        except StoreError:
            raise
        except sqlite3.Error as err:
            raise self._failed(err) from err
    return worded_method


class Store:
    """A thread-safe SQLite store; one connection, serialised by a lock."""

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

    # -- meta ---------------------------------------------------------------------------------
    @_said_if_failed
    def get_meta(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    @_said_if_failed
    def set_meta(self, key: str, value: str) -> None:
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    # -- games --------------------------------------------------------------------------------
    @_said_if_failed
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

    @_said_if_failed
    def game(self, game_id: int) -> GameRow | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else self._game_row(row)

    @_said_if_failed
    def games(self, limit: int = 100, before: int | None = None) -> list[GameRow]:
        """The newest ``limit`` games, or those older than game ``before``, newest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT * FROM games WHERE id < ? ORDER BY id DESC LIMIT ?",
                (before if before is not None else 1 << 62, limit)).fetchall()
        games = [self._game_row(r) for r in rows]
        for game in games:
            if game.damaged:
                self._tell_damage("game", game.id, f"la partida #{game.id} guardada en "
                                  f"{self.path} no se lee entera ({_why(game)}): {game.note()}")
        return games

    @_said_if_failed
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

    @_said_if_failed
    def current_game_id(self) -> int | None:
        """The game in play; ``DamagedGame`` if its rules cannot be read (rebuilt with others,
        its log would be rewritten to fit them)."""
        value = self.get_meta("current_game")
        row = self.game(int(value)) if value is not None else None
        if row is not None and "settings" in row.damaged:
            raise DamagedGame(f"{self._damaged_rules(row)}: no la abro, para no rehacerla con "
                              "otras reglas", row.id)
        return None if row is None else row.id

    @_said_if_failed
    def set_current_game(self, game_id: int) -> None:
        """Make a game the one in play; ``DamagedGame`` if its rules cannot be read."""
        row = self.game(game_id)
        if row is not None and "settings" in row.damaged:
            raise DamagedGame(f"{self._damaged_rules(row)}: no se abre, para no rehacerla con "
                              "otras reglas; se puede bajar o borrar", row.id)
        self.set_meta("current_game", str(game_id))

    @_said_if_failed
    def forget_current_game(self) -> None:
        """No game in play: the next start begins a new one (the last one stays a past game)."""
        with self._transaction() as db:
            db.execute("DELETE FROM meta WHERE key = 'current_game'")

    def _damaged_rules(self, row: GameRow) -> str:
        return (f"las reglas de la partida #{row.id} están dañadas en {self.path} "
                f"({row.damaged['settings']})")

    @_said_if_failed
    def set_names(self, game_id: int, names: dict[str, str]) -> None:
        with self._transaction() as db:
            db.execute("UPDATE games SET names = ?, updated_at = ? WHERE id = ?",
                       (json.dumps(names), time.time(), game_id))

    # -- events -------------------------------------------------------------------------------
    @_said_if_failed
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

    @_said_if_failed
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
    @_said_if_failed
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

    @_said_if_failed
    def heard_item(self, heard_id: int) -> HeardRow | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM heard WHERE id = ?", (heard_id,)).fetchone()
        return None if row is None else self._heard_row(row)

    @_said_if_failed
    def heard(self, game_id: int, limit: int = 30) -> list[HeardRow]:
        """The latest heard items of a game, newest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT * FROM heard WHERE game_id = ? ORDER BY id DESC LIMIT ?",
                (game_id, limit)).fetchall()
        return [self._heard_row(r) for r in rows]

    @_said_if_failed
    def heard_of(self, game_id: int, status: str | None = None) -> list[HeardRow]:
        """Every heard item of one game with this status (any, by default), oldest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT * FROM heard WHERE game_id = ? AND (? IS NULL OR status = ?) ORDER BY id",
                (game_id, status, status)).fetchall()
        return [self._heard_row(r) for r in rows]

    @_said_if_failed
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

    @_said_if_failed
    def set_heard_status(self, heard_id: int, status: str, reason: str | None = None,
                         line: str | None = None) -> None:
        """A heard item's new verdict (and its line, if given: a refused call judged again)."""
        with self._transaction() as db:
            db.execute("UPDATE heard SET status = ?, reason = ?, line = COALESCE(?, line)"
                       " WHERE id = ?", (status, reason, line, heard_id))

    @_said_if_failed
    def set_heard_extra(self, heard_id: int, extra: dict[str, Any]) -> None:
        with self._transaction() as db:
            db.execute("UPDATE heard SET extra = ? WHERE id = ?", (json.dumps(extra), heard_id))

    @_said_if_failed
    def put_clip(self, data: bytes, mime: str = clip_codec.WAV) -> str:
        """Keep a clip or picture; its id, made from its bytes, so that the same sound is kept
        once (the calls and look-alikes of one phrase share its clip)."""
        clip_id = hashlib.sha256(data).hexdigest()[:16]
        with self._transaction() as db:
            db.execute("INSERT OR IGNORE INTO clips (id, mime, data, at) VALUES (?, ?, ?, ?)",
                       (clip_id, mime, data, time.time()))
        return clip_id

    @_said_if_failed
    def clip(self, clip_id: str) -> tuple[bytes, str] | None:
        with self._lock:
            row = self._db.execute("SELECT data, mime FROM clips WHERE id = ?",
                                   (clip_id,)).fetchone()
        return None if row is None else (bytes(row[0]), str(row[1]))


    # -- rows, read even when a value in them is damaged -------------------------------------
    def _game_row(self, row: sqlite3.Row | tuple[Any, ...]) -> GameRow:
        gid, created, updated, settings, names, score_a, score_b, winner = row
        damaged: dict[str, str] = {}
        return GameRow(int(gid), float(created), float(updated),
                       _read_json(settings, "settings", damaged),
                       _read_json(names, "names", damaged),
                       {"A": int(score_a), "B": int(score_b)}, winner, damaged)

    def _heard_row(self, row: sqlite3.Row | tuple[Any, ...]) -> HeardRow:
        hid, game_id, at, status, text, line, reason, team, clip_id, extra = row
        damaged: dict[str, str] = {}
        read = _read_json(extra or "{}", "extra", damaged)
        if damaged:
            self._tell_damage("heard", int(hid), f"lo oído n.º {hid} (partida #{game_id}, "
                              f"«{text}») guardado en {self.path} tiene sus datos de más "
                              f"dañados ({damaged['extra']}): se muestra sin ellos")
        return HeardRow(int(hid), int(game_id), float(at), status, text, line, reason, team,
                        clip_id, read)

    def _tell_damage(self, what: str, row_id: int, text: str) -> None:
        if (what, row_id) not in self._damage_told:
            self._damage_told.add((what, row_id))
            self._on_damage(text)


def _read_json(text: str, column: str, damaged: dict[str, str]) -> dict[str, Any]:
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


def _why(game: GameRow) -> str:
    return "; ".join(f"{column}: {why}" for column, why in game.damaged.items())
