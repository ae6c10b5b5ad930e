"""A table: the game plus the two ways events reach it, written log lines and heard words.

This is the one door into the engine for the replay command, the listener, the camera and the
scoreboard, so all of them read lines and words the same way.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TypeVar

from engine import EnvidoAside, Event, NewHand, Say, Settings, Team, other, team_of
from engine.events import Call, Declare
from referee.call_lines import line_text, line_words, said_by
from referee.envido_aside import duel_of, named_aside, said_aside, widened
from referee.interpret import Interpretation, candidate_seats, interpret
from referee.phrases import CALL_PHRASES, NUMBER_WORDS, longer_calls, parse
from referee.table_lines import LineRejected, LineTable

T = TypeVar("T")

# An answer and its opposite.  "Quiero" heard for "no quiero" (the "no" lost) is the mistake that
# most needs undoing, so the scoreboard turns the last answer into its opposite with one tap.
OPPOSITE_ANSWERS: dict[Call, Call] = {
    Call.QUIERO: Call.NO_QUIERO, Call.NO_QUIERO: Call.QUIERO,
    Call.CON_FLOR_QUIERO: Call.CON_FLOR_ME_ACHICO, Call.CON_FLOR_ME_ACHICO: Call.CON_FLOR_QUIERO,
}


class Table(LineTable):
    """A game and the interpretation of what is said at it."""

    def __init__(self, settings: Settings | None = None) -> None:
        super().__init__(settings)
        # The calls the rules would take in place of the last event (``_said_instead``), for the
        # last event they were worked out for (that event, the count of events)
        self._instead: tuple[Event, int, dict[tuple[Call, ...], list[str]]] | None = None

    # -- heard words -------------------------------------------------------------------------------
    def interpret(self, text: str, team: Team | None = None) -> list[Interpretation]:
        """What a transcript would do now, item by item, without changing anything.

        In a pica-pica hand whose duels await their numbers, a call could also be one of a duel
        whose numbers were missed (``goes_on``): the seats that could have said it there count
        among those that could have said it, so which duel it went to is a guess (``guess_of``)."""
        items = interpret(self.game, text, team=team)
        if len(self.game.deal) < 2:
            return items
        readings = [self._with_aside(aside, lambda: interpret(self.game, text, team=team))
                    for aside in self._asides(team)]
        return [widened(self.game, item, [r[k] for r in readings])
                for k, item in enumerate(items)]

    def _with_aside(self, aside: EnvidoAside, read: Callable[[], T]) -> T:
        """What ``read`` gives with the envido ``aside`` set aside first; the game is left as it was."""
        self._apply_event(aside)
        try:
            return read()
        finally:
            self.undo()

    def preview(self, text: str, team: Team | None = None,
                begins: bool = True) -> list[Interpretation]:
        """What a transcript would do, without changing anything, read as ``hear`` would read its
        first call, if it ``begins`` a phrase: in the next hand when the last one is over
        (``hear`` deals it), and with the envido set aside when its call shows the hand went on
        without the numbers (``goes_on``)."""
        dealt = begins and self._can_deal()
        first = NewHand() if dealt else self.goes_on(text, team) if begins else None
        if first is None:
            return self.interpret(text, team)
        self._apply_event(first)
        try:
            return said_aside(self.interpret(text, team), first)
        finally:
            self.undo()

    def expected(self) -> frozenset[str]:
        """What the rules would take now as the first thing said, by anyone: the calls and the
        envido numbers (``Heard.key``: "quiero", "puntos:27") the recognizer listens for most.
        Read as ``preview`` reads a phrase of one call (in the next hand when this one is over;
        with the envido set aside when only that takes it), each reading made once for all the
        phrases: taking an event back replays the game."""
        if self._can_deal():
            return self._taken_after(NewHand())
        taken = keys_taken(self.interpret)
        for aside in self._asides(None):
            taken |= self._taken_after(aside)
        return taken

    def _taken_after(self, first: Event) -> frozenset[str]:
        """``keys_taken`` once ``first`` is applied; the game is left as it was."""
        self._apply_event(first)
        try:
            return keys_taken(self.interpret)
        finally:
            self.undo()

    def read_calls(self, calls: Sequence[tuple[str, str | None]],
                   at: int) -> list[str | None] | None:
        """What each call does, said one after the other (its words, read with its team hint)
        when the log had its first ``at`` lines, read as ``hear`` reads a phrase (the first the
        rules take deals the next hand when the last one was over where the phrase began; none
        after it does, ``doubt.Earlier.deals``): the line it applies and where it leaves the
        hand's bets (``_bets``: «B1: quiero» accepts whatever is pending, «A1: falta envido»
        raises whatever was bet); None where the rules refuse it or its words are not one call,
        and None for them all when the log lost lines since (no telling).  Nothing changes here:
        how a phrase begun then reads with some of its calls and without others
        (``doubt.Held``)."""
        if at > len(self.game.events):
            return None
        earlier = Table(self.game.initial_settings)
        for past in self.game.events[:at]:
            earlier.game.apply(past)
        read: list[str | None] = []
        for k, (words, team) in enumerate(calls):
            hint: Team | None = "A" if team == "A" else "B" if team == "B" else None
            deals = len(earlier.game.events) == at  # nothing of the phrase applied yet
            items = [i for i in earlier.hear(words, hint, begins=deals) if i.call is not None]
            line = items[0].line if len(items) == 1 else None
            read.append(None if line is None else f"{line} → {_bets(earlier)}")
        return read

    def hear(self, text: str, team: Team | None = None,
             begins: bool = True) -> list[Interpretation]:
        """Interpret a transcript and apply what is legal, item by item.

        If the transcript ``begins`` a phrase (nothing of the phrase applied yet,
        ``doubt.Earlier.deals``), a call heard after the hand ended deals the next hand first, if
        the rules accept the call in it (a stray «quiero» deals nothing), and a call heard while
        the numbers of an accepted envido are awaited, that the rules take only without them,
        sets the envido aside first (``goes_on``).  The words that go on a phrase do neither, as
        in the whole phrase, whose first call the rules take decides: «truco» then «truco» in a
        pica-pica hand is one duel's truco and a second one refused, not two duels set aside.
        """
        dealt = begins and self._wants_new_hand(text)
        first = NewHand() if dealt else self.goes_on(text, team) if begins else None
        if first is not None:
            self._apply_event(first)
        items = said_aside(self.interpret(text, team), first)
        applied = [item.event for item in items if item.accepted and item.event is not None]
        if first is not None and not applied:
            self.undo()
        for event in applied:
            self._apply_event(event)
        return items

    def goes_on(self, text: str, team: Team | None = None) -> EnvidoAside | None:
        """The set-aside to apply first when a transcript heard while the numbers of an accepted
        envido (or flor) are awaited shows the hand went on without them (its first call taken
        either way is taken only once that envido is set aside); else None.  A truco said then
        means the numbers were said and not heard; leaving the envido for the table to settle
        with a tap keeps the rest of the hand.  Only the first such call decides, as when the
        phrase is heard in parts: «truco … treinta y tres» sets the envido aside, as its «truco»
        handed over early does, and the number after it is refused; «treinta y tres … truco»
        does not.  In pica-pica only the envido of the duel the call goes to is set aside, named
        by the call's seat (``envido aside B1``): the other duels still await their numbers."""
        first: list[int] = []  # where the first call taken as the game stands is

        def taken() -> list[Event]:
            # ``_aside_taking`` reads the game as it stands first, then with each set-aside
            items = interpret(self.game, text, team=team)
            if not first:
                first.append(next((k for k, i in enumerate(items) if i.accepted), len(items)))
            return [i.event for i in items[:first[0]] if i.accepted and i.event is not None]

        return self._aside_taking(taken, team)

    def sets_aside(self, line: str) -> str | None:
        """The line that sets aside an envido (or flor) whose numbers were not heard
        (``envido aside``; ``envido aside A3`` in pica-pica) when a log line is refused only
        because they are awaited: taken once it is set aside (``goes_on``, for a line); else
        None."""
        aside = self._aside_taking(lambda: self._taken(line))
        return None if aside is None else str(aside)

    def _taken(self, line: str) -> list[Event]:
        try:
            return self.events_for_line(line)
        except LineRejected:
            return []

    def _aside_taking(self, taken: Callable[[], list[Event]],
                      team: Team | None = None) -> EnvidoAside | None:
        """The first set-aside the rules take now (``_asides``) that makes ``taken``, empty now,
        take something, named by the seat of what it takes; else None."""
        asides = self._asides(team)
        if not asides or taken():
            return None
        for aside in asides:
            events = self._with_aside(aside, taken)
            if events:
                return named_aside(aside, events, self.game)
        return None

    def _asides(self, team: Team | None) -> list[EnvidoAside]:
        """The set-asides the rules take now: the hand's, or in pica-pica one for each duel whose
        numbers are awaited, named by its seat tried first for a heard call (``candidate_seats``)."""
        if len(self.game.deal) < 2:
            asides = [EnvidoAside()]
        else:
            first_seat: dict[tuple[str, ...], str] = {}
            for seat in candidate_seats(self.game, team):
                first_seat.setdefault(duel_of(self.game, seat), seat)
            asides = [EnvidoAside(seat) for seat in first_seat.values()]
        return [aside for aside in asides if self.game.is_legal(aside)]

    def _wants_new_hand(self, text: str) -> bool:
        return self._can_deal() and any(h.kind == "call" for h in parse(text))

    def _can_deal(self) -> bool:
        """Whether the hand is over (or none was dealt) and the next one may be dealt."""
        hand_done = self.game.hand is None or self.game.deal_over
        return hand_done and self.game.is_legal(NewHand())

    def flip_last(self) -> str:
        """Give the last line's calls (or declaration) to the other team: one tap on the
        scoreboard.  A line of two calls was said by one seat, so both move, or neither."""
        said = self._said_last()
        rival_team = other(team_of(said[0].seat))
        rivals = [s for s in self.game.settings.seats if team_of(s) == rival_team]
        # in pica-pica, the rival facing the seat first: the call stays in its duel if it can
        own = duel_of(self.game, said[0].seat)
        rivals.sort(key=lambda seat: seat not in own)
        return self._give(said, rivals, f"{rival_team} no puede haber dicho «{line_words(said)}» ahora")

    def partners_of_last(self) -> list[str]:
        """The other seats of the team whose seat made the last call (none with two players, or
        when the last line is not a call): who else of that team may have said it."""
        line = self._last_line()
        said = [e for e in line if isinstance(e, Say)]
        if not said or len(said) < len(line):
            return []
        seat = said[0].seat
        return [s for s in self.game.settings.seats if team_of(s) == team_of(seat) and s != seat]

    def give_last_to(self, seat: str) -> str:
        """Give the last line's calls to ``seat``, of the same team: one tap on the scoreboard
        when a partner said it (with four or six players one microphone cannot tell which seat
        of a team spoke, and the seat matters for a flor)."""
        said = self._said_last()
        if not all(isinstance(e, Say) for e in said):
            raise LineRejected("lo último no fue un canto")
        if seat not in self.partners_of_last():
            raise LineRejected(f"{seat} no es compañero de {said[0].seat}")
        return self._give(said, [seat], f"{seat} no puede haber dicho «{line_words(said)}» ahora")

    def _said_last(self) -> list[Say | Declare]:
        """The last line if it is a seat's calls or declaration, else ``LineRejected``."""
        line = self._last_line()
        said = [e for e in line if isinstance(e, (Say, Declare))]
        if not said or len(said) < len(line):
            raise LineRejected("lo último no fue un canto")
        return said

    def _give(self, said: list[Say | Declare], seats: list[str], refused: str) -> str:
        """Say the last line again by the first of ``seats`` the rules allow; the new line.  If
        none may, the line stays as it was and ``LineRejected(refused)``.  An envido set aside
        for the line (named by its seat, just before it) goes with it: it is set aside again
        only where the line, said by the new seat, needs it (``sets_aside``)."""
        for _ in said:
            self.undo()
        events = self.game.events
        aside = events[-1] if events and events[-1] == EnvidoAside(said[0].seat) else None
        if aside is not None:
            self.undo()
        for seat in seats:
            moved = [said_by(e, seat) for e in said]
            if self._apply_with_aside(moved):
                return line_text(moved)
        if aside is not None:
            self._apply_event(aside)
        self._apply_together(said)
        raise LineRejected(refused)

    def _apply_with_aside(self, said: list[Say | Declare]) -> bool:
        """Apply a seat's line, after setting aside the envido of its duel when only that lets it
        in (``sets_aside``, a line of its own); False, and nothing changed, if it is refused."""
        aside = self.sets_aside(line_text(said))
        if aside is not None:
            self.apply_line(aside)
        try:
            self._apply_together(said)
        except LineRejected:
            if aside is not None:
                self.undo()
            return False
        return True

    def _last_said(self) -> Say | None:
        """The last event if it is a call said by a seat."""
        last = self.game.events[-1] if self.game.events else None
        return last if isinstance(last, Say) else None

    def _last_answer(self) -> Say | None:
        """The last event if it is an answer with an opposite (``OPPOSITE_ANSWERS``)."""
        last = self._last_said()
        return last if last is not None and last.call in OPPOSITE_ANSWERS else None

    def opposite_answer(self) -> str | None:
        """The opposite of the last event if it is an answer («no quiero» for «quiero») the rules
        would take in its place (``swap_answer``), else None."""
        last = self._last_answer()
        found = self._said_instead(last, (OPPOSITE_ANSWERS[last.call],)) if last else []
        return found[0] if found else None

    def longer_than_last(self) -> list[str]:
        """The longer calls the last event, a call, may have been the end of («falta envido» for
        an «envido» whose «falta» went unheard: ``phrases.longer_calls``) that the rules would take
        in its place from its seat (``swap_answer`` with ``to``); not an answer's opposite, which
        ``opposite_answer`` offers («no quiero» is a longer «quiero»)."""
        last = self._last_said()
        if last is None:
            return []
        opposite = OPPOSITE_ANSWERS.get(last.call)
        longer = (Call(name) for name in longer_calls(last.call.value))
        return self._said_instead(last, tuple(c for c in longer if c != opposite))

    def _said_instead(self, last: Say, calls: tuple[Call, ...]) -> list[str]:
        """Which of ``calls`` the rules would take from ``last``'s seat in place of ``last``, the
        last event.  Asked at every snapshot, and finding out replays the game: kept until the
        last event changes."""
        if not calls:
            return []
        known = self._instead
        if known is None or known[0] is not last or known[1] != len(self.game.events):
            known = self._instead = (last, len(self.game.events), {})
        if calls not in known[2]:
            self.game.undo()
            try:
                known[2][calls] = [c.value for c in calls if self.game.is_legal(Say(last.seat, c))]
            finally:
                self.game.apply(last)
        return known[2][calls]

    def swap_answer(self, to: str | None = None) -> str:
        """Turn the last answer into its opposite, or with ``to`` the last call into a longer call
        that ends with it (``longer_than_last``), said by the same seat: one tap on the scoreboard
        when the referee heard «quiero» for «no quiero», or «envido» for «falta envido»."""
        if to is None:
            last = self._last_answer()
            if last is None:
                raise LineRejected("lo último no fue un «quiero» ni un «no quiero»")
            swapped = Say(last.seat, OPPOSITE_ANSWERS[last.call])
        else:
            said = self._last_said()
            if said is None or to not in longer_calls(said.call.value):
                raise LineRejected(f"lo último no pudo haber sido «{to}»")
            last, swapped = said, Say(said.seat, Call(to))
        joined = len(self.game.events) - 1 in self._joined  # the second call of its line
        self.undo()
        if self.game.is_legal(swapped):
            self._apply_event(swapped, joined)
            return str(swapped)
        self._apply_event(last, joined)
        raise LineRejected(f"«{swapped.call.value}» no se puede decir ahora")


def keys_taken(read: Callable[[str], list[Interpretation]]) -> frozenset[str]:
    """The calls and numbers (``Heard.key``) of the phrase table that ``read`` (a table's
    ``interpret`` or ``preview``) takes, each phrase said alone."""
    return frozenset(item.key for phrase in (*CALL_PHRASES, *NUMBER_WORDS)
                     for item, meant in zip(parse(phrase), read(phrase)) if meant.accepted)


def _bets(table: Table) -> str:
    """Where the hand in play stands on its bets: truco, envido and flor, with what it waits for."""
    hand = table.snapshot().get("hand") or {}
    return json.dumps({k: hand.get(k) for k in ("truco", "envido", "flor", "pending")},
                      sort_keys=True, ensure_ascii=False)
