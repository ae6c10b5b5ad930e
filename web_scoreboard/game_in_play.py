"""The game in play: its Table, replayed from the store, and each line applied or taken back
stored as it is made, or the Table put back as it was.

``GameInPlay`` is not thread-safe: the ``TableService`` holds its lock around every call, and
holds the store's batch of one change (``TableService.change``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from web_scoreboard.errors import ActionError, store_failed
from web_scoreboard.rebuild import Rebuilt, SettingsLike, TableLike, common_start, rebuild
from web_scoreboard.record import replay_file
from web_scoreboard.store import GameRow, LogEntry, Store

DEFAULT_NAMES = {"A": "Nosotros", "B": "Ellos"}
_SEAT_CALL = re.compile(r"^([AB])(\d+): (.+)$")
_NUMBER = re.compile(r": \d+$")  # a declaration ("A1: 28"), not a call


def is_call(line: str) -> bool:
    """A seat's call or declaration (``A1: truco``, ``B1: 27``): what "flip" can move."""
    return _SEAT_CALL.match(line) is not None


class GameInPlay:
    """The current game: its id, names and Table, whose changes are stored as log rows."""

    def __init__(self, store: Store, settings: SettingsLike, *,
                 table_factory: Callable[[Any], TableLike],
                 settings_from_dict: Callable[[dict[str, Any]], SettingsLike],
                 rejected_error: type[Exception],
                 stored: Callable[[list[LogEntry], dict[str, Any]], None]) -> None:
        self._store = store
        self._default_settings = settings
        self._make_table = table_factory
        self._settings_from_dict = settings_from_dict
        self._rejected = rejected_error
        # Told of the rows of every change the store took, with the Table's snapshot then.
        self._stored = stored
        self.game_id = 0
        self.names: dict[str, str] = dict(DEFAULT_NAMES)
        self.table = table_factory(settings)
        self.warnings: list[str] = []

    def load(self, game_id: int) -> None:
        """Rebuild a game's Table by replaying its stored log."""
        row, stored, rebuilt = self._rebuilt(game_id)
        if rebuilt.repair:
            snap = rebuilt.table.snapshot()
            self._store.append(game_id, rebuilt.repair, snap.get("score", {}),
                               snap.get("winner"))
            stored = self._store.effective_log(game_id)
        table = rebuilt.table
        _regroup(table, stored)
        self.table, self.game_id, self.warnings = table, game_id, rebuilt.warnings
        self.names = {**DEFAULT_NAMES, **row.names}

    def record(self, game_id: int) -> tuple[dict[str, str], str]:
        """A stored game's teams' names, and its table log for ``truco-referee replay``
        (``web_scoreboard.record``), as ``load`` would rebuild it, storing nothing."""
        row, _, rebuilt = self._rebuilt(game_id)
        names = {**DEFAULT_NAMES, **row.names}
        return names, replay_file(row, names, rebuilt.settings.rule_lines(), rebuilt.table.lines,
                                  rebuilt.table.snapshot())

    def _rebuilt(self, game_id: int) -> tuple[GameRow, list[LogEntry], Rebuilt]:
        """A stored game's row, the log rows it stands on, and its Table rebuilt from them."""
        row = self._store.game(game_id)
        if row is None:
            raise ActionError("no-such-game", f"no existe la partida {game_id}", 404)
        stored = self._store.effective_log(game_id)
        return row, stored, rebuild(self._make_table,
                                    lambda: self._settings_from_dict(row.settings),
                                    lambda: self._default_settings,
                                    [entry.line for entry in stored], self._rejected)

    # -- lines applied and taken back -------------------------------------------------------
    def apply(self, line: str, origin: str) -> None:
        """Apply one replay-log line (``"A1: truco"``) and store it; ActionError if refused."""
        applied = self._apply_to_table(line)
        entries = self._applied_since(len(self.table.lines) - len(applied), origin)
        self._persist(entries, rollback=lambda: self._rollback(len(applied), []))

    def undo_line(self, origin: str) -> None:
        """Take back the last line whole (both calls of «B1: quiero retruco»), stored as undos."""
        if not self.table.lines:
            raise ActionError("nothing-to-undo", "no hay nada para deshacer")
        joined = self.table.joined
        lines = self.table.undo_line()
        self._persist([LogEntry("undo", x, origin) for x in reversed(lines)],
                      rollback=lambda: self._rollback(0, lines, joined))

    def replace_last(self, change: Callable[[], str], origin: str, name: str,
                     empty: str) -> int:
        """Replace the last line by what ``change`` (a call on the current Table) makes of it,
        stored as undos of the lines it changed and the lines it put in their place; the Table
        refuses what the rules do not allow.  Returns where the log changed from."""
        before, joined = list(self.table.lines), self.table.joined
        if not before:
            raise ActionError(f"nothing-to-{name}", empty)
        try:
            change()
        except self._rejected as err:
            reason = getattr(err, "reason", None) or str(err)
            raise ActionError(f"{name}-refused", reason) from err
        after = list(self.table.lines)
        start = common_start(before, after)
        entries = [LogEntry("undo", x, origin) for x in reversed(before[start:])]
        entries += self._applied_since(start, origin)
        self._persist(entries, rollback=lambda: self._rollback(len(after) - start,
                                                               before[start:], joined))
        return start

    def apply_call(self, line: str, origin: str,
                   deals: bool = True) -> tuple[list[str], list[str]]:
        """Apply a heard call; if it ``deals`` (it begins its phrase, ``Earlier.deals``), one
        heard after the hand ended deals the next hand first, and one the rules take only once
        the numbers of an accepted envido are given up for unheard sets the envido aside first
        (in pica-pica, its own duel's: ``Table.sets_aside``).  Returns the lines applied first
        for it (none if none) and those of the call itself."""
        hand = self.table.snapshot().get("hand")
        before = len(self.table.lines)
        deal = (deals and (hand is None or bool(hand.get("over"))) and is_call(line)
                and not _NUMBER.search(line))
        first = "hand" if deal else self.table.sets_aside(line) if deals else None
        if first is None:
            self.apply(line, origin)
            return [], list(self.table.lines[before:])
        try:
            dealt = self._apply_to_table(first)
            call = self._apply_to_table(line)
        except ActionError:
            self._rollback(len(self.table.lines) - before, [])
            raise
        applied = dealt + call
        entries = self._applied_since(before, origin)
        self._persist(entries, rollback=lambda: self._rollback(len(applied), []))
        return dealt, call

    def take_back(self, lines: list[str], origin: str) -> None:
        """Take back the last events of the log, ``lines`` (as the Table has them), stored as
        undos; if the disk refuses, they are applied again."""
        for _ in lines:
            self.table.undo()
        self._persist([LogEntry("undo", x, origin) for x in reversed(lines)],
                      rollback=lambda: self._reapply(lines))

    # -- internals ----------------------------------------------------------------------------
    def _applied_since(self, start: int, origin: str) -> list[LogEntry]:
        """The log rows that store the Table's lines from ``start`` on, each said whether it came
        in one line with the row before it."""
        lines, joined = self.table.lines, self.table.joined
        return [LogEntry("apply", lines[k], origin, joined[k]) for k in range(start, len(lines))]

    def _apply_to_table(self, line: str) -> list[str]:
        before = len(self.table.lines)
        try:
            self.table.apply_line(line)
        except self._rejected as err:
            reason = getattr(err, "reason", None) or str(err)
            raise ActionError("line-rejected", reason, 422) from err
        return list(self.table.lines[before:])

    def _persist(self, entries: list[LogEntry], rollback: Callable[[], None]) -> None:
        """Commit log rows; if the disk refuses, put the Table back as it was."""
        snap = self.table.snapshot()
        try:
            self._store.append(self.game_id, entries, snap.get("score", {}), snap.get("winner"))
        except Exception as err:
            rollback()
            raise store_failed(err) from err
        self._stored(entries, snap)

    def _rollback(self, undo_count: int, reapply: Iterable[str],
                  joined: list[bool] | None = None) -> None:
        """Put the Table back: take back events, apply lines again and, with ``joined`` (as it was
        before the change), group them in lines as they were."""
        for _ in range(undo_count):
            self.table.undo()
        self._reapply(reapply)
        if joined is not None:
            self.table.regroup(joined)

    def _reapply(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.table.apply_line(line)


def _regroup(table: TableLike, stored: list[LogEntry]) -> None:
    """Group a Table rebuilt one line at a time as its stored rows say (``LogEntry.joined``)."""
    if [entry.line for entry in stored] == table.lines:
        table.regroup([entry.joined for entry in stored])
