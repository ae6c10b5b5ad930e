"""Replay a written table log: apply it line by line and report the result and every refusal."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from engine import Settings
from referee.logline import strip_comment
from referee.table import LineRejected, Table


@dataclass
class Rejection:
    line: int      # 1-based line number in the log
    text: str
    reason: str


@dataclass
class ReplayResult:
    table: Table
    rejected: list[Rejection] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        snap = self.table.snapshot()
        return {
            "score": snap["score"],
            "winner": snap["winner"],
            "chicos": snap["chicos"],
            "settings": snap["settings"],
            "hands": [{"number": h["number"], "mano": h["mano"], **h["points"],
                       "notes": h["notes"]} for h in snap["hands"]],
            "rejected": [vars(r) for r in self.rejected],
            "log": snap["log"],
        }


def replay(lines: Iterable[str], settings: Settings | None = None) -> ReplayResult:
    """Apply every line; a refused line changes nothing and the replay goes on."""
    result = ReplayResult(Table(settings))
    for number, raw in enumerate(lines, start=1):
        if not strip_comment(raw):
            continue
        try:
            result.table.apply_line(raw)
        except LineRejected as err:
            result.rejected.append(Rejection(number, strip_comment(raw), err.reason))
    return result
