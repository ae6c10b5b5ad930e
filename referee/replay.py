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
                       "scored_later": [{**later, "after": snap["log"][later["event"]]}
                                        for later in h["scored_later"]],
                       "notes": h["notes"]} for h in snap["hands"]],
            "set_aside": snap["set_aside"],
            "rejected": [vars(r) for r in self.rejected],
            "log": snap["log"],
        }

    def corrections(self) -> list[tuple[int, int, Adjust]]:
        """Each manual correction (``puntos A +2``) with the number of hands dealt before it and
        its index in the log."""
        dealt, found = 0, []
        for index, event in enumerate(self.table.game.events):
            if isinstance(event, NewHand):
                dealt += 1
            elif isinstance(event, Adjust):
                found.append((dealt, index, event))
        return found

    def scored_later(self) -> dict[int, list[tuple[str, Team, int]]]:
        """The points a hand scored only once a later event (a correction, a false show) took
        the target back, by that event's index in the log: (category, team, points).  The
        mazo's extra point is never among them: it is scored first in its event, so the end it
        brings leaves out what follows it, the truco's point."""
        found: dict[int, list[tuple[str, Team, int]]] = {}
        for deal in self.table.game.deals:
            for hand in deal:
                for category, team, points, index in hand.scored_later:
                    found.setdefault(index, []).append((category, team, points))
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
