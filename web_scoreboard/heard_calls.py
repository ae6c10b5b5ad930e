"""What the tablet does with what the referee heard: record it, hold a doubtful call for a tap,
confirm or dismiss it, take a call back when its whole phrase was less sure, and judge a refused
call again.

``HeardCalls`` changes the game only through the few calls of ``Game`` (the ``TableService``):
one change at a time, stored whole, then published; the items themselves are kept by the
``HeardStrip``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from functools import partial
from typing import Any, Protocol

from referee.doubt import (
    DECLARATIONS,
    Earlier,
    Held,
    Said,
    decided_reason,
    passed_reason,
    rejudged_reason,
    taken_back_reason,
    verdict,
    waiting_reason,
)
from web_scoreboard.errors import ActionError, written
from web_scoreboard.heard import Heard, HeardStatus
from web_scoreboard.heard_strip import HeardStrip
from web_scoreboard.rebuild import TableLike
from web_scoreboard.store import HeardRow, Store


class Game(Protocol):
    """What the heard calls need of the game they change (``TableService``)."""

    store: Store

    @property
    def table(self) -> TableLike: ...

    @property
    def game_id(self) -> int: ...

    def change(self) -> AbstractContextManager[None]: ...

    def publish(self) -> dict[str, Any]: ...

    def preview(self, text: str, team: str | None, deals: bool = True) -> list[Any]: ...

    def interpret_after(self, lines: Iterable[str], text: str,
                        team: str | None) -> list[Any]: ...

    def read_calls(self, calls: Sequence[Said], at: int) -> list[str | None] | None: ...

    def apply_call(self, line: str, origin: str,
                   deals: bool = True) -> tuple[list[str], list[str]]: ...

    def take_back(self, lines: list[str], origin: str) -> None: ...


class HeardCalls:
    """The heard items of the game in ``game``, kept in ``strip``; safe to call from any thread,
    as each call holds the game for one change (``Game.change``)."""

    def __init__(self, game: Game, strip: HeardStrip) -> None:
        self._game = game
        self._strip = strip
        self._store = game.store
        # How many times a line was taken back by hand («deshacer»): a heard call refused before
        # one of them is not judged again for a line it took back (``_rejudge``).
        self._undos = 0

    def undone_by_hand(self, start: int) -> None:
        """A line from ``start`` on was taken back by hand: the heard calls applied in it show
        undone (``HeardStrip.mark_undone``), and a refused call is not judged again for it."""
        self._strip.mark_undone(self._game.game_id, start)
        self._undos += 1

    def record(self, item: Heard) -> dict[str, Any]:
        """Store what the listener heard and show it on the pages; the stored item as a dict.

        An ``accepted`` item's line is applied (dealing a new hand first if the call came after
        the hand ended); if the rules refuse it, the item is stored as ``rejected`` with the
        reason.  ``unsure`` and ``rejected`` items change nothing until confirmed on a page.
        """
        with self._game.change():
            status, reason = item.status, item.reason
            # the hand it was said in: a confirm must come in that hand
            extra = {"hand": self._hand_to_come(), **item.extra}
            if status == "accepted" and item.line:
                try:
                    extra.update(self._applied_extra(*self._game.apply_call(item.line, "voice")))
                except ActionError as err:
                    status, reason = "rejected", err.message
            row = self._strip.add(self._game.game_id, status, item.text, line=item.line,
                                  reason=reason, team=item.team, clip=item.wav(), extra=extra)
            self._game.publish()
            return row

    def record_seen(self, text: str, picture: bytes, line: str | None = None,
                    doubt: str | None = None) -> dict[str, Any]:
        """Show on the pages what the camera saw (a card played, an envido shown), with the
        picture it saw it on (JPEG), beside what was heard; the game is not changed here (the
        camera submits its own lines, ``line`` the last of them): an undo that takes that line
        back shows the item undone.  ``doubt``: why the camera leaves what it saw to the table
        («no la veo: …»), shown as not taken.  The stored item as a dict."""
        with self._game.change():
            extra: dict[str, Any] = {"seen": True}
            lines = list(self._game.table.lines)
            if line is not None and line in lines:
                extra.update(applied=[line], applied_at=len(lines) - 1 - lines[::-1].index(line))
            row = self._strip.add(self._game.game_id, "rejected" if doubt else "accepted", text,
                                  line=line, clip=picture, mime="image/jpeg", extra=extra,
                                  reason=doubt)
            self._game.publish()
            return row

    def hear(self, text: str, team: str | None = None, *, clip: bytes | None = None,
             extra: dict[str, Any] | None = None,
             confidence: Callable[[int, int], float] | None = None,
             needed: Callable[[str | None], float] | None = None,
             earlier: Earlier[int] | None = None) -> list[dict[str, Any]]:
        """Interpret what the listener heard and record each call, number or look-alike in it.

        Legal calls are applied (a call after the hand ended deals the next hand first), unless
        the recognizer was unsure: ``confidence`` gives its confidence in the words ``start:end``
        of the text, so each item is judged on its own words, and below what ``needed`` asks of
        its call (by the call's name; a rare call may need more) it waits for a one-tap
        confirmation.  Refused calls and look-alikes are kept with the reason.  Returns the
        stored rows, in order.

        Once an item waits for a tap, a call after it in the phrase that it can change waits too,
        for a tap after its own (its meaning or seat differ read with it and without it,
        ``doubt.Held``), also when the item was held in an earlier utterance of the same phrase
        (``earlier``: where the phrase began, its calls, the id of the last one held); so does a
        declaration heard while one of the same hand waits (its seat is the next in the order).
        """
        with self._game.change():
            earlier = earlier or Earlier(len(self._game.table.lines))
            deals = earlier.deals(len(self._game.table.lines))
            items = self._game.preview(text, team, deals)
            waiting = self._waiting_declarations()
            shown = self._interpret_after(waiting, text, team) if waiting else items
            held: Held[dict[str, Any]] = Held(
                waiting[-1].to_dict() if waiting else None, self._still_unsure(earlier.held),
                lambda calls: self._game.read_calls(calls, earlier.start), earlier.said)
            rows = []
            for k, item in enumerate(items):
                own = {} if confidence is None else {
                    "confidence": round(confidence(item.heard.start, item.heard.end), 3)}
                bar = needed(item.call) if needed is not None else 0.0
                doubtful = own.get("confidence", 1.0) < bar
                said = (item.heard.text, team)
                after = held.before(item.call, said)
                read = shown[k] if after else item
                if not after and held.phrase is not None and not item.accepted:
                    # refused with the held ones and without them: said as the game stands
                    read = self._read_alone(item.heard.text, team, self._deals(earlier)) or item
                status, line, reason = _heard_status(read, doubtful,
                                                     _words(after) if after else None)
                # which item of the text it is, its words, how long the log was and where its
                # phrase began: a refused call can be judged again (``revise``); the hand
                # it was said in: the one that ended, for a call after the one that ended it
                row = self.record(Heard(
                    text=text, status=status, line=line, reason=reason, team=team, clip=clip,
                    extra={**(extra or {}), **own, "call": item.call,
                           "hand": self._hand_to_come(self._deals(earlier)),
                           "phrase_at": earlier.start, "undos": self._undos,
                           "points": item.heard.points, "seat": item.seat,
                           "ambiguous": item.ambiguous, "item": k, "words": item.heard.text,
                           **({"after": after["id"]} if after else {}),
                           "log_length": len(self._game.table.lines)}))
                held.add(row, item.call, row["status"] == "unsure", said)
                rows.append(row)
            return rows

    def _deals(self, phrase: Earlier[Any] | dict[str, Any]) -> bool:
        """Whether a call of a phrase (begun as ``phrase`` says: its ``Earlier``, or a heard row's
        extra) may deal the next hand now, if the last one is over: only while nothing is applied
        since the phrase began (``Earlier.deals``)."""
        if isinstance(phrase, dict):
            phrase = Earlier(int(phrase.get("phrase_at", len(self._game.table.lines))))
        return phrase.deals(len(self._game.table.lines))

    def _still_unsure(self, heard_id: int | None) -> dict[str, Any] | None:
        """The heard item ``heard_id`` as a dict, if it still waits for a tap."""
        row = self._store.heard_item(heard_id) if heard_id is not None else None
        return row.to_dict() if row is not None and row.status == "unsure" else None

    def _waiting_declarations(self) -> list[HeardRow]:
        """The declarations (numbers, «son buenas») of the hand to come still waiting as dudoso,
        in the order said."""
        hand = self._hand_to_come()
        return [row for row in self._store.heard_of(self._game.game_id, "unsure")
                if row.extra.get("call") in DECLARATIONS and row.extra.get("hand") == hand]

    def _interpret_after(self, waiting: list[HeardRow], text: str, team: str | None) -> list[Any]:
        """Interpret as if the declarations waiting as dudoso were confirmed in order: the seat
        shown for a declaration held behind them.  Each is read on the game with those before it
        in (the lines are made one at a time); from one that cannot be, it is shown as if said
        now: the seat is worked out again when it is confirmed."""
        lines = (self._line_now(row)[0] for row in waiting)
        return self._game.interpret_after(lines, text, team)

    def confirm(self, heard_id: int, origin: str = "confirm") -> dict[str, Any]:
        """Apply an "unsure" heard call after a person confirmed it.

        One that waits for a doubtful item said before it is confirmed only after that one is
        decided, and is read again on the game as it is then, as is a declaration: its seat is
        whose turn it is now, not when it was heard.  One the rules refuse now that a call of
        its hand heard after it was applied («quiero retruco» with a doubtful «quiero»: the
        retruco accepts the truco already) says so, also on its row (``_passed``)."""
        try:
            return self._confirm(heard_id, origin)
        except ActionError as err:
            reason = self._passed(heard_id, err) if err.code == "line-rejected" else None
            if reason is None:
                raise
        with self._game.change():
            self._strip.set_status(heard_id, "unsure", reason)
            self._game.publish()
        raise ActionError("passed", reason.removeprefix("dudoso: "), 422)

    def _passed(self, heard_id: int, err: ActionError) -> str | None:
        """Why a doubtful heard call the rules refuse can no longer be confirmed: a call of its
        hand heard after it was applied (None if none was)."""
        row = self._store.heard_item(heard_id)
        if row is None:
            return None
        later = [r for r in self._store.heard_of(self._game.game_id, "accepted")
                 if r.id > row.id and r.extra.get("hand") == row.extra.get("hand")]
        if not later:
            return None
        return passed_reason(_words(later[0].to_dict()), err.message)

    def _confirm(self, heard_id: int, origin: str) -> dict[str, Any]:
        with self._game.change():
            row = self._strip.unsure(self._game.game_id, heard_id)
            self._require_decided(row)
            heard_in = row.extra.get("hand")
            if heard_in is not None and heard_in != self._hand_to_come():
                raise ActionError("hand-over", "ese canto era de una mano que ya terminó; "
                                  "si se dijo en esta, anotalo con los botones")
            line, who = self._line_now(row)
            applied = self._applied_extra(*self._game.apply_call(line, origin))
            self._strip.set_status(heard_id, "accepted", "confirmado a mano", line=line,
                                   extra={**row.extra, **who, **applied})
            self._decided(row, confirmed=True)
            return self._game.publish()

    def _require_decided(self, row: HeardRow) -> None:
        """Refuse to confirm an item before the doubtful one said before it, which it waits for."""
        before = self._store.heard_item(row.extra["after"]) if "after" in row.extra else None
        if before is not None and before.status == "unsure":
            words = _words(before.to_dict())
            raise ActionError("waits-for", f"primero confirmá o descartá «{words}», que se dijo "
                              "antes")

    def _line_now(self, row: HeardRow) -> tuple[str, dict[str, Any]]:
        """The line an "unsure" heard item stands for now, and who said it if that changed: its
        own line, or, for one that waited for another or a declaration, its words read again on
        the game as it is."""
        words = row.extra.get("words")
        if words and ("after" in row.extra or row.extra.get("call") in DECLARATIONS):
            item = self._read_alone(words, row.team)
            if item is None or not item.accepted:
                reason = item.reason if item is not None else f"«{words}» no es un canto"
                raise ActionError("line-rejected", reason, 422)
            return str(item.line), {"seat": item.seat, "ambiguous": item.ambiguous}
        if not row.line:
            raise ActionError("nothing-to-confirm", "no se sabe qué canto confirmar")
        return row.line, {}

    def _read_alone(self, words: str, team: str | None, deals: bool = True) -> Any | None:
        """What one heard item's words (a call or number) mean on the game as it is now (in the
        next hand when the last one is over, if it ``deals``)."""
        items = [item for item in self._game.preview(words, team, deals) if item.call is not None]
        return items[0] if items else None

    def revise(self, heard_id: int, confidence: float, unsure_below: float,
                     phrase_confidence: float | None = None,
                     waits_for: int | None = None, then: Sequence[int] = ()) -> bool:
        """The whole phrase's confidence in a call the voice referee heard from a partial
        hearing (which has none): kept with the item (with ``phrase_confidence``, the weakest
        word of the whole phrase, if given), and below ``unsure_below`` the call is taken back,
        if nothing was applied after it, and left "unsure" for a tap.  True if it was taken
        back.  One said after a call of its phrase the whole phrase takes back (the heard item
        ``waits_for``, revised after it) that the latter can change is taken back too, sure or
        not, and waits for that one.  The calls applied after it in its phrase that it cannot
        change (``then``, heard items: ``doubt.Held``) do not keep it applied: they are taken
        back with it and applied again after it.

        A call the rules refused waits for the one of its phrase taken back before it that can
        change it (``waits_for``, still unsure: an early «envido» heard in chatter refuses the
        «truco» said after it only if it was said); otherwise it is judged again when the phrase
        confirms it and something was taken back since it was heard (``_rejudge``)."""
        with self._game.change():
            row = self._store.heard_item(heard_id)
            if row is None:
                return False
            extra = {**row.extra, "confidence": round(confidence, 3)}
            if phrase_confidence is not None:
                extra["phrase_confidence"] = round(phrase_confidence, 3)
            self._store.set_heard_extra(heard_id, extra)
            self._strip.show(heard_id, extra=extra)
            before = self._store.heard_item(waits_for) if waits_for is not None else None
            if row.status == "rejected":
                if before is not None and before.status == "unsure":
                    self._wait_for(before, heard_id, extra)
                    self._game.publish()
                    return True
                if confidence >= unsure_below:
                    self._rejudge(row, extra)
                self._game.publish()
                return False
            later = [r for r in (self._store.heard_item(i) for i in then)
                     if r is not None and r.status == "accepted"]
            after = [line for r in later for line in r.extra.get("applied") or []]
            taken = self._still_last(extra, after) if row.status == "accepted" else []
            if (confidence >= unsure_below and before is None) or not taken:
                self._game.publish()
                return False
            self._game.take_back(taken, "voice")
            if before is None:
                self._strip.set_status(heard_id, "unsure", taken_back_reason(confidence))
            else:
                self._wait_for(before, heard_id, extra)
            self._apply_again(later, row)
            self._game.publish()
            return True

    def _still_last(self, extra: dict[str, Any], after: Sequence[str] = ()) -> list[str]:
        """The lines a heard call applied, with the hand it dealt for it, if nothing but
        ``after`` was applied after them: what taking the call back undoes, ``after`` included
        (none if something else was)."""
        applied = list(extra.get("applied") or [])
        with_hand = [*(extra.get("dealt") or []), *applied]
        for lines in (with_hand, applied):
            whole = [*lines, *after]
            if lines and self._game.table.lines[-len(whole):] == whole:
                return whole
        return []

    def _apply_again(self, later: list[HeardRow], taken: HeardRow) -> None:
        """Apply again, in order, the heard calls taken back only to take back ``taken``, said
        before them, which cannot change them; one the rules refuse now waits for it."""
        for row in later:
            try:
                applied = self._applied_extra(*self._game.apply_call(str(row.line), "voice",
                                                                 self._deals(row.extra)))
            except ActionError:
                self._wait_for(taken, row.id, row.extra)
                continue
            extra = {**row.extra, **applied}
            written(partial(self._store.set_heard_extra, row.id, extra))
            self._strip.show(row.id, extra=extra)

    def _wait_for(self, before: HeardRow, heard_id: int, extra: dict[str, Any]) -> None:
        """Leave heard item ``heard_id`` (with ``extra``) waiting for the doubtful ``before``."""
        self._strip.set_status(heard_id, "unsure", waiting_reason(_words(before.to_dict())),
                               extra={**extra, "after": before.id})

    def _rejudge(self, row: HeardRow, extra: dict[str, Any]) -> None:
        """Apply a call the rules refused, if the game allows it now and the log has only lost
        lines since it was heard (a call of its phrase taken back): a call applied after it would
        put the two out of the order they were said in.  Not if a line said before its phrase
        began was taken back by hand since («deshacer» on the tablet): what the table took back
        is not put back by a call it had refused.  Its own words are read again: the calls said
        before it that the whole phrase confirmed are in the game already, those taken back are
        not."""
        words, length = extra.get("words"), extra.get("log_length")
        if extra.get("call") is None or not words or length is None:
            return
        now = len(self._game.table.lines)
        by_hand = extra.get("undos", self._undos) != self._undos
        if now >= length or (by_hand and now < int(extra.get("phrase_at", now))):
            return
        if row.game_id != self._game.game_id:
            return
        deals = self._deals(extra)
        item = self._read_alone(words, row.team, deals)
        if item is None or item.call != extra["call"] or not item.accepted:
            return
        try:
            applied = self._applied_extra(*self._game.apply_call(item.line, "voice", deals))
        except ActionError:
            return
        self._strip.set_status(row.id, "accepted", rejudged_reason(row.reason), line=item.line,
                               extra={**extra, **applied, "seat": item.seat,
                                      "ambiguous": item.ambiguous})

    def dismiss(self, heard_id: int) -> dict[str, Any]:
        with self._game.change():
            row = self._strip.unsure(self._game.game_id, heard_id)
            self._strip.set_status(heard_id, "rejected", "descartado a mano")
            self._decided(row, confirmed=False)
            return self._game.publish()

    def _decided(self, row: HeardRow, confirmed: bool) -> None:
        """The items still waiting for a doubtful one just confirmed or discarded no longer wait
        for it: each can be confirmed now (read again from its own words, ``_line_now``), and
        its reason says why it still asks for a tap."""
        reason = decided_reason(_words(row.to_dict()), confirmed)
        for waiting in self._store.heard_of(self._game.game_id, "unsure"):
            if waiting.extra.get("after") == row.id:
                self._strip.set_status(waiting.id, "unsure", reason)

    def _hand_to_come(self, deals: bool = True) -> int:
        """The number of the hand a call said now belongs to: the hand in play, or the next one
        when it is over (the call deals it, if it ``deals``)."""
        hand = self._game.table.snapshot().get("hand")
        if not hand:
            return 1
        return int(hand["number"]) + (1 if hand.get("over") and deals else 0)

    def _applied_extra(self, dealt: list[str], applied: list[str]) -> dict[str, Any]:
        """What a heard call keeps of the lines it just applied: the hand it dealt first (taken
        back with it, ``_still_last``), its own lines, and where they begin."""
        return {"dealt": dealt, "applied": applied, "applied_at": self._applied_at(applied)}

    def _applied_at(self, applied: list[str]) -> int:
        """Where in the log a heard call's lines, just applied, begin: an undo that takes them
        back marks the call undone (``HeardStrip.mark_undone``)."""
        return len(self._game.table.lines) - len(applied)


def _words(row: dict[str, Any]) -> str:
    """What a heard row's item was heard as («envido»), or its line for a row without."""
    return str((row.get("extra") or {}).get("words") or row.get("line"))


def _heard_status(item: Any, unsure: bool, waits_for: str | None = None,
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

