"""The game and the log lines applied to it: a line (one call or two, «B1: quiero retruco»)
applies whole or not at all, and is taken back whole."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine import EngineError, Event, Game, Settings, snapshot
from referee.interpret import Interpretation, interpret
from referee.logline import Spoken, parse_line


class LineRejected(ValueError):
    """A line the table refused (or that carried no call); nothing changed."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class LineTable:
    """A game and the log lines applied to it, each taken back whole."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.game = Game(settings)
        # The indices of events applied by the same log line as the event before them
        # («B1: quiero retruco» applies two): undo, flip and swap take a line back whole.
        self._joined: set[int] = set()

    @property
    def settings(self) -> Settings:
        return self.game.settings

    @property
    def lines(self) -> list[str]:
        """The applied events as log lines; applying them to a new table rebuilds this one."""
        return [str(e) for e in self.game.events]

    @property
    def joined(self) -> list[bool]:
        """For each applied event, whether the log line of the event before it applied it too."""
        return [i in self._joined for i in range(len(self.game.events))]

    def regroup(self, joined: list[bool]) -> None:
        """Mark which events were applied by one line with the event before them (``joined``, as
        stored), so that a game rebuilt one event at a time takes its lines back whole again."""
        self._joined = {i for i, together in enumerate(joined) if together and i > 0}

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
        self._apply_together(events)
        return [str(e) for e in events]

    def _apply_together(self, events: Sequence[Event]) -> None:
        """Apply events as one line, all or none; raises ``LineRejected`` with the reason of the
        one refused."""
        applied = 0
        try:
            for event in events:
                self._apply_event(event, joined=applied > 0)
                applied += 1
        except EngineError as err:
            for _ in range(applied):
                self.undo()
            raise LineRejected(err.reason) from None

    def _apply_event(self, event: Event, joined: bool = False) -> None:
        """Apply one event; ``joined``: as part of the line of the event before it."""
        self.game.apply(event)
        index = len(self.game.events) - 1
        if joined:
            self._joined.add(index)
        else:
            self._joined.discard(index)

    def undo(self) -> str:
        """Take back the last event (one call of a line that has two: see ``undo_line``)."""
        try:
            event = self.game.undo()
        except EngineError as err:
            raise LineRejected(err.reason) from None
        self._joined.discard(len(self.game.events))
        return str(event)

    def undo_line(self) -> list[str]:
        """Take back the last log line whole: the lines of its events, in the order applied."""
        count = max(len(self._last_line()), 1)  # with nothing applied, ``undo`` says why not
        return [self.undo() for _ in range(count)][::-1]

    def _last_line(self) -> list[Event]:
        """The events the last log line applied (two for «B1: quiero retruco»)."""
        start = len(self.game.events) - 1
        while start > 0 and start in self._joined:
            start -= 1
        return self.game.events[max(start, 0):]


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
