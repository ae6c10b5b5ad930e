"""Truco, retruco, vale cuatro: who may raise, what accepting and refusing are worth."""

from __future__ import annotations

from engine.betting import TRUCO_LEVEL, TRUCO_NAME
from engine.events import Call, Team, other, team_of
from engine.hand_state import HandState


class TrucoRules(HandState):
    """Mixed into ``Hand``: the truco bet."""

    def init_truco(self) -> None:
        self.truco_level = 1           # 1 = nothing accepted yet; 2 truco, 3 retruco, 4 vale cuatro
        self.truco_holder = None       # the team that accepted last: only it may raise
        self.truco_pending = None      # (level called, team, seat) waiting for an answer
        self.truco_refused = None      # the level a «no quiero» ended the hand on

    def truco_value(self) -> int:
        """What the hand's truco is worth now (a pending call counts as refused)."""
        return self.truco_level

    def truco_blocking(self) -> str | None:
        if self.truco_pending:
            level, team, _ = self.truco_pending
            return f"{other(team)} tiene que contestar el {TRUCO_NAME[level].value}"
        return None

    def call_truco(self, seat: str, call: Call, commit: bool) -> None:
        team = team_of(seat)
        level = TRUCO_LEVEL[call]
        what = f"{seat}: {call.value}"
        self.require_open(what)
        self.require(self.flor_blocking() is None, f"{what}: {self.flor_blocking()}")
        self.require(self.envido_blocking() is None, f"{what}: {self.envido_blocking()}")
        pending = self.truco_pending
        if pending:
            p_level, p_team, _ = pending
            self.require(p_team != team, f"{what}: {team} ya cantó, falta la respuesta de {other(team)}")
            self.require(level == p_level + 1,
                         f"{what}: al {TRUCO_NAME[p_level].value} se contesta quiero, no quiero"
                         + (f" o {TRUCO_NAME[p_level + 1].value}" if p_level < 4 else ""))
        else:
            self.require(level == self.truco_level + 1, self._truco_order_reason(what, level))
            self.require(self.truco_holder in (None, team),
                         f"{what}: solo puede subir {self.truco_holder}, que quiso el último")
        if not commit:
            return
        self.truco_pending = (level, team, seat)
        if pending:  # a raise in answer accepts the lower level
            self._accepted(pending[0], team)

    def _accepted(self, level: int, team: Team) -> None:
        """The truco accepted at this level: an open flor can no longer be answered, and is
        scored at once (rules.md §7)."""
        self.truco_level, self.truco_holder = level, team
        self.notes.append(f"{TRUCO_NAME[level].value} querido por {team}")
        self.close_flor_if_unanswered()

    def _truco_order_reason(self, what: str, level: int) -> str:
        if level <= self.truco_level:
            return f"{what}: ya se quiso el {TRUCO_NAME[self.truco_level].value}"
        needed = TRUCO_NAME[self.truco_level + 1].value if self.truco_level < 4 else "nada"
        return f"{what}: primero va el {needed}"

    def answer_truco(self, seat: str, call: Call, commit: bool) -> None:
        team = team_of(seat)
        what = f"{seat}: {call.value}"
        self.require(self.truco_pending is not None, f"{what}: no hay nada cantado para contestar")
        assert self.truco_pending is not None
        level, caller, _ = self.truco_pending
        self.require(caller != team, f"{what}: contesta {other(caller)}, no {team}")
        if not commit:
            return
        name = TRUCO_NAME[level].value
        if call is Call.QUIERO:
            self.truco_pending = None
            self._accepted(level, team)
        else:
            self.truco_pending, self.truco_refused = None, level
            self.finish(caller, level - 1, f"{name} no querido")
