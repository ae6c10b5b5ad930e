"""What the table camera reads in the game's snapshot: the duels of the deal, who still has to
show their cards, the cards played, and where a line stands in the game's log."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.cards import Card
from engine.events import NewHand, Play, Show
from referee.logline import parse_line

SHOW_ORDER = ("flor", "envido")  # what a winner shows, in the order the engine checks a show


@dataclass(frozen=True)
class ToShow:
    """A seat that won the flor or the envido and has not shown its cards yet."""

    seat: str
    kind: str  # "flor" or "envido"
    declared: int | None  # the number sung; None for a flor nobody sang against


def duels_of(snap: dict[str, Any]) -> list[dict[str, Any]]:
    """The hands of the deal: the duels in pica-pica, else the one hand (none before the first)."""
    return list(snap.get("duels") or ([snap["hand"]] if snap.get("hand") else []))


def to_show(duel: dict[str, Any]) -> list[ToShow]:
    """Who may still show in a duel: the flor winner, else the envido winner (``SHOW_ORDER``)."""
    for kind in SHOW_ORDER:
        view = duel.get(kind) or {}
        if view.get("status") == "decided" and view.get("shown") is None:
            return [ToShow(seat, kind, points) for seat, points in _winners(view)]
    return []


def _winners(view: dict[str, Any]) -> list[tuple[str, int | None]]:
    """The winning team's seat with its best number sung; when nobody declared (a flor nobody
    sang against), each seat of the winning team that sang the flor, without a number."""
    team = view.get("winner")
    said = [(d["seat"], d["points"]) for d in view.get("declarations", [])
            if d.get("points") is not None and d["seat"][0] == team]
    if said:
        return [max(said, key=lambda sung: sung[1])]
    if view.get("declarations"):
        return []
    return [(seat, None) for seat in view.get("sung", []) if seat[0] == team]


def played_by_others(duels: list[dict[str, Any]], seat: str) -> list[Card]:
    """The cards other seats played in this deal (a card shown by ``seat`` cannot be one)."""
    return [card for who, card in plays_in(duels) if who != seat]


def plays_in(duels: list[dict[str, Any]]) -> list[tuple[str, Card]]:
    """Each card played in the deal, with its seat."""
    return [(p["seat"], Card.parse(p["card"])) for duel in duels for r in duel.get("rounds", [])
            for p in r.get("plays", []) if p.get("card")]


def cards_of_last_deal(log: list[str]) -> set[Card]:
    """The cards played or shown in the deal before the current one (by the camera, a tap or a
    voice), from the game's log."""
    starts = [i for i, line in enumerate(log) if line == str(NewHand())]
    if not starts:
        return set()
    first = starts[-2] + 1 if len(starts) > 1 else 0
    return {card for line in log[first:starts[-1]] for card in _cards_of(line)}


def _cards_of(line: str) -> tuple[Card, ...]:
    """The cards a log line puts in sight (a play, a show); none for any other line."""
    try:
        event = parse_line(line)
    except ValueError:
        return ()
    if isinstance(event, Play):
        return (event.card,)
    return event.cards if isinstance(event, Show) else ()


def _log_end(snap: dict[str, Any]) -> tuple[int, list[str]]:
    """The end of the game's log a snapshot gives, and where in the whole log it starts."""
    log = snap.get("log") or []
    return snap.get("log_total", len(log)) - len(log), log


def place_of(snap: dict[str, Any], line: str) -> int | None:
    """Where the last ``line`` stands in the game's whole log (the snapshot may give its end only)."""
    start, log = _log_end(snap)
    return next((start + i for i in range(len(log) - 1, -1, -1) if log[i] == line), None)


def still_at(snap: dict[str, Any], at: int, line: str) -> bool:
    """Whether ``line`` still stands at place ``at`` of the game's log (a place before the end the
    snapshot gives is taken as standing)."""
    start, log = _log_end(snap)
    return at < start or (at - start < len(log) and log[at - start] == line)


def seats_of(snap: dict[str, Any]) -> tuple[str, ...]:
    """The seats of the game in the snapshot (two, before any is known)."""
    return tuple(snap.get("seats") or ("A1", "B1"))
