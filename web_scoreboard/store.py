"""The scoreboard's SQLite store: games, their event logs, what the referee heard, and audio clips.

Every write is committed (WAL, ``synchronous=FULL``) before the caller broadcasts it, so a
``kill -9`` at any moment loses nothing that a page has already shown.  A game's state is never
stored: it is rebuilt by replaying the game's log.

``Store`` is made of the modules that hold each part: ``store_connection`` (the connection, its
schema, the write batch, ``meta``), ``store_games`` (games and their logs) and ``store_heard``
(heard items and their clips); their names are imported from here as well.
"""

from __future__ import annotations

from web_scoreboard.store_connection import AUTO_VACUUM_INCREMENTAL, SCHEMA, Batch
from web_scoreboard.store_games import Action, GameRow, LogEntry, StoredGames
from web_scoreboard.store_heard import HeardRow, StoredHeard
from web_scoreboard.store_trouble import DamagedGame, StoreError, StoreFailed, said

__all__ = [
    "AUTO_VACUUM_INCREMENTAL", "SCHEMA", "Action", "Batch", "DamagedGame", "GameRow", "HeardRow",
    "LogEntry", "Store", "StoreError", "StoreFailed", "said",
]


class Store(StoredGames, StoredHeard):
    """A thread-safe SQLite store; one connection, serialised by a lock."""
