"""The table service: one Table, its store and the broadcast hub, behind a few thread-safe calls.

The HTTP routes, the WebSocket, the voice listener and the camera all change the game through
this object (``submit_line``, ``record_heard``, ``undo``...).  Each change is applied to the Table,
committed to the store, and only then published to the pages as a full snapshot.
"""

from __future__ import annotations

import json
import re
import secrets
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from typing import Any, TypeVar

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
from web_scoreboard.heard import Heard, HeardStatus
from web_scoreboard.hub import Hub
from web_scoreboard.rebuild import SettingsLike, TableLike, common_start, rebuild
from web_scoreboard.store import HeardRow, LogEntry, Store, said

DEFAULT_NAMES = {"A": "Nosotros", "B": "Ellos"}
_SEAT_CALL = re.compile(r"^([AB])(\d+): (.+)$")
_NUMBER = re.compile(r": \d+$")  # a declaration ("A1: 28"), not a call
UNDONE_REASON = "deshecho a mano"
# The referee's ears and eyes, in the order the pages show them (``set_source``).
SOURCE_KEYS = ("mic", "mic A", "mic B", "camera")
SOURCE_STATES = ("ok", "trouble", "off")
T = TypeVar("T")


class ActionError(ValueError):
    """A refused change, with a code for programs and a message for the people at the table."""

    def __init__(self, code: str, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status

    def to_dict(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message}}


def store_failed(err: Exception) -> ActionError:
    """The error for a change the disk refused (full, or the database locked by another program)."""
    words = said(err) if isinstance(err, sqlite3.Error) else str(err)
    return ActionError("store-failed", f"no se pudo guardar: {words}", 503)


def _is_call(line: str) -> bool:
    """A seat's call or declaration (``A1: truco``, ``B1: 27``): what "flip" can move."""
    return _SEAT_CALL.match(line) is not None


class TableService:
    """Owns the current game; every method is safe to call from any thread."""

    def __init__(self, store: Store, hub: Hub, settings: SettingsLike, *,
                 table_factory: Callable[[Any], TableLike],
                 settings_from_dict: Callable[[dict[str, Any]], SettingsLike],
                 rejected_error: type[Exception] = ValueError,
                 heard_limit: int = 30, log_limit: int = 1000) -> None:
        self.store = store
        self.hub = hub
        self.default_settings = settings
        self._make_table = table_factory
        self._settings_from_dict = settings_from_dict
        self._rejected = rejected_error
        self._heard_limit = heard_limit
        self._log_limit = log_limit
        self._lock = threading.RLock()
        # Snapshots are numbered on from the boot's millisecond, not from 0: a page still showing
        # a snapshot of the server before a restart can never name one of this server's
        # (``_require_seen``), and the numbers keep growing across restarts.
        self._seq = time.time_ns() // 1_000_000
        # The snapshot the table last changed in: those made since for the sources alone
        # (``set_source``) show the same table, and a tap on one of them is not stale.
        self._table_seq = self._seq
        self._boot = secrets.token_hex(4)
        self._game_id = 0
        self._names: dict[str, str] = dict(DEFAULT_NAMES)
        self._table = table_factory(settings)
        self._heard: deque[dict[str, Any]] = deque(maxlen=heard_limit)
        # How many times a line was taken back by hand («deshacer»): a heard call refused before
        # one of them is not judged again for a line it took back (``_rejudge``).
        self._undos = 0
        self._warnings: list[str] = []
        self._sources: dict[str, dict[str, str]] = {}
        self._current: tuple[int, str, dict[str, Any]] = (0, "{}", {})
        # What a change being made tells the pages and ``on_stored`` once it is on disk.
        self._told: list[Callable[[], None]] | None = None
        # Told of every stored change (action, line, origin, score) once it is on disk.
        self.on_stored: Callable[[str, str, str, dict[str, int] | None], None] | None = None

    # -- reading ------------------------------------------------------------------------------
    @property
    def game_id(self) -> int:
        return self._game_id

    @property
    def table(self) -> TableLike:
        return self._table

    def snapshot(self) -> dict[str, Any]:
        return self._current[2]

    def current(self) -> tuple[int, str]:
        """The latest snapshot's sequence number and JSON text."""
        seq, text, _ = self._current
        return seq, text

    def interpret(self, text: str, team: str | None = None) -> list[Any]:
        """What a transcript would do to the game now, without changing it (for the listener)."""
        return self._read(text, team, "interpret")

    def _preview(self, text: str, team: str | None, deals: bool = True) -> list[Any]:
        """``interpret``, as if the next hand were dealt when the last one is over (it will be,
        by the first accepted call, if it ``deals``): the Table's ``preview``."""
        return self._read(text, team, "preview" if deals else "interpret")

    def _read(self, text: str, team: str | None, how: str) -> list[Any]:
        with self._lock:
            read = getattr(self._table, how, None)
            if read is None:
                raise ActionError("no-interpreter", "esta mesa no interpreta lo que se dice", 501)
            return list(read(text, team))

    @contextmanager
    def _change(self) -> Iterator[None]:
        """Hold the table for one change, stored whole or not at all.  Its writes (a line, the
        heard item's verdict, its clip…) are one batch of the store, and the pages are told
        only once it is on disk.  If a write fails after another went in, the store takes them
        all back and the table is rebuilt from what is stored, so that a refusal («no se pudo
        guardar») means nothing changed, and a second tap does not take back a second line."""
        with self._lock:
            if self._told is not None:  # a change inside a change: one and the same
                yield
                return
            self._told, wrote = [], False
            try:
                with self.store.batch() as batch:
                    try:
                        yield
                    finally:
                        wrote = batch.writes > 0
            except BaseException as err:
                told, self._told = self._told, None
                if wrote or told:
                    self._restore()
                if isinstance(err, sqlite3.Error):
                    raise store_failed(err) from err
                raise
            told, self._told = self._told, None
            for tell in told:
                tell()

    def _restore(self) -> None:
        """After a change the store refused: the table, the heard strip and the pages as stored
        (the pages get a new snapshot, so a tap on the old one is stale)."""
        self._load(self._game_id)
        self._publish()

    def list_games(self) -> list[dict[str, Any]]:
        return [g.to_dict() for g in self.store.games()]

    def game_log(self, game_id: int) -> list[dict[str, str]]:
        if self.store.game(game_id) is None:
            raise ActionError("no-such-game", f"no existe la partida {game_id}", 404)
        return [{"action": e.action, "line": e.line, "origin": e.origin}
                for e in self.store.log(game_id)]

    def clip(self, clip_id: str) -> tuple[bytes, str] | None:
        return self.store.clip(clip_id)

    # -- start and games ----------------------------------------------------------------------
    def start(self) -> None:
        """Reopen the game that was in progress, or start the first one."""
        with self._change():
            game_id = self.store.current_game_id()
            if game_id is None:
                game_id = self.store.create_game(self.default_settings.to_dict(), DEFAULT_NAMES)
            self._load(game_id)
            self._publish()

    def new_game(self, settings: dict[str, Any] | None = None,
                 names: dict[str, str] | None = None) -> dict[str, Any]:
        """Start a new game; settings not given are kept from the current game."""
        with self._change():
            merged = {**self._table_settings(), **(settings or {})}
            try:
                rules = self._settings_from_dict(merged)
            except (ValueError, TypeError, KeyError) as err:
                raise ActionError("bad-settings", f"reglas inválidas: {err}", 422) from err
            game_id = self._write(lambda: self.store.create_game(rules.to_dict(),
                                                                 names or self._names))
            self._load(game_id)
            return self._publish()

    def open_game(self, game_id: int) -> dict[str, Any]:
        with self._change():
            if self.store.game(game_id) is None:
                raise ActionError("no-such-game", f"no existe la partida {game_id}", 404)
            self._write(lambda: self.store.set_current_game(game_id))
            self._load(game_id)
            return self._publish()

    def set_names(self, names: dict[str, str]) -> dict[str, Any]:
        with self._change():
            given = {"A": names["A"], "B": names["B"]}
            self._write(lambda: self.store.set_names(self._game_id, given))
            self._names = given
            return self._publish()

    # -- events -------------------------------------------------------------------------------
    def submit_line(self, line: str, origin: str = "manual",
                    seen: int | None = None) -> dict[str, Any]:
        """Apply one replay-log line (``"A1: truco"``); the new snapshot, or ActionError.  With
        ``seen``, only if the table is still as the page showed it (``_require_seen``): two
        tablets tapping «Ronda» or «+1» at once score it once."""
        with self._change():
            self._require_seen(seen)
            self._apply(line, origin)
            return self._publish()

    def undo(self, origin: str = "manual", seen: int | None = None) -> dict[str, Any]:
        """Take back the last line whole (both calls of «B1: quiero retruco»); with ``seen`` (the
        snapshot the page showed), only if nothing changed since (``_require_seen``).  A heard
        call it takes back is shown as undone."""
        with self._change():
            self._require_seen(seen)
            if not self._table.lines:
                raise ActionError("nothing-to-undo", "no hay nada para deshacer")
            joined = self._table.joined
            lines = self._table.undo_line()
            self._persist([LogEntry("undo", x, origin) for x in reversed(lines)],
                          rollback=lambda: self._rollback(0, lines, joined))
            self._mark_undone(len(self._table.lines))
            self._undos += 1
            return self._publish()

    def flip_last(self, origin: str = "manual", seen: int | None = None) -> dict[str, Any]:
        """Give the last line's calls to the other team (the referee heard the wrong side)."""
        return self._replace_last(lambda: self._table.flip_last(), origin, "flip",
                                  "no hay ningún canto para cambiar de equipo", seen)

    def swap_answer(self, origin: str = "manual", seen: int | None = None) -> dict[str, Any]:
        """Turn the last answer into its opposite (the referee heard «quiero» for «no quiero»)."""
        return self._replace_last(lambda: self._table.swap_answer(), origin, "swap",
                                  "no hay ninguna respuesta para cambiar", seen)

    def _require_seen(self, seen: int | None) -> None:
        """A change the page asked for while it showed snapshot ``seen``: refused if the table
        changed since (a double tap, or another tablet was quicker), so it never takes back a
        line the person did not see, nor scores twice what two people tapped once.  A snapshot
        that only said how the microphone or the camera is doing shows the same table."""
        if seen is not None and not self._table_seq <= seen <= self._seq:
            raise ActionError("stale", "la mesa cambió desde que la miraste: fijate cómo quedó y "
                              "volvé a tocar si hace falta", 409)

    def _replace_last(self, change: Callable[[], str], origin: str, name: str,
                      empty: str, seen: int | None = None) -> dict[str, Any]:
        """Replace the last line by what ``change`` (a call on the current Table, made under the
        lock) makes of it, stored as undos of the lines it changed and the lines it put in their
        place; the Table refuses what the rules do not allow."""
        with self._change():
            self._require_seen(seen)
            before, joined = list(self._table.lines), self._table.joined
            if not before:
                raise ActionError(f"nothing-to-{name}", empty)
            try:
                change()
            except self._rejected as err:
                reason = getattr(err, "reason", None) or str(err)
                raise ActionError(f"{name}-refused", reason) from err
            after = list(self._table.lines)
            start = common_start(before, after)
            entries = [LogEntry("undo", x, origin) for x in reversed(before[start:])]
            entries += self._applied_since(start, origin)
            self._persist(entries, rollback=lambda: self._rollback(len(after) - start,
                                                                   before[start:], joined))
            return self._publish()

    # -- heard --------------------------------------------------------------------------------
    def record_heard(self, item: Heard) -> dict[str, Any]:
        """Store what the listener heard and show it on the pages; the stored item as a dict.

        An ``accepted`` item's line is applied (dealing a new hand first if the call came after
        the hand ended); if the rules refuse it, the item is stored as ``rejected`` with the
        reason.  ``unsure`` and ``rejected`` items change nothing until confirmed on a page.
        """
        with self._change():
            status, reason = item.status, item.reason
            # the hand it was said in: a confirm must come in that hand
            extra = {"hand": self._hand_to_come(), **item.extra}
            if status == "accepted" and item.line:
                try:
                    extra.update(self._applied_extra(*self._apply_heard(item.line, "voice")))
                except ActionError as err:
                    status, reason = "rejected", err.message
            return self._add_heard(status, item.text, line=item.line, reason=reason,
                                   team=item.team, clip=item.wav(), extra=extra)

    def record_seen(self, text: str, picture: bytes, line: str | None = None,
                    doubt: str | None = None) -> dict[str, Any]:
        """Show on the pages what the camera saw (a card played, an envido shown), with the
        picture it saw it on (JPEG), beside what was heard; the game is not changed here (the
        camera submits its own lines, ``line`` the last of them): an undo that takes that line
        back shows the item undone.  ``doubt``: why the camera leaves what it saw to the table
        («no la veo: …»), shown as not taken.  The stored item as a dict."""
        with self._change():
            extra: dict[str, Any] = {"seen": True}
            lines = list(self._table.lines)
            if line is not None and line in lines:
                extra.update(applied=[line], applied_at=len(lines) - 1 - lines[::-1].index(line))
            return self._add_heard("rejected" if doubt else "accepted", text, line=line,
                                   clip=picture, mime="image/jpeg", extra=extra, reason=doubt)

    def _add_heard(self, status: str, text: str, *, line: str | None, clip: bytes | None,
                   extra: dict[str, Any], reason: str | None = None, team: str | None = None,
                   mime: str = "audio/wav") -> dict[str, Any]:
        """Store an item of the "Oído" strip (with its clip, if any) and push it to the pages."""
        clip_id = None
        if clip:
            clip_id = secrets.token_hex(8)
            self.store.put_clip(clip_id, clip, mime)
        row = self.store.add_heard(self._game_id, status, text, line=line, reason=reason,
                                   team=team, clip_id=clip_id, extra=extra)
        self._heard.appendleft(row.to_dict())
        self._publish()
        return row.to_dict()

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
        with self._change():
            earlier = earlier or Earlier(len(self._table.lines))
            deals = earlier.deals(len(self._table.lines))
            items = self._preview(text, team, deals)
            waiting = self._waiting_declarations()
            shown = self._interpret_after(waiting, text, team) if waiting else items
            held: Held[dict[str, Any]] = Held(
                waiting[-1].to_dict() if waiting else None, self._still_unsure(earlier.held),
                lambda calls: self.read_calls(calls, earlier.start), earlier.said)
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
                # phrase began: a refused call can be judged again (``revise_heard``); the hand
                # it was said in: the one that ended, for a call after the one that ended it
                row = self.record_heard(Heard(
                    text=text, status=status, line=line, reason=reason, team=team, clip=clip,
                    extra={**(extra or {}), **own, "call": item.call,
                           "hand": self._hand_to_come(self._deals(earlier)),
                           "phrase_at": earlier.start, "undos": self._undos,
                           "points": item.heard.points, "seat": item.seat,
                           "ambiguous": item.ambiguous, "item": k, "words": item.heard.text,
                           **({"after": after["id"]} if after else {}),
                           "log_length": len(self._table.lines)}))
                held.add(row, item.call, row["status"] == "unsure", said)
                rows.append(row)
            return rows

    def read_calls(self, calls: Sequence[Said], at: int) -> list[str | None] | None:
        """How calls said one after the other read from where the log had ``at`` lines, without
        changing the game (``Table.read_calls``); None (no telling: they wait) when the log lost
        lines since, or by a table that does not interpret."""
        with self._lock:
            read = getattr(self._table, "read_calls", None)
            found = None if read is None else read(calls, at)
            return None if found is None else list(found)

    def log_length(self) -> int:
        """How many lines the game's log has (where a phrase heard now begins)."""
        with self._lock:
            return len(self._table.lines)

    def _deals(self, phrase: Earlier[Any] | dict[str, Any]) -> bool:
        """Whether a call of a phrase (begun as ``phrase`` says: its ``Earlier``, or a heard row's
        extra) may deal the next hand now, if the last one is over: only while nothing is applied
        since the phrase began (``Earlier.deals``)."""
        if isinstance(phrase, dict):
            phrase = Earlier(int(phrase.get("phrase_at", len(self._table.lines))))
        return phrase.deals(len(self._table.lines))

    def _still_unsure(self, heard_id: int | None) -> dict[str, Any] | None:
        """The heard item ``heard_id`` as a dict, if it still waits for a tap."""
        row = self.store.heard_item(heard_id) if heard_id is not None else None
        return row.to_dict() if row is not None and row.status == "unsure" else None

    def _waiting_declarations(self) -> list[HeardRow]:
        """The declarations (numbers, «son buenas») of the hand to come still waiting as dudoso,
        in the order said."""
        hand = self._hand_to_come()
        return [row for row in self.store.heard_of(self._game_id, "unsure")
                if row.extra.get("call") in DECLARATIONS and row.extra.get("hand") == hand]

    def _interpret_after(self, waiting: list[HeardRow], text: str, team: str | None) -> list[Any]:
        """Interpret as if the declarations waiting as dudoso were confirmed in order: the seat
        shown for a declaration held behind them."""
        start = len(self._table.lines)
        try:
            for row in waiting:
                self._table.apply_line(self._line_now(row)[0])
        except (ActionError, self._rejected):
            pass  # shown as if said now: the seat is worked out again when it is confirmed
        try:
            return list(self.interpret(text, team))
        finally:
            while len(self._table.lines) > start:
                self._table.undo()

    def confirm_heard(self, heard_id: int, origin: str = "confirm") -> dict[str, Any]:
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
        with self._change():
            self._set_heard_status(heard_id, "unsure", reason)
            self._publish()
        raise ActionError("passed", reason.removeprefix("dudoso: "), 422)

    def _passed(self, heard_id: int, err: ActionError) -> str | None:
        """Why a doubtful heard call the rules refuse can no longer be confirmed: a call of its
        hand heard after it was applied (None if none was)."""
        row = self.store.heard_item(heard_id)
        if row is None:
            return None
        later = [r for r in self.store.heard_of(self._game_id, "accepted")
                 if r.id > row.id and r.extra.get("hand") == row.extra.get("hand")]
        if not later:
            return None
        return passed_reason(_words(later[0].to_dict()), err.message)

    def _confirm(self, heard_id: int, origin: str) -> dict[str, Any]:
        with self._change():
            row = self._unsure(heard_id)
            self._require_decided(row)
            heard_in = row.extra.get("hand")
            if heard_in is not None and heard_in != self._hand_to_come():
                raise ActionError("hand-over", "ese canto era de una mano que ya terminó; "
                                  "si se dijo en esta, anotalo con los botones")
            line, who = self._line_now(row)
            applied = self._applied_extra(*self._apply_heard(line, origin))
            self._set_heard_status(heard_id, "accepted", "confirmado a mano", line=line,
                                   extra={**row.extra, **who, **applied})
            self._decided(row, confirmed=True)
            return self._publish()

    def _require_decided(self, row: HeardRow) -> None:
        """Refuse to confirm an item before the doubtful one said before it, which it waits for."""
        before = self.store.heard_item(row.extra["after"]) if "after" in row.extra else None
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
        items = [item for item in self._preview(words, team, deals) if item.call is not None]
        return items[0] if items else None

    def revise_heard(self, heard_id: int, confidence: float, unsure_below: float,
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
        with self._change():
            row = self.store.heard_item(heard_id)
            if row is None:
                return False
            extra = {**row.extra, "confidence": round(confidence, 3)}
            if phrase_confidence is not None:
                extra["phrase_confidence"] = round(phrase_confidence, 3)
            self.store.set_heard_extra(heard_id, extra)
            self._set_heard(heard_id, extra=extra)
            before = self.store.heard_item(waits_for) if waits_for is not None else None
            if row.status == "rejected":
                if before is not None and before.status == "unsure":
                    self._wait_for(before, heard_id, extra)
                    self._publish()
                    return True
                if confidence >= unsure_below:
                    self._rejudge(row, extra)
                self._publish()
                return False
            later = [r for r in (self.store.heard_item(i) for i in then)
                     if r is not None and r.status == "accepted"]
            after = [line for r in later for line in r.extra.get("applied") or []]
            taken = self._still_last(extra, after) if row.status == "accepted" else []
            if (confidence >= unsure_below and before is None) or not taken:
                self._publish()
                return False
            for _ in taken:
                self._table.undo()
            self._persist([LogEntry("undo", x, "voice") for x in reversed(taken)],
                          rollback=lambda: self._reapply(taken))
            if before is None:
                self._set_heard_status(heard_id, "unsure", taken_back_reason(confidence))
            else:
                self._wait_for(before, heard_id, extra)
            self._apply_again(later, row)
            self._publish()
            return True

    def _still_last(self, extra: dict[str, Any], after: Sequence[str] = ()) -> list[str]:
        """The lines a heard call applied, with the hand it dealt for it, if nothing but
        ``after`` was applied after them: what taking the call back undoes, ``after`` included
        (none if something else was)."""
        applied = list(extra.get("applied") or [])
        with_hand = [*(extra.get("dealt") or []), *applied]
        for lines in (with_hand, applied):
            whole = [*lines, *after]
            if lines and self._table.lines[-len(whole):] == whole:
                return whole
        return []

    def _apply_again(self, later: list[HeardRow], taken: HeardRow) -> None:
        """Apply again, in order, the heard calls taken back only to take back ``taken``, said
        before them, which cannot change them; one the rules refuse now waits for it."""
        for row in later:
            try:
                applied = self._applied_extra(*self._apply_heard(str(row.line), "voice",
                                                                 self._deals(row.extra)))
            except ActionError:
                self._wait_for(taken, row.id, row.extra)
                continue
            extra = {**row.extra, **applied}
            self._write(partial(self.store.set_heard_extra, row.id, extra))
            self._set_heard(row.id, extra=extra)

    def _wait_for(self, before: HeardRow, heard_id: int, extra: dict[str, Any]) -> None:
        """Leave heard item ``heard_id`` (with ``extra``) waiting for the doubtful ``before``."""
        self._set_heard_status(heard_id, "unsure", waiting_reason(_words(before.to_dict())),
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
        now = len(self._table.lines)
        by_hand = extra.get("undos", self._undos) != self._undos
        if now >= length or (by_hand and now < int(extra.get("phrase_at", now))):
            return
        if row.game_id != self._game_id:
            return
        deals = self._deals(extra)
        item = self._read_alone(words, row.team, deals)
        if item is None or item.call != extra["call"] or not item.accepted:
            return
        try:
            applied = self._applied_extra(*self._apply_heard(item.line, "voice", deals))
        except ActionError:
            return
        self._set_heard_status(row.id, "accepted", rejudged_reason(row.reason), line=item.line,
                               extra={**extra, **applied, "seat": item.seat,
                                      "ambiguous": item.ambiguous})

    def dismiss_heard(self, heard_id: int) -> dict[str, Any]:
        with self._change():
            row = self._unsure(heard_id)
            self._set_heard_status(heard_id, "rejected", "descartado a mano")
            self._decided(row, confirmed=False)
            return self._publish()

    def _decided(self, row: HeardRow, confirmed: bool) -> None:
        """The items still waiting for a doubtful one just confirmed or discarded no longer wait
        for it: each can be confirmed now (read again from its own words, ``_line_now``), and
        its reason says why it still asks for a tap."""
        reason = decided_reason(_words(row.to_dict()), confirmed)
        for waiting in self.store.heard_of(self._game_id, "unsure"):
            if waiting.extra.get("after") == row.id:
                self._set_heard_status(waiting.id, "unsure", reason)

    # -- the referee's ears and eyes ----------------------------------------------------------
    def set_source(self, key: str, state: str, message: str = "") -> dict[str, Any] | None:
        """Show on the pages how the microphone or the camera is doing: ``key`` one of
        ``SOURCE_KEYS`` ("mic A" and "mic B" with a microphone per team), ``state`` "ok",
        "trouble" (missing, unplugged, failing: the table must not trust it) or "off" (done, as a
        recording heard to its end).  Not a game event: neither stored nor logged, it describes
        this running process and stays across games.  The new snapshot, or None when nothing
        changed (nothing is published then)."""
        if key not in SOURCE_KEYS or state not in SOURCE_STATES:
            raise ValueError(f"source {key!r} in state {state!r}: the key is one of "
                             f"{', '.join(SOURCE_KEYS)} and the state ok, trouble or off")
        source = {"key": key, "state": state, "message": message}
        with self._lock:
            if self._sources.get(key) == source:
                return None
            self._sources[key] = source
            return self._publish(table=False)

    # -- internals ----------------------------------------------------------------------------
    def _unsure(self, heard_id: int) -> HeardRow:
        row = self.store.heard_item(heard_id)
        if row is None or row.game_id != self._game_id:
            raise ActionError("no-such-heard", f"no hay nada oído con el número {heard_id}", 404)
        if row.status != "unsure":
            raise ActionError("not-unsure", "eso ya fue decidido")
        return row

    def _hand_to_come(self, deals: bool = True) -> int:
        """The number of the hand a call said now belongs to: the hand in play, or the next one
        when it is over (the call deals it, if it ``deals``)."""
        hand = self._table.snapshot().get("hand")
        if not hand:
            return 1
        return int(hand["number"]) + (1 if hand.get("over") and deals else 0)

    def _applied_extra(self, dealt: list[str], applied: list[str]) -> dict[str, Any]:
        """What a heard call keeps of the lines it just applied: the hand it dealt first (taken
        back with it, ``_still_last``), its own lines, and where they begin."""
        return {"dealt": dealt, "applied": applied, "applied_at": self._applied_at(applied)}

    def _applied_at(self, applied: list[str]) -> int:
        """Where in the log a heard call's lines, just applied, begin: an undo that takes them
        back marks the call undone (``_mark_undone``)."""
        return len(self._table.lines) - len(applied)

    def _mark_undone(self, start: int) -> None:
        """Show each heard call applied at line ``start`` or later, now taken back by an undo, as
        undone (stored, so a restart shows it too)."""
        for row in self.store.heard_of(self._game_id, "accepted"):
            at = row.extra.get("applied_at")
            if isinstance(at, int) and at >= start:
                self._set_heard_status(row.id, "undone", UNDONE_REASON)

    def _set_heard_status(self, heard_id: int, status: str, reason: str, *,
                          line: str | None = None, extra: dict[str, Any] | None = None) -> None:
        """Store a heard item's new status and reason (with the line it stands for and its extra,
        if given) and update the pages' copy."""
        if extra is not None:
            self._write(lambda: self.store.set_heard_extra(heard_id, extra))
        self._write(lambda: self.store.set_heard_status(heard_id, status, reason, line=line))
        changed = {"line": line, "extra": extra}
        self._set_heard(heard_id, status=status, reason=reason,
                        **{k: v for k, v in changed.items() if v is not None})

    def _set_heard(self, heard_id: int, **fields: Any) -> None:
        """Update the pages' copy of a heard item."""
        for item in self._heard:
            if item["id"] == heard_id:
                item.update(fields)

    def _apply(self, line: str, origin: str) -> None:
        applied = self._apply_to_table(line)
        entries = self._applied_since(len(self._table.lines) - len(applied), origin)
        self._persist(entries, rollback=lambda: self._rollback(len(applied), []))

    def _applied_since(self, start: int, origin: str) -> list[LogEntry]:
        """The log rows that store the Table's lines from ``start`` on, each said whether it came
        in one line with the row before it."""
        lines, joined = self._table.lines, self._table.joined
        return [LogEntry("apply", lines[k], origin, joined[k]) for k in range(start, len(lines))]

    def _apply_heard(self, line: str, origin: str,
                     deals: bool = True) -> tuple[list[str], list[str]]:
        """Apply a heard call; one heard after the hand ended deals the next hand first, if it
        ``deals`` (``Earlier.deals``).  Returns the lines of the hand it dealt (none if it dealt
        none) and those of the call itself."""
        hand = self._table.snapshot().get("hand")
        before = len(self._table.lines)
        if (not deals or not (hand is None or hand.get("over")) or not _is_call(line)
                or _NUMBER.search(line)):
            self._apply(line, origin)
            return [], list(self._table.lines[before:])
        try:
            dealt = self._apply_to_table("hand")
            call = self._apply_to_table(line)
        except ActionError:
            self._rollback(len(self._table.lines) - before, [])
            raise
        applied = dealt + call
        entries = self._applied_since(before, origin)
        self._persist(entries, rollback=lambda: self._rollback(len(applied), []))
        return dealt, call

    def _apply_to_table(self, line: str) -> list[str]:
        before = len(self._table.lines)
        try:
            self._table.apply_line(line)
        except self._rejected as err:
            reason = getattr(err, "reason", None) or str(err)
            raise ActionError("line-rejected", reason, 422) from err
        return list(self._table.lines[before:])

    def _persist(self, entries: list[LogEntry], rollback: Callable[[], None]) -> None:
        """Commit log rows; if the disk refuses, put the Table back as it was."""
        snap = self._table.snapshot()
        try:
            self.store.append(self._game_id, entries, snap.get("score", {}), snap.get("winner"))
        except Exception as err:
            rollback()
            raise store_failed(err) from err
        on_stored = self.on_stored
        if on_stored is not None:
            def tell() -> None:  # the score once the whole change is made, on its last row
                for k, entry in enumerate(entries, 1):
                    on_stored(entry.action, entry.line, entry.origin,
                              snap.get("score", {}) if k == len(entries) else None)
            self._tell(tell)

    def _write(self, write: Callable[[], T]) -> T:
        """Run one store write; if the disk refuses it, nothing in memory has changed yet."""
        try:
            return write()
        except Exception as err:
            raise store_failed(err) from err

    def _rollback(self, undo_count: int, reapply: Iterable[str],
                  joined: list[bool] | None = None) -> None:
        """Put the Table back: take back events, apply lines again and, with ``joined`` (as it was
        before the change), group them in lines as they were."""
        for _ in range(undo_count):
            self._table.undo()
        self._reapply(reapply)
        if joined is not None:
            self._table.regroup(joined)

    def _reapply(self, lines: Iterable[str]) -> None:
        for line in lines:
            self._table.apply_line(line)

    def _load(self, game_id: int) -> None:
        """Rebuild a game's Table by replaying its stored log."""
        row = self.store.game(game_id)
        if row is None:
            raise ActionError("no-such-game", f"no existe la partida {game_id}", 404)
        stored = self.store.effective_log(game_id)
        rebuilt = rebuild(self._make_table, lambda: self._settings_from_dict(row.settings),
                          lambda: self.default_settings, [entry.line for entry in stored],
                          self._rejected)
        if rebuilt.repair:
            snap = rebuilt.table.snapshot()
            self.store.append(game_id, rebuilt.repair, snap.get("score", {}), snap.get("winner"))
            stored = self.store.effective_log(game_id)
        table = rebuilt.table
        _regroup(table, stored)
        self._table, self._game_id, self._warnings = table, game_id, rebuilt.warnings
        self._names = {**DEFAULT_NAMES, **row.names}
        self._heard.clear()
        self._heard.extend(h.to_dict() for h in self.store.heard(game_id, self._heard_limit))

    def _table_settings(self) -> dict[str, Any]:
        settings = self._table.snapshot().get("settings")
        return dict(settings) if isinstance(settings, dict) else self.default_settings.to_dict()

    def _build_snapshot(self) -> dict[str, Any]:
        snap = dict(self._table.snapshot())
        log = list(snap.get("log") or self._table.lines)
        last = self._table.lines[-1] if self._table.lines else None
        snap.update(
            seq=self._seq, boot=self._boot, game_id=self._game_id, names=dict(self._names),
            heard=[dict(h) for h in self._heard], pin_required=True, warnings=self._warnings,
            log=log[-self._log_limit:], log_total=len(log), last_line=last,
            can_undo=last is not None, can_flip=last is not None and _is_call(last),
            swap_to=self._table.opposite_answer(),
            sources=[dict(self._sources[key]) for key in SOURCE_KEYS if key in self._sources],
        )
        return snap

    def _publish(self, table: bool = True) -> dict[str, Any]:
        """Make the next snapshot and tell the pages (once stored, inside a change); ``table``
        False for one that changes only the sources (``set_source``)."""
        self._seq += 1
        if table:
            self._table_seq = self._seq
        snap = self._build_snapshot()
        text = json.dumps(snap, ensure_ascii=False, separators=(",", ":"))
        current = (self._seq, text, snap)
        self._tell(lambda: self._show(current))
        return snap

    def _show(self, current: tuple[int, str, dict[str, Any]]) -> None:
        self._current = current
        self.hub.publish(current[0], current[1])

    def _tell(self, tell: Callable[[], None]) -> None:
        """Now, or, inside a change, once it is stored (``_change``)."""
        if self._told is None:
            tell()
        else:
            self._told.append(tell)


def _regroup(table: TableLike, stored: list[LogEntry]) -> None:
    """Group a Table rebuilt one line at a time as its stored rows say (``LogEntry.joined``)."""
    if [entry.line for entry in stored] == table.lines:
        table.regroup([entry.joined for entry in stored])


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
