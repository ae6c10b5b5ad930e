"""The table-log notation: one event per line, as ``truco-referee replay`` reads it.

    set players 4          hand               round A | round parda      hand A
    A1: envido             A1 plays 7o        A1 shows 7o 1o             envido B
    points A +2            envido aside       # comments

Spoken lines (``SEAT: words``) are not turned into events here: their words go through the
phrase interpretation (``referee.interpret``) like anything the microphone hears.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine import (
    Adjust,
    Card,
    EnvidoAside,
    EnvidoResult,
    Event,
    HandResult,
    InvalidEvent,
    NewHand,
    Play,
    RoundResult,
    SetRule,
    Show,
    parse_cards,
)
from engine.cards import InvalidCard

SEAT_RE = r"[AB][1-3]"
_TEAM = {"a": "A", "b": "B"}


@dataclass(frozen=True)
class Spoken:
    """A line of words said by a seat, still to be interpreted."""

    seat: str
    text: str


def strip_comment(line: str) -> str:
    return line.split("#", 1)[0].strip()


def parse_line(line: str) -> Event | Spoken | None:
    """One log line -> an event, a spoken line, or None for a blank or comment line.

    Raises ``InvalidEvent`` with the reason when the line is not in the notation: the line and
    what it says quoted in «» (the scoreboard names the seats and teams of a reason, except
    there), in the Spanish words the placeholder of the tablet's «Evento» box teaches.
    """
    text = strip_comment(line)
    if not text:
        return None
    spoken = re.fullmatch(rf"({SEAT_RE})\s*:\s*(.*)", text, re.IGNORECASE)
    if spoken:
        return Spoken(spoken.group(1).upper(), spoken.group(2).strip())
    words = text.split()
    head = words[0].lower()
    try:
        if re.fullmatch(SEAT_RE, words[0], re.IGNORECASE) and len(words) >= 3:
            return _seat_action(words[0].upper(), words[1].lower(), words[2:])
        parser = _TABLE_ACTIONS.get(head)
        if parser:
            return parser(words[1:])
    except (InvalidCard, InvalidEvent) as err:
        raise InvalidEvent(f"«{text}»: {err}") from None
    raise InvalidEvent(f"«{text}»: no entiendo la línea; se escribe como «A1: truco», «A1 juega 7o», "
                       "«vuelta parda», «mano B» o «puntos A +2» (docs/replay.md)")


def _seat_action(seat: str, verb: str, rest: list[str]) -> Event:
    if verb in ("plays", "juega") and len(rest) == 1:
        return Play(seat, Card.parse(rest[0]))
    if verb in ("shows", "muestra") and 2 <= len(rest) <= 3:
        return Show(seat, parse_cards(rest))
    raise InvalidEvent(f"se escribe «{seat} juega 7o» o «{seat} muestra 7o 1o»")


def _team(word: str) -> str:
    team = _TEAM.get(word.lower())
    if team is None:
        raise InvalidEvent(f"«{word}» no es un equipo: se escribe «A» o «B»")
    return team


def _seat(words: list[str]) -> str | None:
    if not words:
        return None
    if len(words) > 1 or not re.fullmatch(SEAT_RE, words[0], re.IGNORECASE):
        raise InvalidEvent("después del resultado solo puede ir un asiento, como «A1», "
                           f"no «{' '.join(words)}»")
    return words[0].upper()


def _hand(args: list[str]) -> Event:
    if not args:
        return NewHand()
    return HandResult(_team(args[0]), _seat(args[1:]))  # type: ignore[arg-type]


def _round(args: list[str]) -> Event:
    if not args:
        raise InvalidEvent("se escribe «vuelta A», «vuelta B» o «vuelta parda»")
    winner = None if args[0].lower() == "parda" else _team(args[0])
    return RoundResult(winner, _seat(args[1:]))  # type: ignore[arg-type]


def _envido(args: list[str]) -> Event:
    if not args:
        raise InvalidEvent("se escribe «envido A» o «envido B» (el que lo ganó), o «envido aparte» "
                           "(los tantos no se oyeron)")
    if args[0].lower() in ASIDE:
        return EnvidoAside(_seat(args[1:]))
    return EnvidoResult(_team(args[0]), _seat(args[1:]))  # type: ignore[arg-type]


def _points(args: list[str]) -> Event:
    if len(args) != 2 or not re.fullmatch(r"[+-]?\d+", args[1]):
        raise InvalidEvent("se escribe «puntos A +2» o «puntos B -1»")
    return Adjust(_team(args[0]), int(args[1]))  # type: ignore[arg-type]


def _set(args: list[str]) -> Event:
    if len(args) != 2:
        raise InvalidEvent("se escribe «set NOMBRE VALOR», p. ej. «set flor on»")
    return SetRule(args[0].lower(), args[1])


ASIDE = ("aside", "aparte")
_TABLE_ACTIONS = {"hand": _hand, "mano": _hand, "round": _round, "vuelta": _round,
                  "envido": _envido, "points": _points, "puntos": _points, "set": _set}
