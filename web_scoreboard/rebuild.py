"""Rebuilding a game's Table from its stored log, even when the log no longer replays cleanly.

A stored line can stop applying if the rules engine changes between two runs.  Rather than
refusing to start (and hiding the score), the game is rebuilt from every line that still applies;
the store gets rows that bring its log in line with the rebuilt Table, and the people at the
table get a warning naming each line that was left out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from web_scoreboard.store import LogEntry


class SettingsLike(Protocol):
    def to_dict(self) -> dict[str, Any]: ...

    def rule_lines(self) -> list[str]: ...


class TableLike(Protocol):
    @property
    def lines(self) -> list[str]: ...

    def apply_line(self, line: str) -> list[str]: ...

    def undo(self) -> str: ...

    def undo_line(self) -> list[str]: ...

    @property
    def joined(self) -> list[bool]: ...

    def regroup(self, joined: list[bool]) -> None: ...

    def flip_last(self) -> str: ...

    def partners_of_last(self) -> list[str]: ...

    def give_last_to(self, seat: str) -> str: ...

    def opposite_answer(self) -> str | None: ...

    def longer_than_last(self) -> list[str]: ...

    def swap_answer(self, to: str | None = None) -> str: ...

    def sets_aside(self, line: str) -> str | None: ...

    def snapshot(self) -> dict[str, Any]: ...


@dataclass
class Rebuilt:
    """A rebuilt Table, the rules it was made with, the store rows that match the log to it, and
    what went wrong."""

    table: TableLike
    settings: SettingsLike
    repair: list[LogEntry] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def rebuild(make_table: Callable[[Any], TableLike], settings: Callable[[], Any],
            fallback: Callable[[], Any], lines: list[str],
            rejected: type[Exception]) -> Rebuilt:
    """Replay ``lines`` on a new Table made with ``settings()`` (or ``fallback()`` if refused)."""
    warnings: list[str] = []
    try:
        rules = settings()
        table = make_table(rules)
    except (ValueError, TypeError) as err:
        warnings.append(f"las reglas guardadas no valen ({err}); se usan las de siempre")
        rules = fallback()
        table = make_table(rules)
    for line in lines:
        try:
            table.apply_line(line)
        except rejected as err:
            reason = getattr(err, "reason", None) or str(err)
            warnings.append(f"no se pudo rehacer «{line}»: {reason}")
    actual = list(table.lines)
    if actual == lines:
        return Rebuilt(table, rules, warnings=warnings)
    common = common_start(lines, actual)
    repair = [LogEntry("undo", x, "rebuild") for x in reversed(lines[common:])]
    repair += [LogEntry("apply", x, "rebuild") for x in actual[common:]]
    return Rebuilt(table, rules, repair, warnings)


def common_start(before: list[str], after: list[str]) -> int:
    """How many lines two logs share from the start."""
    common = 0
    while common < min(len(before), len(after)) and before[common] == after[common]:
        common += 1
    return common
