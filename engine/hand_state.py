"""What the parts of a hand share: its state, the helpers every rule uses, and the few questions
one part of the rules asks another.

``Hand`` is put together from ``TrucoRules``, ``EnvidoRules`` and ``FlorRules``; each of them
builds on ``HandState``, so each can be read (and type-checked) on its own.  A rule that needs an
answer from another part (the truco asks whether a flor blocks it) calls a method declared
abstract here and answered by the part that owns it.
"""

from __future__ import annotations

import abc
from typing import Protocol

from engine.cards import Card
from engine.declarations import Declarations
from engine.errors import IllegalEvent
from engine.events import TEAMS, Call, Event, Team, other, team_of
from engine.rounds import RoundWinner
from engine.settings import Settings

# The order a hand's points are scored in when it ends [IT] (rules.md §11).
SCORING_ORDER = ("flor", "envido", "truco")


class Ledger(Protocol):
    """What a hand needs from its game: the rules, the score, and a way to credit points."""

    settings: Settings
    events: list[Event]   # the events applied before the one being applied

    @property
    def score(self) -> dict[Team, int]: ...

    def credit(self, team: Team, points: int) -> None: ...

    @property
    def deal_over(self) -> bool: ...


class Round:
    __slots__ = ("leader", "plays", "result")

    def __init__(self, leader: str | None) -> None:
        self.plays: list[tuple[str, Card]] = []
        self.result: RoundWinner | None = None
        self.leader = leader  # who plays first; None when not known (the last round was told)


class HandState(abc.ABC):
    """The state of one hand and the helpers shared by its truco, envido and flor rules."""

    # -- the hand (set by Hand.__init__) ------------------------------------------------------
    ledger: Ledger
    seats: tuple[str, ...]
    mano: str
    number: int
    order: tuple[str, ...]          # the seats from mano on
    rounds: list[Round]
    on_table: set[Card]
    played_first: set[str]          # seats that played their first-round card
    winner: Team | None
    over: bool
    points: dict[str, dict[Team, int]]       # category -> team -> points won in this hand
    notes: list[str]
    deferred: list[tuple[str, Team, int]]    # (category, team, points) credited at hand end
    unscored: list[tuple[str, Team, int, str]]   # (category, team, points, why) past the target
    # (category, team, points, event index): points of ``unscored`` scored later, once an event
    # (a correction, a false show: the game's events[index]) took the target back
    scored_later: list[tuple[str, Team, int, int]]

    # -- the truco (set by TrucoRules.init_truco) ---------------------------------------------
    truco_level: int
    truco_holder: Team | None
    truco_pending: tuple[int, Team, str] | None
    truco_refused: int | None

    # -- the envido (set by EnvidoRules.init_envido) ------------------------------------------
    envido_chain: tuple[Call, ...]
    envido_by: Team | None
    envido_status: str
    envido_decl: Declarations | None
    envido_winner: Team | None
    envido_worth: int
    envido_shown: bool | None

    # -- the flor (set by FlorRules.init_flor) ------------------------------------------------
    flor_sung: list[str]
    flor_chain: tuple[Call, ...]
    flor_by: Team | None
    flor_status: str
    flor_decl: Declarations | None
    flor_winner: Team | None
    flor_worth: int
    flor_shown: bool | None

    # -- shared helpers -----------------------------------------------------------------------
    @property
    def settings(self) -> Settings:
        return self.ledger.settings

    @property
    def mano_team(self) -> Team:
        return team_of(self.mano)

    @property
    def in_first_round(self) -> bool:
        return len(self.rounds) == 1 and self.rounds[0].result is None

    def require(self, ok: bool, reason: str) -> None:
        if not ok:
            raise IllegalEvent(reason)

    def require_open(self, what: str) -> None:
        self.require(not self.over, f"{what}: {self.over_reason()}")

    def over_reason(self) -> str:
        """Why nothing more goes in this hand, with what the table does next when every hand of
        the deal is over (in pica-pica the other duels may still be playing)."""
        if self.ledger.deal_over:
            return "la mano ya terminó: falta repartir la siguiente («mano»)"
        return "la mano ya terminó"

    def target_reached(self) -> bool:
        """A team has reached the game's target: the game (or the chico) ended right there, and
        nothing more of this hand is scored (rules.md §11), such as the truco after the flor
        that got there."""
        return max(self.ledger.score.values()) >= self.settings.points

    def note_unscored(self, category: str, team: Team, points: int, why: str) -> None:
        """Points the hand would have given after the target was reached, noted as not given and
        kept: a false declaration shown later can take the target back (``score_unscored``)."""
        self.unscored.append((category, team, points, why))
        self.notes.append(f"{why}: sin puntos para {team}, la partida ya terminó")

    def score_unscored(self) -> None:
        """Score the points noted as not given once the target no longer stands (a false
        declaration shown after the hand ended), in the order of the end of a hand (flor, envido,
        truco, rules.md §11), stopping again when one of them reaches the target."""
        waiting = sorted(self.unscored, key=lambda u: SCORING_ORDER.index(u[0]))
        self.unscored = []
        for category, team, points, why in waiting:
            if self.target_reached():
                self.unscored.append((category, team, points, why))
                continue
            self.points[category][team] += points
            self.notes.append(f"{why}: {team} +{points}, la partida sigue")
            self.scored_later.append((category, team, points, len(self.ledger.events)))
            self.ledger.credit(team, points)

    def score_points(self, category: str, team: Team, points: int, note: str,
                     deferred: bool = False) -> None:
        """Record points for a team in this hand and credit them now or at the end of the hand;
        none once a team has reached the target."""
        if self.target_reached():
            self.note_unscored(category, team, points, note)
            return
        self.points[category][team] += points
        self.notes.append(f"{note}: {team} +{points}")
        if deferred and not self.over:
            self.deferred.append((category, team, points))
        else:
            self.ledger.credit(team, points)

    def credit_deferred(self) -> bool:
        """Whether envido and flor points wait for the end of the hand."""
        return self.settings.envido_credit == "hand-end"

    def require_cards_not_elsewhere(self, seat: str, cards: tuple[Card, ...], what: str) -> None:
        """Cards shown can be the seat's: none played by another seat, and with the ones it
        played no more than the three it was dealt."""
        played_by_others = {c for r in self.rounds for s, c in r.plays if s != seat}
        clash = [str(c) for c in cards if c in played_by_others]
        self.require(not clash, f"{what}: {' '.join(clash)} la jugó otro")
        played = [c for r in self.rounds for s, c in r.plays if s == seat and c not in cards]
        self.require(len(cards) + len(played) <= 3,
                     f"{what}: con {' '.join(map(str, played))}, que ya jugó, serían más de tres cartas")

    def give_away(self, category: str, why: str) -> None:
        """Move this hand's points of a category to the other team (a false declaration)."""
        for team in TEAMS:
            points = self.points[category][team]
            if points:
                break
        else:
            return
        gainer = other(team)
        self.points[category][team] = 0
        self.points[category][gainer] += points
        self.notes.append(f"{why}: {gainer} +{points}")
        moved = [(c, gainer if c == category else t, p) for c, t, p in self.deferred]
        if moved != self.deferred:
            self.deferred = moved
        else:
            self.ledger.credit(team, -points)
            self.ledger.credit(gainer, points)
        if category == "envido":
            self.envido_winner = gainer
        else:
            self.flor_winner = gainer
        self.score_unscored()

    # -- what one part of the rules asks another ----------------------------------------------
    @abc.abstractmethod
    def finish(self, winner: Team, truco_points: int, why: str) -> None:
        """End the hand for the winner with the truco's points (answered by Hand)."""

    @abc.abstractmethod
    def envido_blocking(self) -> str | None:
        """What the envido waits for before play goes on, or None (answered by EnvidoRules)."""

    @abc.abstractmethod
    def envido_in_time(self, team: Team) -> bool:
        """Whether the team may still start an envido or a flor (answered by EnvidoRules)."""

    @abc.abstractmethod
    def envido_too_late(self, team: Team) -> str:
        """Why the team may no longer start an envido or a flor (answered by EnvidoRules)."""

    @abc.abstractmethod
    def flor_blocking(self) -> str | None:
        """What the flor waits for before play goes on, or None (answered by FlorRules)."""

    @abc.abstractmethod
    def flor_declaring(self) -> bool:
        """Whether the flor contest is waiting for its numbers (answered by FlorRules)."""

    @abc.abstractmethod
    def close_flor_if_unanswered(self, force: bool = False) -> None:
        """Score an open flor that can no longer be answered (answered by FlorRules)."""

    @abc.abstractmethod
    def settle_flor_if_decided(self) -> None:
        """Score the flor contest once its numbers decide it (answered by FlorRules)."""

    @abc.abstractmethod
    def show_flor(self, seat: str, cards: tuple[Card, ...], commit: bool) -> None:
        """The flor's winner shows its three cards (answered by FlorRules)."""
