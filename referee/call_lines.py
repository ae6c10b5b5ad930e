"""A seat's line of calls (or its declaration of points) written out: its words, as a log line,
and said by another seat."""

from __future__ import annotations

from engine import Say
from engine.events import Declare


def _said(event: Say | Declare) -> str:
    return event.call.value if isinstance(event, Say) else str(event.points)


def line_words(line: list[Say | Declare]) -> str:
    """What a line's seat said («quiero retruco»)."""
    return " ".join(_said(e) for e in line)


def said_by(event: Say | Declare, seat: str) -> Say | Declare:
    """The same call (or declaration), said by another seat."""
    return Say(seat, event.call) if isinstance(event, Say) else Declare(seat, event.points)


def line_text(line: list[Say | Declare]) -> str:
    """A line of calls as a log line: ``B1: truco``, ``A1: no quiero truco``."""
    return str(line[0]) if len(line) == 1 else f"{line[0].seat}: {line_words(line)}"
