"""The stored games as «Ajustes» and the downloads see them: listed a page at a time, each one's
log, its table log for ``truco-referee replay`` and its evidence zip, and a past one deleted.

``PastGames`` reads the game in play under the ``TableService``'s lock, and deletes through its
``change`` (stored whole or not at all)."""

from __future__ import annotations

import tempfile
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import IO, Any

from models import syserrors
from web_scoreboard.errors import ActionError
from web_scoreboard.game_in_play import GameInPlay
from web_scoreboard.record import evidence_zip
from web_scoreboard.store import Store

EVIDENCE_IN_MEMORY = 8 << 20  # bytes of a game's evidence zip held in memory before it spills to disk


class PastGames:
    """The games of ``store``, besides ``game``, the one in play (read under ``lock``);
    ``change`` holds the table for one change, refused in the words it is given."""

    def __init__(self, store: Store, game: GameInPlay, lock: threading.RLock,
                 change: Callable[[str], AbstractContextManager[None]]) -> None:
        self._store = store
        self._game = game
        self._lock = lock
        self._change = change

    def listing(self, listed: int, before: int | None, current: int) -> dict[str, Any]:
        """The ``listed`` newest games, or the ones older than game ``before``, and whether there
        are older ones still (``more``), with the game in play (``current``)."""
        games = self._store.games(listed + 1, before)
        return {"games": [g.to_dict() for g in games[:listed]],
                "more": len(games) > listed, "current": current}

    def log(self, game_id: int) -> list[dict[str, str]]:
        """A stored game's log rows (each line applied or undone, with its origin)."""
        self._require(game_id)
        return [{"action": e.action, "line": e.line, "origin": e.origin}
                for e in self._store.log(game_id)]

    def record(self, game_id: int) -> str:
        """A stored game as a table log for ``truco-referee replay`` (``web_scoreboard.record``);
        ActionError 404 when there is no such game."""
        with self._lock:
            return self._game.record(game_id)[1]

    def evidence(self, game_id: int) -> IO[bytes]:
        """A stored game's table log and everything heard and seen in it, with the clips and
        pictures, as a zip in a file read from its start, for the caller to close (in memory
        up to ``EVIDENCE_IN_MEMORY``, on disk beyond: a long evening's clips are many); ActionError
        404 when there is no such game, 507 when the disk will not hold it.  The clips are read
        and zipped outside the lock: the table goes on meanwhile."""
        with self._lock:
            names, log = self._game.record(game_id)
        out = tempfile.SpooledTemporaryFile(max_size=EVIDENCE_IN_MEMORY)  # noqa: SIM115 - the caller's
        try:
            evidence_zip(out, game_id, names, log, self._store.heard_of(game_id), self._store.clip)
        except BaseException as err:
            out.close()  # nothing half made is left behind
            if isinstance(err, OSError):
                raise ActionError("evidence-failed", "no pude armar el zip con los audios y las "
                                  f"fotos: {syserrors.said(err)}", 507) from err
            raise
        out.seek(0)
        return out

    def delete(self, game_id: int) -> dict[str, Any]:
        """Delete a past game whole, with its clips and pictures (``Store.delete_game``), and
        give their room back to the disk; not the one in play.  How much they took (``freed``,
        bytes)."""
        with self._change(f"no se borró la partida {game_id}"):
            self._require(game_id)
            if game_id == self._game.game_id:
                raise ActionError("game-in-play", "la partida en curso no se borra: empezá o "
                                  "abrí otra primero")
            freed = self._store.delete_game(game_id)
        self._store.give_back_room()
        return {"deleted": game_id, "freed": freed}

    def _require(self, game_id: int) -> None:
        """ActionError 404 when the store has no game ``game_id``."""
        if self._store.game(game_id) is None:
            raise ActionError("no-such-game", f"no existe la partida {game_id}", 404)
