"""Singing the points of an accepted envido or flor: mano first, then in turn order.

A seat speaks only while its team is not ahead; it declares a number or says "son buenas".
Ties go to the seat closer to mano.  When no seat is left to speak, the team ahead wins.
"""

from __future__ import annotations

from engine.events import Team, team_of


class Declarations:
    """The declarations of one envido or flor contest among ``order`` (seats, mano first)."""

    __slots__ = ("order", "reported", "said")

    def __init__(self, order: tuple[str, ...]) -> None:
        self.order = order
        self.said: list[tuple[str, int | None]] = []  # (seat, points) or (seat, None) = son buenas
        self.reported: Team | None = None  # winner told to the referee instead of heard

    def best(self) -> tuple[str, int] | None:
        """The seat and value ahead so far (ties to the seat closer to mano)."""
        best: tuple[str, int] | None = None
        for seat, points in self.said:
            if points is None:
                continue
            if best is None or points > best[1] or (
                    points == best[1] and self.order.index(seat) < self.order.index(best[0])):
                best = (seat, points)
        return best

    def leader(self) -> Team | None:
        if self.reported:
            return self.reported
        best = self.best()
        return team_of(best[0]) if best else None

    def next_seat(self) -> str | None:
        """Who must speak now, or None when the contest is decided."""
        if self.reported:
            return None
        spoken = {seat for seat, _ in self.said}
        ahead = self.leader()
        for seat in self.order:
            if seat not in spoken and team_of(seat) != ahead:
                return seat
        return None

    @property
    def decided(self) -> bool:
        return self.next_seat() is None

    def winner(self) -> Team | None:
        return self.leader() if self.decided else None

    def winning_seat(self) -> str | None:
        best = self.best()
        return best[0] if best and self.decided and not self.reported else None

    def declared_by(self, seat: str) -> int | None:
        return next((p for s, p in self.said if s == seat and p is not None), None)

    def to_list(self) -> list[dict[str, object]]:
        return [{"seat": seat, "points": points} for seat, points in self.said]
