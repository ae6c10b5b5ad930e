"""What the tablet does with what the referee heard: record it, and judge each call of it as it
is heard (applied, held for a doubtful call or a tap, or refused).

``HeardCalls`` changes the game only through the few calls of ``Game`` (the ``TableService``):
one change at a time, stored whole, then published; the items themselves are kept by the
``HeardStrip``.  What is decided of them later (a tap confirms or dismisses one, the whole
phrase takes one back or judges a refused one again) is ``heard_decisions.HeardDecisions``'s;
reading one item (who said it, its words, how it is shown) is ``heard_items``'s.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from referee import clip_codec
from referee.doubt import DECLARATIONS, Earlier, Held, Said
from referee.phrases import longer_calls
from referee.table_audio import Replay
from web_scoreboard.errors import ActionError, by_the_store
from web_scoreboard.heard import Heard
from web_scoreboard.heard_items import heard_as, heard_status, said_by, said_words, who_said
from web_scoreboard.heard_strip import HeardStrip, may_be_confirmed
from web_scoreboard.rebuild import TableLike
from web_scoreboard.store import HeardRow, Store

# What a doubtful item that can no longer be confirmed says in its place (``too_late``).
SAY_IT = "si se dijo en esta, anotalo con los botones"
HAND_PASSED_REASON = f"ya pasó la mano: {SAY_IT}"
GAME_OVER_REASON = "ya terminó la partida"


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
        # one of them is not judged again for a line it took back (``HeardDecisions._rejudge``).
        self._undos = 0

    @property
    def undos(self) -> int:
        """How many times a line was taken back by hand (``undone_by_hand``)."""
        return self._undos

    def undone_by_hand(self, start: int) -> None:
        """A line from ``start`` on was taken back by hand: the heard calls applied in it show
        undone (``HeardStrip.mark_undone``), and a refused call is not judged again for it."""
        self._strip.mark_undone(self._game.game_id, start)
        self._undos += 1

    def changed_by_hand(self, start: int, how: str) -> None:
        """A line from ``start`` on was given to another seat or turned into its opposite by
        hand (``how``: ``flip``, ``seat``, ``swap``): the heard calls applied in it show the line
        they stand as now (``HeardStrip.reline``)."""
        self._strip.reline(self._game.game_id, start, list(self._game.table.lines), how)

    def record(self, item: Heard) -> dict[str, Any]:
        """Store what the listener heard and show it on the pages; the stored item as a dict.

        An ``accepted`` item's line is applied (dealing a new hand first if the call came after
        the hand ended); if the rules refuse it, the item is stored as ``rejected`` with the
        reason.  ``unsure`` and ``rejected`` items change nothing until confirmed on a page.
        """
        clip, mime = item.audio() or (None, "")  # encoded before the table waits on it
        with self._game.change():
            status, reason = item.status, item.reason
            # the hand it was said in: a confirm must come in that hand
            extra = {"hand": self.hand_to_come(), **item.extra}
            if status == "accepted" and item.line:
                try:
                    extra.update(self.applied_extra(*self._game.apply_call(item.line, "voice")))
                except ActionError as err:
                    if by_the_store(err):
                        raise
                    status, reason = "rejected", err.message
            row = self._strip.add(self._game.game_id, status, item.text, line=item.line,
                                  reason=reason, team=item.team, clip=clip, mime=mime, extra=extra)
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

    def record_table(self, replay: Replay) -> dict[str, Any]:
        """Keep among what was heard the table's sound a tablet heard again («¿Qué se dijo?»),
        with nothing decided from it: evidence the table chose to keep.  The stored item as a
        dict."""
        ended = time.strftime("%H:%M:%S", time.localtime(replay.until))
        text = f"Sonido de la mesa: {replay.said} hasta las {ended}"
        clip, mime = clip_codec.from_wav(replay.wav)  # kept as FLAC, as every clip heard
        with self._game.change():
            row = self._strip.add(self._game.game_id, "kept", text, line=None, clip=clip,
                                  mime=mime, extra={"table_s": round(replay.seconds, 1)})
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
                    read = self.read_alone(item.heard.text, team, self.deals(earlier)) or item
                status, line, reason = heard_status(read, doubtful,
                                                    heard_as(after) if after else None)
                # which item of the text it is, its words, how long the log was and where its
                # phrase began: a refused call can be judged again (``HeardDecisions.revise``);
                # the hand it was said in: the one that ended, for a call after the one that
                # ended it
                row = self.record(Heard(
                    text=text, status=status, line=line, reason=reason, team=team, clip=clip,
                    extra={**(extra or {}), **own, "call": item.call,
                           "hand": self.hand_to_come(self.deals(earlier)),
                           "phrase_at": earlier.start, "undos": self._undos,
                           "points": item.heard.points, **who_said(item),
                           "item": k, "words": item.heard.text,
                           **({"after": after["id"]} if after else {}),
                           "log_length": len(self._game.table.lines)}))
                held.add(row, item.call, row["status"] == "unsure", said)
                rows.append(row)
            return rows

    def deals(self, phrase: Earlier[Any] | dict[str, Any]) -> bool:
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
        hand = self.hand_to_come()
        return [row for row in self._store.heard_of(self._game.game_id, "unsure")
                if row.extra.get("call") in DECLARATIONS and row.extra.get("hand") == hand]

    def _interpret_after(self, waiting: list[HeardRow], text: str, team: str | None) -> list[Any]:
        """Interpret as if the declarations waiting as dudoso were confirmed in order: the seat
        shown for a declaration held behind them.  Each is read on the game with those before it
        in (the lines are made one at a time); from one that cannot be, it is shown as if said
        now: the seat is worked out again when it is confirmed."""
        lines = (self.line_now(row)[0] for row in waiting)
        return self._game.interpret_after(lines, text, team)

    def reads_again(self, row: HeardRow) -> bool:
        """Whether an "unsure" heard item is read again from its words when it is confirmed: one
        that waited for another said before it in its phrase, or a declaration."""
        return _read_again(row.extra)

    def begins_now(self, row: HeardRow) -> bool:
        """Whether an "unsure" heard item, confirmed now, may deal the next hand or set an envido
        aside: one read again (``reads_again``) only while nothing of its phrase is applied since
        the phrase began (``deals``), as heard whole; the others as when they were heard."""
        return self._begins(row.extra)

    def _begins(self, extra: dict[str, Any]) -> bool:
        """``begins_now`` of a heard item with this ``extra``."""
        return not _read_again(extra) or self.deals(extra)

    def line_now(self, row: HeardRow) -> tuple[str, dict[str, Any]]:
        """The line an "unsure" heard item stands for now, and who said it if that changed: its
        own line, or, for one read again (``reads_again``), its words read on the game as it is,
        as the rest of its phrase: once a call of the phrase is applied, it neither deals the
        next hand nor sets an envido aside (``begins_now``), as heard whole («veintiocho … truco»
        with the number confirmed: the truco waits for the tantos)."""
        if self.reads_again(row):
            return self._line_read(str(row.extra.get("words")), row.team, self.begins_now(row))
        if not row.line:
            raise ActionError("nothing-to-confirm", "no se sabe qué canto confirmar")
        return row.line, {}

    def line_instead(self, row: HeardRow, call: str) -> tuple[str, dict[str, Any]]:
        """The line an "unsure" or refused heard item stands for confirmed as ``call``, a longer
        call it may have been the end of (``instead``), said by its team, read on the game as it
        is now; and who said it."""
        item = row.to_dict()
        said = said_words(item)
        if call not in longer_calls(said):
            raise ActionError("not-instead", f"«{said}» no puede haber sido «{call}»", 422)
        return self._line_read(call, said_by(item), self.begins_now(row))

    def instead(self, item: dict[str, Any]) -> list[str]:
        """The longer calls an "unsure" or refused heard item (a shown one, ``may_be_confirmed``)
        may have been the end of, that the rules take now from its team: «falta envido» for an
        «envido» whose first word was heard as no word, «me voy al mazo» for the look-alike
        «mazo», «vale cuatro» for a «cuatro» refused as a number (``phrases.longer_calls``; the
        rules count only the whole call, and a tap says it was said).  The tablet offers them
        beside the item; none for an item of a hand that ended, which cannot be confirmed."""
        extra = item.get("extra") or {}
        calls = longer_calls(said_words(item))
        if not calls or not may_be_confirmed(item) or self.hand_passed(extra):
            return []
        try:
            read = [self.read_alone(call, said_by(item), self._begins(extra)) for call in calls]
        except ActionError:  # a table that does not interpret words
            return []
        return [call for call, meant in zip(calls, read) if meant is not None and meant.accepted]

    def _line_read(self, words: str, team: str | None, deals: bool) -> tuple[str, dict[str, Any]]:
        """The line ``words`` make said now (``read_alone``) and who said them; refused with the
        rules' reason."""
        item = self.read_alone(words, team, deals)
        if item is None or not item.accepted:
            reason = item.reason if item is not None else f"«{words}» no es un canto"
            raise ActionError("line-rejected", reason, 422)
        return str(item.line), who_said(item)

    def read_alone(self, words: str, team: str | None, deals: bool = True) -> Any | None:
        """What one heard item's words (a call or number) mean on the game as it is now (in the
        next hand when the last one is over, if it ``deals``)."""
        items = [item for item in self._game.preview(words, team, deals) if item.call is not None]
        return items[0] if items else None

    def hand_passed(self, extra: dict[str, Any]) -> bool:
        """Whether the hand a heard item (with this ``extra``) was heard in has ended: a tap can
        no longer apply it (``HeardDecisions.confirm`` refuses it, ``hand-over``), nor the longer
        calls it may have been the end of."""
        return extra.get("hand") not in (None, self.hand_to_come())

    def too_late(self, item: dict[str, Any], game_over: bool) -> str | None:
        """Why a heard item that waits for a tap (a shown one) can no longer be confirmed: the
        game is over, or the hand it was heard in ended.  The snapshot says so with the item
        (``late``), and the page shows it in place of «Confirmar», which would only be refused;
        None while a tap may still apply it."""
        if item.get("status") != "unsure":
            return None
        if game_over:
            return GAME_OVER_REASON
        return HAND_PASSED_REASON if self.hand_passed(item.get("extra") or {}) else None

    def hand_to_come(self, deals: bool = True) -> int:
        """The number of the hand a call said now belongs to: the hand in play, or the next one
        when it is over (the call deals it, if it ``deals``)."""
        hand = self._game.table.snapshot().get("hand")
        if not hand:
            return 1
        return int(hand["number"]) + (1 if hand.get("over") and deals else 0)

    def applied_extra(self, dealt: list[str], applied: list[str]) -> dict[str, Any]:
        """What a heard call keeps of the lines it just applied: the hand it dealt first (taken
        back with it, ``HeardDecisions._still_last``), its own lines, and where they begin."""
        return {"dealt": dealt, "applied": applied, "applied_at": self._applied_at(applied)}

    def _applied_at(self, applied: list[str]) -> int:
        """Where in the log a heard call's lines, just applied, begin: an undo that takes them
        back marks the call undone (``HeardStrip.mark_undone``)."""
        return len(self._game.table.lines) - len(applied)


def _read_again(extra: dict[str, Any]) -> bool:
    """``HeardCalls.reads_again`` of a heard item with this ``extra``."""
    return bool(extra.get("words")) and ("after" in extra or extra.get("call") in DECLARATIONS)
