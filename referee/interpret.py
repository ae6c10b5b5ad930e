"""From words to events: what a transcript means for the game as it stands.

The phrase table finds the calls, numbers and look-alikes in the words; this module decides, for
each one, which event it is and who said it, using the game state:

- a known seat (a written log line) is taken as is;
- otherwise the speaker is whoever the rules allow: only the challenged team can answer, only the
  team holding the quiero can raise, declarations follow the fixed order.  A team hint (one
  microphone per team) narrows the choice to that team's seats;
- when several seats could have said it, the seat whose turn it is to play is preferred, then
  table order from it.  The choice is marked a ``guess`` where it matters (``guess_of``): the
  "team" when seats of both teams could have said it (a first "truco" or "envido"), the "seat"
  when two seats of a team could and which one changes what the call does (the pica-pica duel it
  goes to, the seat a flor is sung by), so the scoreboard offers the tap that fixes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from engine import Call, Declare, EngineError, Event, Game, Say, Team, team_of
from engine.events import FLOR_CALLS
from referee.phrases import Heard, decoy_reason, parse

# What of who said a call is a guess: its "team", its "seat" within the team, both, or nothing.
Guess = tuple[Literal["team", "seat"], ...]

# Calls that belong to the seat that says them, not only to its team: a flor is the singer's own
# (its cards, its place in the contest's declarations).
SEAT_BOUND: frozenset[Call] = frozenset(FLOR_CALLS)


@dataclass(frozen=True)
class Interpretation:
    """One thing heard in a transcript and what the referee makes of it."""

    heard: Heard
    event: Event | None       # the event it is (attributed), or None for a look-alike
    accepted: bool            # legal now (applied, or to be applied)
    reason: str               # why it was refused, or what it did
    guess: Guess = ()         # what of who said it is a guess that matters (``guess_of``)
    seats: tuple[str, ...] = ()  # the seats that could have said it, the one taken first

    @property
    def call(self) -> str | None:
        """The canonical call name, "puntos" for a number, None for a look-alike."""
        return None if self.heard.kind == "decoy" else self.heard.label

    @property
    def ambiguous(self) -> bool:
        """Who said it is a guess: the team, or the seat within it."""
        return bool(self.guess)

    @property
    def seat(self) -> str | None:
        return getattr(self.event, "seat", None)

    @property
    def line(self) -> str | None:
        return str(self.event) if self.event is not None and self.accepted else None


def candidate_seats(game: Game, team: Team | None) -> list[str]:
    """Seats in the order they are tried: from the seat whose turn it is, round the table."""
    seats = list(game.settings.seats)
    hand = game.hand
    start = (hand.turn() or hand.mano) if hand and not hand.over else seats[0]
    i = seats.index(start)
    ordered = seats[i:] + seats[:i]
    return [s for s in ordered if team is None or team_of(s) == team]


def guess_of(game: Game, call: Call | None, seats: Sequence[str]) -> Guess:
    """What of who said ``call`` is a guess when any of ``seats`` could have: the "team" when they
    are of both teams; the "seat" when two are of one team and the seat matters: in a pica-pica
    hand, where each seat plays a duel of its own, and for a call that is the seat's own (a flor,
    ``SEAT_BOUND``).  Nothing else: for the rest the seat taken makes no difference."""
    teams = {team_of(seat) for seat in seats}
    seat_matters = call in SEAT_BOUND or len(game.deal) > 1
    team: Guess = ("team",) if len(teams) > 1 else ()
    seat: Guess = ("seat",) if seat_matters and len(set(seats)) > len(teams) else ()
    return team + seat


def _event_for(heard: Heard, seat: str) -> Declare | Say:
    if heard.kind == "points":
        assert heard.points is not None
        return Declare(seat, heard.points)
    assert heard.call is not None
    return Say(seat, heard.call)


def _attribute(game: Game, heard: Heard, seats: list[str]) -> Interpretation:
    """The first seat for which the heard call is legal, or a refusal with the first reason."""
    legal: list[Declare | Say] = []
    first_reason = ""
    for seat in seats:
        event = _event_for(heard, seat)
        try:
            game.check(event)
        except EngineError as err:
            first_reason = first_reason or err.reason
            continue
        legal.append(event)
    if not legal:
        return Interpretation(heard, _event_for(heard, seats[0]), False, first_reason)
    could = tuple(e.seat for e in legal)
    return Interpretation(heard, legal[0], True, "", guess_of(game, heard.call, could), could)


def interpret(game: Game, text: str, seat: str | None = None,
              team: Team | None = None) -> list[Interpretation]:
    """What each call, number and look-alike in ``text`` means now, in order.

    Each accepted item is applied to ``game`` before the next is read ("quiero retruco" reads the
    retruco after the quiero), then all are undone: the game is left as it was.
    """
    heard = parse(text)
    results: list[Interpretation] = []
    applied = 0
    try:
        for item in heard:
            if item.kind == "decoy":
                results.append(Interpretation(item, None, False, decoy_reason(item)))
                continue
            seats = [seat] if seat else candidate_seats(game, team)
            result = _attribute(game, item, seats)
            results.append(result)
            if result.accepted:
                assert result.event is not None
                game.apply(result.event)
                applied += 1
    finally:
        for _ in range(applied):
            game.undo()
    return results
