"""The table service: one Table, its store and the broadcast hub, behind a few thread-safe calls.

The HTTP routes, the WebSocket, the voice listener and the camera all change the game through
this object (``submit_line``, ``record_heard``, ``undo``...).  Each change is applied to the Table,
committed to the store, and only then published to the pages as a full snapshot.  What the
referee heard is handled by ``heard_calls.HeardCalls`` and decided later by
``heard_decisions.HeardDecisions``, which change the game through this object too; the heard items
are kept by ``heard_strip.HeardStrip``.
"""

from __future__ import annotations

import json
import re
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from referee.doubt import Earlier, Said
from web_scoreboard.errors import ActionError, store_failed, written
from web_scoreboard.heard import Heard
from web_scoreboard.heard_calls import HeardCalls
from web_scoreboard.heard_decisions import HeardDecisions
from web_scoreboard.heard_strip import HeardStrip
from web_scoreboard.hub import Hub
from web_scoreboard.rebuild import SettingsLike, TableLike, common_start, rebuild
from web_scoreboard.store import LogEntry, Store

DEFAULT_NAMES = {"A": "Nosotros", "B": "Ellos"}
_SEAT_CALL = re.compile(r"^([AB])(\d+): (.+)$")
_NUMBER = re.compile(r": \d+$")  # a declaration ("A1: 28"), not a call
# The referee's ears and eyes, in the order the pages show them (``set_source``).
SOURCE_KEYS = ("mic", "mic A", "mic B", "camera")
SOURCE_STATES = ("ok", "trouble", "off")


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
        self._strip = HeardStrip(store, heard_limit)
        self._heard = HeardCalls(self, self._strip)
        self._decisions = HeardDecisions(self, self._strip, self._heard)
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

    def preview(self, text: str, team: str | None, deals: bool = True) -> list[Any]:
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
    def change(self) -> Iterator[None]:
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
        self.publish()

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
        with self.change():
            game_id = self.store.current_game_id()
            if game_id is None:
                game_id = self.store.create_game(self.default_settings.to_dict(), DEFAULT_NAMES)
            self._load(game_id)
            self.publish()

    def new_game(self, settings: dict[str, Any] | None = None,
                 names: dict[str, str] | None = None) -> dict[str, Any]:
        """Start a new game; settings not given are kept from the current game."""
        with self.change():
            merged = {**self._table_settings(), **(settings or {})}
            try:
                rules = self._settings_from_dict(merged)
            except (ValueError, TypeError, KeyError) as err:
                raise ActionError("bad-settings", f"reglas inválidas: {err}", 422) from err
            game_id = written(lambda: self.store.create_game(rules.to_dict(),
                                                                 names or self._names))
            self._load(game_id)
            return self.publish()

    def open_game(self, game_id: int) -> dict[str, Any]:
        with self.change():
            if self.store.game(game_id) is None:
                raise ActionError("no-such-game", f"no existe la partida {game_id}", 404)
            written(lambda: self.store.set_current_game(game_id))
            self._load(game_id)
            return self.publish()

    def set_names(self, names: dict[str, str]) -> dict[str, Any]:
        with self.change():
            given = {"A": names["A"], "B": names["B"]}
            written(lambda: self.store.set_names(self._game_id, given))
            self._names = given
            return self.publish()

    # -- events -------------------------------------------------------------------------------
    def submit_line(self, line: str, origin: str = "manual",
                    seen: int | None = None) -> dict[str, Any]:
        """Apply one replay-log line (``"A1: truco"``); the new snapshot, or ActionError.  With
        ``seen``, only if the table is still as the page showed it (``_require_seen``): two
        tablets tapping «Ronda» or «+1» at once score it once."""
        with self.change():
            self._require_seen(seen)
            self._apply(line, origin)
            return self.publish()

    def undo(self, origin: str = "manual", seen: int | None = None) -> dict[str, Any]:
        """Take back the last line whole (both calls of «B1: quiero retruco»); with ``seen`` (the
        snapshot the page showed), only if nothing changed since (``_require_seen``).  A heard
        call it takes back is shown as undone."""
        with self.change():
            self._require_seen(seen)
            if not self._table.lines:
                raise ActionError("nothing-to-undo", "no hay nada para deshacer")
            joined = self._table.joined
            lines = self._table.undo_line()
            self._persist([LogEntry("undo", x, origin) for x in reversed(lines)],
                          rollback=lambda: self._rollback(0, lines, joined))
            self._heard.undone_by_hand(len(self._table.lines))
            return self.publish()

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
        with self.change():
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
            return self.publish()

    # -- heard (``heard_calls.HeardCalls``, ``heard_decisions.HeardDecisions``) ----------------
    def record_heard(self, item: Heard) -> dict[str, Any]:
        """Store what the listener heard and show it on the pages (``HeardCalls.record``)."""
        return self._heard.record(item)

    def record_seen(self, text: str, picture: bytes, line: str | None = None,
                    doubt: str | None = None) -> dict[str, Any]:
        """Show on the pages what the camera saw (``HeardCalls.record_seen``)."""
        return self._heard.record_seen(text, picture, line, doubt)

    def hear(self, text: str, team: str | None = None, *, clip: bytes | None = None,
             extra: dict[str, Any] | None = None,
             confidence: Callable[[int, int], float] | None = None,
             needed: Callable[[str | None], float] | None = None,
             earlier: Earlier[int] | None = None) -> list[dict[str, Any]]:
        """Interpret and record what the listener heard (``HeardCalls.hear``)."""
        return self._heard.hear(text, team, clip=clip, extra=extra, confidence=confidence,
                                needed=needed, earlier=earlier)

    def confirm_heard(self, heard_id: int, origin: str = "confirm") -> dict[str, Any]:
        """Apply an "unsure" heard call a person confirmed (``HeardDecisions.confirm``)."""
        return self._decisions.confirm(heard_id, origin)

    def dismiss_heard(self, heard_id: int) -> dict[str, Any]:
        """Set an "unsure" heard call aside (``HeardDecisions.dismiss``)."""
        return self._decisions.dismiss(heard_id)

    def revise_heard(self, heard_id: int, confidence: float, unsure_below: float,
                     phrase_confidence: float | None = None,
                     waits_for: int | None = None, then: Sequence[int] = ()) -> bool:
        """A call heard early, judged on its whole phrase (``HeardDecisions.revise``)."""
        return self._decisions.revise(heard_id, confidence, unsure_below, phrase_confidence,
                                      waits_for, then)

    # -- what the heard calls do to the game (``heard_calls.Game``) ---------------------------
    def apply_call(self, line: str, origin: str,
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

    def take_back(self, lines: list[str], origin: str) -> None:
        """Take back the last events of the log, ``lines`` (as the Table has them), stored as
        undos; if the disk refuses, they are applied again."""
        for _ in lines:
            self._table.undo()
        self._persist([LogEntry("undo", x, origin) for x in reversed(lines)],
                      rollback=lambda: self._reapply(lines))

    def interpret_after(self, lines: Iterable[str], text: str, team: str | None) -> list[Any]:
        """``interpret``, as if ``lines`` were applied first (each taken once those before it
        are in), without changing the game: from the first the rules refuse, or that cannot be
        made (ActionError), the rest are left out."""
        with self._lock:
            start = len(self._table.lines)
            try:
                for line in lines:
                    self._table.apply_line(line)
            except (ActionError, self._rejected):
                pass
            try:
                return self.interpret(text, team)
            finally:
                while len(self._table.lines) > start:
                    self._table.undo()

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
            return self.publish(table=False)

    # -- internals ----------------------------------------------------------------------------
    def _apply(self, line: str, origin: str) -> None:
        applied = self._apply_to_table(line)
        entries = self._applied_since(len(self._table.lines) - len(applied), origin)
        self._persist(entries, rollback=lambda: self._rollback(len(applied), []))

    def _applied_since(self, start: int, origin: str) -> list[LogEntry]:
        """The log rows that store the Table's lines from ``start`` on, each said whether it came
        in one line with the row before it."""
        lines, joined = self._table.lines, self._table.joined
        return [LogEntry("apply", lines[k], origin, joined[k]) for k in range(start, len(lines))]

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
        self._strip.load(game_id)

    def _table_settings(self) -> dict[str, Any]:
        settings = self._table.snapshot().get("settings")
        return dict(settings) if isinstance(settings, dict) else self.default_settings.to_dict()

    def _build_snapshot(self) -> dict[str, Any]:
        snap = dict(self._table.snapshot())
        log = list(snap.get("log") or self._table.lines)
        last = self._table.lines[-1] if self._table.lines else None
        snap.update(
            seq=self._seq, boot=self._boot, game_id=self._game_id, names=dict(self._names),
            heard=self._strip.shown(), pin_required=True, warnings=self._warnings,
            log=log[-self._log_limit:], log_total=len(log), last_line=last,
            can_undo=last is not None, can_flip=last is not None and _is_call(last),
            swap_to=self._table.opposite_answer(),
            sources=[dict(self._sources[key]) for key in SOURCE_KEYS if key in self._sources],
        )
        return snap

    def publish(self, table: bool = True) -> dict[str, Any]:
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
        """Now, or, inside a change, once it is stored (``change``)."""
        if self._told is None:
            tell()
        else:
            self._told.append(tell)


def _regroup(table: TableLike, stored: list[LogEntry]) -> None:
    """Group a Table rebuilt one line at a time as its stored rows say (``LogEntry.joined``)."""
    if [entry.line for entry in stored] == table.lines:
        table.regroup([entry.joined for entry in stored])
