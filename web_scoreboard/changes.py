"""One change to the table at a time, stored whole or not at all, and told to the pages only once
it is on disk; after a change the store refused, the game put back as stored.

``Changes`` holds the ``TableService``'s lock around each change and the store's batch of its
writes; it loads, publishes and says the store's state through the calls the service gives it.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from web_scoreboard.errors import STORE_REFUSED, ActionError, store_failed, store_words
from web_scoreboard.game_in_play import GameInPlay
from web_scoreboard.rebuild import TableLike
from web_scoreboard.store import Store


class Changes:
    """The changes to the game in ``game``, made under ``lock``: ``load`` rebuilds a game from the
    store (with its heard strip), ``publish`` shows the pages a new snapshot, ``store_is`` says
    whether the store takes the changes ("ok", or "trouble" with the error)."""

    def __init__(self, store: Store, game: GameInPlay, lock: threading.RLock, *,
                 load: Callable[[int], None], publish: Callable[[], object],
                 store_is: Callable[[str, BaseException | None], None]) -> None:
        self._store = store
        self._game = game
        self._lock = lock
        self._load = load
        self._publish = publish
        self._store_is = store_is
        # What a change being made tells the pages and ``on_stored`` once it is on disk.
        self._told: list[Callable[[], None]] | None = None
        # The game in play when a change the store refused could not be put back as stored (the
        # store could not be read either): rebuilt before anything else (``settle``).
        self._unsettled: int | None = None

    @property
    def game_id(self) -> int:
        """The game in play, as stored."""
        unsettled = self._unsettled
        return self._game.game_id if unsettled is None else unsettled

    @contextmanager
    def change(self, refused: str = STORE_REFUSED) -> Iterator[None]:
        """Hold the table for one change, stored whole or not at all.  Its writes (a line, the
        heard item's verdict, its clip…) are one batch of the store, and the pages are told
        only once it is on disk.  If a write fails after another went in, the store takes them
        all back and the game that was in play when the change began is rebuilt from what is
        stored (not a new game or one opened that the store did not take), so that a refusal
        («no se pudo guardar», or what was not done: ``refused``) means nothing changed, and a
        second tap does not take back a second line.  While the store refuses, every page says
        so (``store_state``), until a change is stored again."""
        with self._lock:
            if self._told is not None:  # a change inside a change: one and the same
                yield
                return
            self.settle()
            in_play = self._game.game_id  # what the store holds as the game in play
            self._told, wrote = [], False
            try:
                with self._store.batch() as batch:
                    try:
                        yield
                    finally:
                        wrote = batch.writes > 0
            except BaseException as err:
                told, self._told = self._told, None
                if wrote or told:
                    self._restore(in_play)
                cause = store_cause(err)
                if cause is None:
                    raise
                self._store_is("trouble", cause)
                raise store_failed(cause, refused) from cause
            told, self._told = self._told, None
            for tell in told:
                tell()
            if wrote:
                self._store_is("ok", None)

    def tell(self, tell: Callable[[], None]) -> None:
        """Now, or, inside a change, once it is stored (``change``)."""
        if self._told is None:
            tell()
        else:
            self._told.append(tell)

    def _restore(self, in_play: int) -> None:
        """After a change the store refused: the game ``in_play`` when it began, its table and
        heard strip as stored, and the pages shown them (a new snapshot, so a tap on the old one
        is stale).  If the store cannot be read either, the table is rebuilt before anything
        else is done with it (``settle``); the pages go on showing the last snapshot, made
        before the change, which is what is stored."""
        if not in_play:  # the first game was being made: there is nothing to put back
            return
        try:
            self._load(in_play)
        except Exception:  # noqa: BLE001 - the change's own refusal is the one to answer
            self._unsettled = in_play
            return
        self._publish()

    def settle(self, refuse: bool = True) -> None:
        """Rebuild the game in play from the store if a refused change could not put it back
        (``_restore``).  While it cannot be, a change is refused (``refuse``): nothing made on
        a table that is not the stored one may be stored."""
        if self._unsettled is None:
            return
        try:
            self._load(self._unsettled)
        except Exception as err:
            if not refuse:
                return
            self._store_is("trouble", err)
            raise ActionError("store-failed", "no se puede leer la partida guardada: "
                              f"{store_words(err)}; no se anota nada hasta que se pueda",
                              503) from err
        self._unsettled = None

    def settled_table(self) -> TableLike:
        """The game's Table, rebuilt first if a refused change left it unsure (``settle``),
        when the store lets it."""
        self.settle(refuse=False)
        return self._game.table


def store_cause(err: BaseException) -> BaseException | None:
    """The disk's error behind a change refused for it (a write or the commit SQLite or the
    system refused), or None for a refusal of the table's, or of what is stored (a game whose
    rules cannot be read)."""
    if isinstance(err, ActionError) and err.code == "store-failed":
        err = err.__cause__ or err
    return err if isinstance(err, (sqlite3.Error, OSError)) else None
