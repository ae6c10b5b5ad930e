"""The table-log notation: one event per line, as ``truco-referee replay`` reads it.

    set players 4          mano               vuelta A | vuelta parda    mano A
    A1: envido             A1 juega 7o        A1 muestra 7o 1o           envido B
    puntos A +2            envido aparte      # comments

(the English words are read the same: hand, round, plays, shows, points, aside).

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
    Settings,
    Show,
    parse_cards,
)
from engine.cards import InvalidCard
from engine.settings import rule_named, rule_names_text

# A seat as written: a team and a number.  Any number is read as a seat, so that «A4: truco» is
# refused by the game for the table it is at («no hay asiento A4 en una mesa de 2»).
SEAT_RE = r"[AB]\d+"
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
    words = text.split()
    head = words[0].lower()
    try:
        if spoken:
            return _spoken(spoken.group(1).upper(), spoken.group(2).strip())
        if re.fullmatch(SEAT_RE, words[0], re.IGNORECASE):
            return _seat_action(words[0].upper(), words[1:])
        parser = _TABLE_ACTIONS.get(head)
        if parser:
            return parser(words[1:])
    except (InvalidCard, InvalidEvent) as err:
        raise InvalidEvent(f"«{text}»: {err}") from None
    raise InvalidEvent(f"«{text}»: no entiendo la línea; se escribe como «A1: truco», «A1 juega 7o», "
                       "«vuelta parda», «mano B» o «puntos A +2» (docs/replay.md)")


def _spoken(seat: str, said: str) -> Spoken:
    if not said:
        raise InvalidEvent(f"falta lo que dijo: se escribe «{seat}: truco»")
    return Spoken(seat, said)


PLAYS = ("juega", "plays")
SHOWS = ("muestra", "shows")
# Words written between a seat and what it said, for the colon: «A1 dice truco», «A1 - truco».
SAYS = ("dice", "canta", "says", "-", "–", "—")


def _seat_action(seat: str, words: list[str]) -> Event:
    """A seat's card on the table or shown («A1 juega 7o», «A1 muestra 7o 1o»); anything else
    after a seat is refused with how it is written («A1 truco»: the colon is missing)."""
    verb, rest = (words[0].lower(), words[1:]) if words else ("", [])
    if verb in PLAYS and len(rest) == 1:
        return Play(seat, Card.parse(rest[0]))
    if verb in SHOWS and 2 <= len(rest) <= 3:
        return Show(seat, parse_cards(rest))
    cards = f"«{seat} juega 7o» o «{seat} muestra 7o 1o»"
    if verb in PLAYS + SHOWS or (rest and all(_is_card(w) for w in rest)):
        raise InvalidEvent(f"se escribe {cards}")
    if not words:
        raise InvalidEvent(f"falta lo que dijo o jugó: se escribe «{seat}: truco» o {cards}")
    said = f"«{seat}: {' '.join(rest if verb in SAYS and rest else words)}»"
    if len(words) == 1:  # «A1 truco»
        raise InvalidEvent(f"falta «:» después del asiento: se escribe {said}")
    raise InvalidEvent(f"falta «:» después del asiento: se escribe {said}; una carta, {cards}")


def _is_card(word: str) -> bool:
    try:
        Card.parse(word)
    except InvalidCard:
        return False
    return True


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
    if not args or (len(args) == 1 and args[0].lower() in NEW):
        return NewHand()
    return HandResult(_team(args[0]), _seat(args[1:]))  # type: ignore[arg-type]


def _round(args: list[str]) -> Event:
    how = "se escribe «vuelta A», «vuelta B» o «vuelta parda»"
    if not args:
        raise InvalidEvent(how)
    if args[0].lower() == "parda":
        return RoundResult(None, _seat(args[1:]))
    if args[0].lower() not in _TEAM:
        raise InvalidEvent(f"«{args[0]}» no es un equipo ni «parda»: {how}")
    return RoundResult(_team(args[0]), _seat(args[1:]))  # type: ignore[arg-type]


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


# A yes-or-no rule's value as it is read -> as the log writes it.
ON_OFF = {"on": "on", "sí": "on", "si": "on", "yes": "on", "true": "on", "1": "on",
          "off": "off", "no": "off", "false": "off", "0": "off"}


def _set(args: list[str]) -> Event:
    """A rule setting, by its English or Spanish name (``RULE_NAMES``), in the log's words:
    «set flor sí» is ``set flor on``, «set a 15» ``set points 15``, «set mazo en primera sí»
    ``set mazo_extra on``."""
    if len(args) < 2:
        raise InvalidEvent("se escribe «set NOMBRE VALOR», p. ej. «set flor on»")
    said, value = " ".join(args[:-1]), args[-1]
    name = rule_named(said)
    if name is None:
        raise InvalidEvent(f"no hay una regla «{said}»: las reglas son {rule_names_text()} "
                           "(docs/rules.md)")
    if isinstance(getattr(Settings(), name), bool):
        value = ON_OFF.get(value.lower(), value)
    return SetRule(name, value)


def _undo(args: list[str]) -> Event:
    """A log is what stands: what was taken back is not in it."""
    raise InvalidEvent("un registro no tiene línea de deshacer: para deshacer algo, borrá su línea")


ASIDE = ("aside", "aparte")
# The word after «mano» that still says a deal, as the tablet's button and history name it.
NEW = ("nueva",)
_TABLE_ACTIONS = {"hand": _hand, "mano": _hand, "round": _round, "vuelta": _round,
                  "envido": _envido, "points": _points, "puntos": _points, "set": _set,
                  "undo": _undo, "deshacer": _undo, "deshacé": _undo}
