"""What the game in play would make of words said, without changing it: the listener's questions
to the Table (``interpret``, ``preview``, ``expected``, ``read_calls``), asked under the
``TableService``'s lock of the Table as stored (``Changes.settled_table``)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from referee.doubt import Said
from web_scoreboard.errors import ActionError
from web_scoreboard.game_in_play import GameInPlay
from web_scoreboard.rebuild import TableLike


class TableReads:
    """Questions to the Table of ``game`` that ``settled`` gives (rebuilt first if a refused
    change left it unsure), each under ``lock``; ``rejected`` is the error by which the rules
    refuse a line."""

    def __init__(self, game: GameInPlay, lock: threading.RLock,
                 settled: Callable[[], TableLike], rejected: type[Exception]) -> None:
        self._game = game
        self._lock = lock
        self._settled = settled
        self._rejected = rejected

    def read(self, text: str, team: str | None, how: str) -> list[Any]:
        """The Table's ``how`` ("interpret" or "preview") of ``text``; ActionError (501) from a
        table that does not interpret."""
        with self._lock:
            read = getattr(self._settled(), how, None)
            if read is None:
                raise ActionError("no-interpreter", "esta mesa no interpreta lo que se dice", 501)
            return list(read(text, team))

    def expected(self) -> frozenset[str]:
        """What the table would take now as the first thing said (the Table's ``expected``;
        nothing from a table that cannot tell): what the recognizer listens for most."""
        with self._lock:
            expected = getattr(self._settled(), "expected", None)
            return expected() if expected else frozenset()

    def after(self, lines: Iterable[str], text: str, team: str | None) -> list[Any]:
        """``interpret``, as if ``lines`` were applied first (each taken once those before it
        are in), without changing the game: from the first the rules refuse, or that cannot be
        made (ActionError), the rest are left out."""
        with self._lock:
            start = len(self._settled().lines)
            try:
                for line in lines:
                    self._game.table.apply_line(line)
            except (ActionError, self._rejected):
                pass
            try:
                return self.read(text, team, "interpret")
            finally:
                while len(self._game.table.lines) > start:
                    self._game.table.undo()

    def read_calls(self, calls: Sequence[Said], at: int) -> list[str | None] | None:
        """How calls said one after the other read from where the log had ``at`` lines, without
        changing the game (``Table.read_calls``); None (no telling: they wait) when the log lost
        lines since, or by a table that does not interpret."""
        with self._lock:
            read = getattr(self._settled(), "read_calls", None)
            found = None if read is None else read(calls, at)
            return None if found is None else list(found)

    def log_length(self) -> int:
        """How many lines the game's log has (where a phrase heard now begins)."""
        with self._lock:
            return len(self._settled().lines)
