"""Reading one heard item: who said it, the words and team of its call, what it was heard as, and
how an interpreted one is shown (applied, waiting for a tap, or refused with why)."""

from __future__ import annotations

from typing import Any

from engine.events import team_of
from referee.doubt import verdict, waiting_reason
from referee.logline import Spoken, parse_line
from web_scoreboard.heard import HeardStatus


def who_said(item: Any) -> dict[str, Any]:
    """Who an interpreted item is taken to have said it, as its heard row keeps it: the seat, and
    what of that is a guess (``Interpretation.guess``: the page offers the taps that fix it)."""
    return {"seat": item.seat, "guess": list(item.guess)}


def said_words(row: dict[str, Any]) -> str:
    """The words a heard row's call was said with: those heard, or its line's («quiero» of
    «B1: quiero»)."""
    words = (row.get("extra") or {}).get("words")
    if words:
        return str(words)
    spoken = _spoken(row)
    return spoken.text if spoken is not None else ""


def said_by(row: dict[str, Any]) -> str | None:
    """The team a heard row's call is from: its microphone's, or its line's seat's."""
    spoken = _spoken(row)
    return row.get("team") or (team_of(spoken.seat) if spoken is not None else None)


def _spoken(row: dict[str, Any]) -> Spoken | None:
    try:
        said = parse_line(str(row.get("line") or ""))
    except ValueError:
        return None
    return said if isinstance(said, Spoken) else None


def heard_as(row: dict[str, Any]) -> str:
    """What a heard row's item was heard as («envido»), or its line for a row without."""
    return str((row.get("extra") or {}).get("words") or row.get("line"))


def heard_status(item: Any, unsure: bool, waits_for: str | None = None,
                 ) -> tuple[HeardStatus, str | None, str | None]:
    """How one interpreted item is shown: applied, waiting for a tap (on its own, or after the
    doubtful item before it, heard as ``waits_for``), or refused with why.

    A doubtful call the rules refuse is shown refused, not dudoso: a tap could not apply it, so
    nothing said after it waits for it (``doubt.verdict``, as ``listen`` prints it)."""
    shown = verdict(item.call, bool(item.accepted), unsure, waits_for is not None)
    if shown == "waits":  # even if refused: what refused it may be the one it waits for
        event = getattr(item, "event", None)
        line = item.line or (str(event) if event is not None else None)
        return "unsure", line, waiting_reason(str(waits_for))
    if shown in ("look-alike", "refused"):
        return "rejected", None, item.reason
    if shown == "unsure":
        return "unsure", item.line, "dudoso: tocá para confirmar"
    return "accepted", item.line, None
