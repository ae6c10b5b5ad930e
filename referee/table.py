"""A table: the game plus the two ways events reach it, written log lines and heard words.

This is the one door into the engine for the replay command, the listener, the camera and the
scoreboard, so all of them read lines and words the same way.
"""

from __future__ import annotations

from typing import Any

from engine import EngineError, Event, Game, NewHand, Say, Settings, Team, other, snapshot, team_of
from engine.events import Call, Declare
from referee.interpret import Interpretation, interpret
from referee.logline import Spoken, parse_line
from referee.phrases import parse

# An answer and its opposite.  "Quiero" heard for "no quiero" (the "no" lost) is the mistake that
# most needs undoing, so the scoreboard turns the last answer into its opposite with one tap.
OPPOSITE_ANSWERS: dict[Call, Call] = {
    Call.QUIERO: Call.NO_QUIERO, Call.NO_QUIERO: Call.QUIERO,
    Call.CON_FLOR_QUIERO: Call.CON_FLOR_ME_ACHICO, Call.CON_FLOR_ME_ACHICO: Call.CON_FLOR_QUIERO,
}


class LineRejected(ValueError):
    """A line the table refused (or that carried no call); nothing changed."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Table:
    """A game and the interpretation of what is said at it."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.game = Game(settings)

    @property
    def settings(self) -> Settings:
        return self.game.settings

    @property
    def lines(self) -> list[str]:
        """The applied events as log lines; applying them to a new table rebuilds this one."""
        return [str(e) for e in self.game.events]

    def snapshot(self) -> dict[str, Any]:
        return snapshot(self.game)

    # -- written lines ---------------------------------------------------------------------------
    def events_for_line(self, line: str) -> list[Event]:
        """The events one log line stands for, checked in order but not applied.

        Raises ``LineRejected`` with the reason when any of them is refused.
        """
        try:
            parsed = parse_line(line)
        except EngineError as err:
            raise LineRejected(err.reason) from None
        if parsed is None:
            return []
        if not isinstance(parsed, Spoken):
            try:
                self.game.check(parsed)
            except EngineError as err:
                raise LineRejected(err.reason) from None
            return [parsed]
        items = interpret(self.game, parsed.text, seat=parsed.seat)
        return _accepted_events(parsed.text, items)

    def apply_line(self, line: str) -> list[str]:
        """Apply one log line whole, or nothing: returns the canonical lines applied."""
        events = self.events_for_line(line)
        applied = 0
        try:
            for event in events:
                self.game.apply(event)
                applied += 1
        except EngineError as err:
            for _ in range(applied):
                self.game.undo()
            raise LineRejected(err.reason) from None
        return [str(e) for e in events]

    def undo(self) -> str:
        try:
            return str(self.game.undo())
        except EngineError as err:
            raise LineRejected(err.reason) from None

    # -- heard words -------------------------------------------------------------------------------
    def interpret(self, text: str, team: Team | None = None) -> list[Interpretation]:
        """What a transcript would do now, item by item, without changing anything."""
        return interpret(self.game, text, team=team)

    def hear(self, text: str, team: Team | None = None,
             auto_hand: bool = True) -> list[Interpretation]:
        """Interpret a transcript and apply what is legal, item by item.

        With ``auto_hand``, a call heard after the hand ended deals the next hand first, if the
        rules accept the call in it (a stray «quiero» deals nothing).
        """
        dealt = auto_hand and self._wants_new_hand(text)
        if dealt:
            self.game.apply(NewHand())
        items = interpret(self.game, text, team=team)
        applied = [item.event for item in items if item.accepted and item.event is not None]
        if dealt and not applied:
            self.game.undo()
        for event in applied:
            self.game.apply(event)
        return items

    def _wants_new_hand(self, text: str) -> bool:
        hand_done = self.game.hand is None or self.game.deal_over
        has_call = any(h.kind == "call" for h in parse(text))
        return hand_done and has_call and self.game.is_legal(NewHand())

    def flip_last(self) -> str:
        """Give the last call (or declaration) to the other team: one tap on the scoreboard."""
        events = self.game.events
        if not events or not isinstance(events[-1], (Say, Declare)):
            raise LineRejected("lo último no fue un canto")
        last = events[-1]
        self.game.undo()
        rival_team = other(team_of(last.seat))
        for seat in self.game.settings.seats:
            if team_of(seat) != rival_team:
                continue
            flipped = Say(seat, last.call) if isinstance(last, Say) else Declare(seat, last.points)
            if self.game.is_legal(flipped):
                self.game.apply(flipped)
                return str(flipped)
        self.game.apply(last)
        raise LineRejected(f"{rival_team} no puede haber dicho «{_said(last)}» ahora")

    def _last_answer(self) -> Say | None:
        """The last event if it is an answer with an opposite (``OPPOSITE_ANSWERS``)."""
        last = self.game.events[-1] if self.game.events else None
        return last if isinstance(last, Say) and last.call in OPPOSITE_ANSWERS else None

    def opposite_answer(self) -> str | None:
        """The opposite of the last event if it is an answer («no quiero» for «quiero»), else None."""
        last = self._last_answer()
        return None if last is None else OPPOSITE_ANSWERS[last.call].value

    def swap_answer(self) -> str:
        """Turn the last answer into its opposite, said by the same seat: one tap on the scoreboard
        when the referee heard «quiero» for «no quiero» or the other way."""
        last = self._last_answer()
        if last is None:
            raise LineRejected("lo último no fue un «quiero» ni un «no quiero»")
        swapped = Say(last.seat, OPPOSITE_ANSWERS[last.call])
        self.game.undo()
        if self.game.is_legal(swapped):
            self.game.apply(swapped)
            return str(swapped)
        self.game.apply(last)
        raise LineRejected(f"«{swapped.call.value}» no se puede decir ahora")


def _said(event: Say | Declare) -> str:
    return event.call.value if isinstance(event, Say) else str(event.points)


def _accepted_events(text: str, items: list[Interpretation]) -> list[Event]:
    """A spoken log line counts whole: every call in it legal, and at least one call."""
    refused = [i for i in items if not i.accepted and i.call is not None]
    if refused:
        raise LineRejected(refused[0].reason)
    events = [i.event for i in items if i.accepted and i.event is not None]
    if not events:
        decoys = [i.reason for i in items if i.call is None]
        raise LineRejected(decoys[0] if decoys else f"«{text}» no es un canto")
    return events
