"""What is decided of a heard call after it was heard: a person confirms or dismisses one that
waits for a tap, and its whole phrase takes back a call heard early, or judges a refused one again.

``HeardDecisions`` changes the game as ``heard_calls.HeardCalls`` does, only through the few calls
of ``heard_calls.Game`` (the ``TableService``), and reads it as that one does.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

from referee.doubt import (
    confirmed_reason,
    decided_reason,
    passed_reason,
    rejudged_reason,
    taken_back_reason,
    waiting_reason,
)
from web_scoreboard.errors import ActionError, by_the_store, written
from web_scoreboard.heard_calls import SAY_IT, Game, HeardCalls
from web_scoreboard.heard_items import heard_as, who_said
from web_scoreboard.heard_strip import DISMISSED_REASON, HeardStrip
from web_scoreboard.store import HeardRow


class HeardDecisions:
    """The decisions on the heard items of the game in ``game``, kept in ``strip`` and read as
    ``heard`` reads them; safe to call from any thread, as each call holds the game for one change
    (``Game.change``)."""

    def __init__(self, game: Game, strip: HeardStrip, heard: HeardCalls) -> None:
        self._game = game
        self._strip = strip
        self._store = game.store
        self._heard = heard

    def confirm(self, heard_id: int, origin: str = "confirm",
                instead: str | None = None) -> dict[str, Any]:
        """Apply an "unsure" heard call after a person confirmed it, or, ``instead``, the longer
        call it, or an item heard and refused, was the end of («falta envido» for an «envido»,
        «me voy al mazo» for a «mazo»: ``HeardCalls.line_instead``).

        One that waits for a doubtful item said before it is confirmed only after that one is
        decided, and is read again on the game as it is then, as is a declaration: its seat is
        whose turn it is now, not when it was heard.  One the rules refuse now that a call of
        its hand heard after it was applied («quiero retruco» with a doubtful «quiero»: the
        retruco accepts the truco already) says so, also on its row (``_passed``)."""
        try:
            return self._confirm(heard_id, origin, instead)
        except ActionError as err:
            passed = err.code == "line-rejected" and instead is None
            reason = self._passed(heard_id, err) if passed else None
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
        return passed_reason(heard_as(later[0].to_dict()), err.message)

    def _confirm(self, heard_id: int, origin: str, instead: str | None) -> dict[str, Any]:
        with self._game.change():
            row = self._strip.unsure(self._game.game_id, heard_id, refused=instead is not None)
            self._require_decided(row)
            if self._heard.hand_passed(row.extra):
                raise ActionError("hand-over", f"ese canto era de una mano que ya terminó; {SAY_IT}")
            line, who = (self._heard.line_now(row) if instead is None
                         else self._heard.line_instead(row, instead))
            applied = self._heard.applied_extra(
                *self._game.apply_call(line, origin, self._heard.begins_now(row)))
            reason = confirmed_reason(instead)
            self._strip.set_status(heard_id, "accepted", reason, line=line,
                                   extra={**row.extra, **who, **applied})
            self._decided(row, confirmed=True)
            return self._game.publish()

    def _require_decided(self, row: HeardRow) -> None:
        """Refuse to confirm an item before the doubtful one said before it, which it waits for."""
        before = self._store.heard_item(row.extra["after"]) if "after" in row.extra else None
        if before is not None and before.status == "unsure":
            words = heard_as(before.to_dict())
            raise ActionError("waits-for", f"primero confirmá o descartá «{words}», que se dijo "
                              "antes")

    def dismiss(self, heard_id: int) -> dict[str, Any]:
        with self._game.change():
            row = self._strip.unsure(self._game.game_id, heard_id)
            self._strip.set_status(heard_id, "rejected", DISMISSED_REASON)
            self._decided(row, confirmed=False)
            return self._game.publish()

    def _decided(self, row: HeardRow, confirmed: bool) -> None:
        """The items still waiting for a doubtful one just confirmed or discarded no longer wait
        for it: each can be confirmed now (read again from its own words,
        ``HeardCalls.line_now``), and its reason says why it still asks for a tap."""
        reason = decided_reason(heard_as(row.to_dict()), confirmed)
        for waiting in self._store.heard_of(self._game.game_id, "unsure"):
            if waiting.extra.get("after") == row.id:
                self._strip.set_status(waiting.id, "unsure", reason)

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
                applied = self._heard.applied_extra(*self._game.apply_call(
                    str(row.line), "voice", self._heard.deals(row.extra)))
            except ActionError as err:
                if by_the_store(err):
                    raise
                self._wait_for(taken, row.id, row.extra)
                continue
            extra = {**row.extra, **applied}
            written(partial(self._store.set_heard_extra, row.id, extra))
            self._strip.show(row.id, extra=extra)

    def _wait_for(self, before: HeardRow, heard_id: int, extra: dict[str, Any]) -> None:
        """Leave heard item ``heard_id`` (with ``extra``) waiting for the doubtful ``before``."""
        self._strip.set_status(heard_id, "unsure", waiting_reason(heard_as(before.to_dict())),
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
        by_hand = extra.get("undos", self._heard.undos) != self._heard.undos
        if now >= length or (by_hand and now < int(extra.get("phrase_at", now))):
            return
        if row.game_id != self._game.game_id:
            return
        deals = self._heard.deals(extra)
        item = self._heard.read_alone(words, row.team, deals)
        if item is None or item.call != extra["call"] or not item.accepted:
            return
        try:
            applied = self._heard.applied_extra(*self._game.apply_call(item.line, "voice", deals))
        except ActionError as err:
            if by_the_store(err):
                raise
            return
        self._strip.set_status(row.id, "accepted", rejudged_reason(row.reason), line=item.line,
                               extra={**extra, **applied, **who_said(item)})
