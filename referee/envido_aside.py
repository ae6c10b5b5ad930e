"""An envido set aside when its numbers went unheard: what the items read after it say, the duel
of a pica-pica deal a seat plays in, a duel's set-aside named by the seat that spoke, and the
seats a call could have come from once a duel's envido is set aside."""

from __future__ import annotations

from dataclasses import replace

from engine import EnvidoAside, Event, Game
from referee.interpret import Interpretation, guess_of

ASIDE_REASON = "no se oyeron los tantos: el envido queda para decidir con un toque"


def said_aside(items: list[Interpretation], first: Event | None) -> list[Interpretation]:
    """The items read once the envido was set aside (``first``), the accepted ones saying so."""
    if not isinstance(first, EnvidoAside):
        return items
    return [replace(i, reason=ASIDE_REASON) if i.accepted else i for i in items]


def duel_of(game: Game, seat: str) -> tuple[str, ...]:
    """The seats of the duel (or hand) of the deal in play that ``seat`` plays in."""
    return next(hand.seats for hand in game.deal if seat in hand.seats)


def named_aside(aside: EnvidoAside, events: list[Event], game: Game) -> EnvidoAside:
    """A pica-pica duel's set-aside named by the seat of the first call it lets in (the same
    duel, told by the seat that spoke)."""
    if aside.seat is None:
        return aside
    duel = duel_of(game, aside.seat)
    seats = [seat for seat in (getattr(e, "seat", None) for e in events) if seat in duel]
    return EnvidoAside(seats[0]) if seats else aside


def widened(game: Game, item: Interpretation,
            readings: list[Interpretation]) -> Interpretation:
    """An accepted item with the seats that could also have said it in other ``readings`` of
    its words (with a duel's envido set aside), and what of who said it is a guess then."""
    more = [seat for r in readings if r.accepted for seat in r.seats if seat not in item.seats]
    if not item.accepted or not more:
        return item
    seats = (*item.seats, *dict.fromkeys(more))
    return replace(item, guess=guess_of(game, item.heard.call, seats), seats=seats)
