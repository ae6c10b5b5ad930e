"""The store's games and their logs: the rules, names and last score of each, the game in play,
and the rows of its log (each line applied or undone).

A game's state is never stored: it is rebuilt by replaying the game's log.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from web_scoreboard.store_connection import StoreConnection, read_json, said_if_failed
from web_scoreboard.store_trouble import DamagedGame

Action = Literal["apply", "undo"]


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


class StoredGames(StoreConnection):
    """The games of the store, the game in play, and each game's log."""

    # -- games --------------------------------------------------------------------------------
    @said_if_failed
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

    @said_if_failed
    def game(self, game_id: int) -> GameRow | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else self._game_row(row)

    @said_if_failed
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

    @said_if_failed
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

    @said_if_failed
    def current_game_id(self) -> int | None:
        """The game in play; ``DamagedGame`` if its rules cannot be read (rebuilt with others,
        its log would be rewritten to fit them)."""
        value = self.get_meta("current_game")
        row = self.game(int(value)) if value is not None else None
        if row is not None and "settings" in row.damaged:
            raise DamagedGame(f"{self._damaged_rules(row)}: no la abro, para no rehacerla con "
                              "otras reglas", row.id)
        return None if row is None else row.id

    @said_if_failed
    def set_current_game(self, game_id: int) -> None:
        """Make a game the one in play; ``DamagedGame`` if its rules cannot be read."""
        row = self.game(game_id)
        if row is not None and "settings" in row.damaged:
            raise DamagedGame(f"{self._damaged_rules(row)}: no se abre, para no rehacerla con "
                              "otras reglas; se puede bajar o borrar", row.id)
        self.set_meta("current_game", str(game_id))

    @said_if_failed
    def forget_current_game(self) -> None:
        """No game in play: the next start begins a new one (the last one stays a past game)."""
        with self._transaction() as db:
            db.execute("DELETE FROM meta WHERE key = 'current_game'")

    def _damaged_rules(self, row: GameRow) -> str:
        return (f"las reglas de la partida #{row.id} están dañadas en {self.path} "
                f"({row.damaged['settings']})")

    @said_if_failed
    def set_names(self, game_id: int, names: dict[str, str]) -> None:
        with self._transaction() as db:
            db.execute("UPDATE games SET names = ?, updated_at = ? WHERE id = ?",
                       (json.dumps(names), time.time(), game_id))

    # -- events -------------------------------------------------------------------------------
    @said_if_failed
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

    @said_if_failed
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

    # -- rows, read even when a value in them is damaged -------------------------------------
    def _game_row(self, row: sqlite3.Row | tuple[Any, ...]) -> GameRow:
        gid, created, updated, settings, names, score_a, score_b, winner = row
        damaged: dict[str, str] = {}
        return GameRow(int(gid), float(created), float(updated),
                       read_json(settings, "settings", damaged),
                       read_json(names, "names", damaged),
                       {"A": int(score_a), "B": int(score_b)}, winner, damaged)


def _why(game: GameRow) -> str:
    return "; ".join(f"{column}: {why}" for column, why in game.damaged.items())
