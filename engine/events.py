"""Events the engine accepts: what a seat said, cards seen, results reported, and table actions.

Every event is a frozen dataclass with a kebab-case ``type`` and a ``str()`` in the table-log
notation that ``truco-referee replay`` reads (``"A1: truco"``, ``"B1 plays 7o"``, ``"round parda"``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import ClassVar, Literal

from engine.cards import Card

Team = Literal["A", "B"]
TEAMS: tuple[Team, Team] = ("A", "B")


def other(team: Team) -> Team:
    return "B" if team == "A" else "A"


def team_of(seat: str) -> Team:
    return "A" if seat[0] == "A" else "B"


class Call(enum.Enum):
    """The official calls, named by their canonical Spanish words."""

    TRUCO = "truco"
    RETRUCO = "retruco"
    VALE_CUATRO = "vale cuatro"
    QUIERO = "quiero"
    NO_QUIERO = "no quiero"
    ENVIDO = "envido"
    REAL_ENVIDO = "real envido"
    FALTA_ENVIDO = "falta envido"
    FLOR = "flor"
    CONTRAFLOR = "contraflor"
    CONTRAFLOR_AL_RESTO = "contraflor al resto"
    CON_FLOR_QUIERO = "con flor quiero"
    CON_FLOR_ME_ACHICO = "con flor me achico"
    SON_BUENAS = "son buenas"
    MAZO = "me voy al mazo"

    def __str__(self) -> str:
        return self.value


TRUCO_CALLS = (Call.TRUCO, Call.RETRUCO, Call.VALE_CUATRO)
ENVIDO_CALLS = (Call.ENVIDO, Call.REAL_ENVIDO, Call.FALTA_ENVIDO)
FLOR_CALLS = (Call.FLOR, Call.CONTRAFLOR, Call.CONTRAFLOR_AL_RESTO,
              Call.CON_FLOR_QUIERO, Call.CON_FLOR_ME_ACHICO)


@dataclass(frozen=True)
class Say:
    """A seat says an official call."""

    seat: str
    call: Call
    type: ClassVar[str] = "say"

    def __str__(self) -> str:
        return f"{self.seat}: {self.call.value}"


@dataclass(frozen=True)
class Declare:
    """A seat declares its envido (or flor) points."""

    seat: str
    points: int
    type: ClassVar[str] = "declare"

    def __str__(self) -> str:
        return f"{self.seat}: {self.points}"


@dataclass(frozen=True)
class Play:
    """A seat puts a card on the table."""

    seat: str
    card: Card
    type: ClassVar[str] = "play"

    def __str__(self) -> str:
        return f"{self.seat} plays {self.card}"


@dataclass(frozen=True)
class Show:
    """A seat shows cards to prove a declaration."""

    seat: str
    cards: tuple[Card, ...]
    type: ClassVar[str] = "show"

    def __str__(self) -> str:
        return f"{self.seat} shows {' '.join(map(str, self.cards))}"


@dataclass(frozen=True)
class RoundResult:
    """The winner of the current round when the cards were not seen (``None`` = parda)."""

    winner: Team | None
    seat: str | None = None  # pica-pica: any seat of the duel the result belongs to
    type: ClassVar[str] = "round-result"

    def __str__(self) -> str:
        return f"round {self.winner or 'parda'}" + (f" {self.seat}" if self.seat else "")


@dataclass(frozen=True)
class HandResult:
    """The winner of the hand's truco when the rounds were not seen."""

    winner: Team
    seat: str | None = None  # pica-pica: any seat of the duel the result belongs to
    type: ClassVar[str] = "hand-result"

    def __str__(self) -> str:
        return f"hand {self.winner}" + (f" {self.seat}" if self.seat else "")


@dataclass(frozen=True)
class EnvidoResult:
    """The winner of an accepted envido (or flor) when the declarations were not heard."""

    winner: Team
    seat: str | None = None
    type: ClassVar[str] = "envido-result"

    def __str__(self) -> str:
        return f"envido {self.winner}" + (f" {self.seat}" if self.seat else "")


@dataclass(frozen=True)
class EnvidoAside:
    """The numbers of an accepted envido (or flor) were not heard and the hand goes on; who won
    it is told later (``EnvidoResult``)."""

    seat: str | None = None
    type: ClassVar[str] = "envido-aside"

    def __str__(self) -> str:
        return "envido aside" + (f" {self.seat}" if self.seat else "")


@dataclass(frozen=True)
class NewHand:
    """Cards are dealt for a new hand; mano moves one seat."""

    type: ClassVar[str] = "new-hand"

    def __str__(self) -> str:
        return "hand"


@dataclass(frozen=True)
class Adjust:
    """A manual correction of a team's score (the scoreboard's ± buttons)."""

    team: Team
    delta: int
    type: ClassVar[str] = "adjust"

    def __str__(self) -> str:
        return f"points {self.team} {self.delta:+d}"


@dataclass(frozen=True)
class SetRule:
    """Change a rule setting (only between hands)."""

    name: str
    value: str
    type: ClassVar[str] = "set-rule"

    def __str__(self) -> str:
        return f"set {self.name} {self.value}"


Event = (Say | Declare | Play | Show | RoundResult | HandResult | EnvidoResult | EnvidoAside
         | NewHand | Adjust
         | SetRule)

# ``str()`` writes the log in English words; the notation also reads Spanish ones
# (``referee.logline``), and a refusal quotes its event in those, as the tablet teaches them.
_SPANISH: dict[type, tuple[str, str]] = {
    Play: (" plays ", " juega "),
    Show: (" shows ", " muestra "),
    RoundResult: ("round ", "vuelta "),
    HandResult: ("hand ", "mano "),
    NewHand: ("hand", "mano"),
    Adjust: ("points ", "puntos "),
    EnvidoAside: ("envido aside", "envido aparte"),
}


def in_spanish(event: Event) -> str:
    """The event in the notation's Spanish words (``"A1 juega 7o"``, ``"vuelta parda"``,
    ``"mano"``, ``"puntos A +2"``, ``"envido aparte"``): how a refusal quotes it."""
    english, spanish = _SPANISH.get(type(event), ("", ""))
    return str(event).replace(english, spanish, 1) if english else str(event)
