"""Replay a written table log: apply it line by line and report the result and every refusal."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from engine import Adjust, NewHand, Settings, Team
from referee.logline import strip_comment
from referee.table import LineRejected, Table

TEAMS: tuple[Team, Team] = ("A", "B")


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

    def corrections(self) -> list[tuple[int, Adjust]]:
        """Each manual correction (``puntos A +2``) with the number of hands dealt before it."""
        dealt, found = 0, []
        for event in self.table.game.events:
            if isinstance(event, NewHand):
                dealt += 1
            elif isinstance(event, Adjust):
                found.append((dealt, event))
        return found

    def mazo_extra(self) -> list[dict[Team, int]]:
        """Each hand's extra point for leaving in the first round with nothing called
        (``set mazo_extra on``): the game counts it with the envido's points, though no envido
        was called."""
        return [{team: sum(h.points["envido"][team] for h in deal if h.envido_status == "none")
                 for team in TEAMS} for deal in self.table.game.deals]


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
