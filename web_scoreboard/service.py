"""The table service: one Table, its store and the broadcast hub, behind a few thread-safe calls.

The HTTP routes, the WebSocket, the voice listener and the camera all change the game through
this object (``submit_line``, ``record_heard``, ``undo``...).  Each change is applied to the Table,
committed to the store, and only then published to the pages as a full snapshot.  The Table and
its stored log are kept in step by ``game_in_play.GameInPlay``; the snapshots are made by
``snapshots.Snapshots``.  What the referee heard is handled by ``heard_calls.HeardCalls`` and
decided later by ``heard_decisions.HeardDecisions``, which change the game through this object
too; the heard items are kept by ``heard_strip.HeardStrip``.
"""

from __future__ import annotations

import sqlite3
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import IO, Any, Protocol

from models import syserrors
from referee.doubt import Earlier, Said
from referee.table_audio import Replay
from web_scoreboard.errors import (
    STORE_REFUSED,
    ActionError,
    banner_words,
    store_failed,
    store_words,
    written,
)
from web_scoreboard.game_in_play import DEFAULT_NAMES, GameInPlay
from web_scoreboard.heard import Heard
from web_scoreboard.heard_calls import HeardCalls
from web_scoreboard.heard_decisions import HeardDecisions
from web_scoreboard.heard_strip import HeardStrip, evidence_of_lines, voice_tally
from web_scoreboard.hub import Hub
from web_scoreboard.rebuild import SettingsLike, TableLike
from web_scoreboard.record import evidence_zip
from web_scoreboard.snapshots import Snapshots, source_state, store_state
from web_scoreboard.store import LogEntry, Store

EVIDENCE_IN_MEMORY = 8 << 20  # bytes of a game's evidence zip held in memory before it spills to disk


class CalibrationControls(Protocol):
    """What carries out the calibration panel's taps (``referee.table_calibration``): ValueError,
    in words, for one that cannot be done now."""

    def act(self, action: str, players: int, index: int | None,
            kept: int | None = None, name: str = "") -> None: ...

    def voice_sample(self, player: int) -> bytes | None: ...


class TableAudioLike(Protocol):
    """The table's last seconds of sound, kept in memory (``referee.table_audio``)."""

    def last(self, seconds: float) -> Replay | None: ...

    def handed(self, replay_id: str) -> Replay | None: ...

    def kept(self, replay: Replay, where: str) -> None: ...


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
        self._settings_from_dict = settings_from_dict
        self._rejected = rejected_error
        self._lock = threading.RLock()
        self._snapshots = Snapshots(hub, log_limit)
        self._game = GameInPlay(store, settings, table_factory=table_factory,
                                settings_from_dict=settings_from_dict,
                                rejected_error=rejected_error, stored=self._stored)
        self._strip = HeardStrip(store, heard_limit)
        self._heard = HeardCalls(self, self._strip)
        self._decisions = HeardDecisions(self, self._strip, self._heard)
        # What a change being made tells the pages and ``on_stored`` once it is on disk.
        self._told: list[Callable[[], None]] | None = None
        # The game in play when a change the store refused could not be put back as stored (the
        # store could not be read either): rebuilt before anything else (``_settle``).
        self._unsettled: int | None = None
        # The voices' calibration from the tablet (``calibrate``), when the referee listens to a
        # microphone it can calibrate with.
        self.calibration: CalibrationControls | None = None
        # The table's last seconds of sound (``table_sound``), when the referee listens.
        self.table_audio: TableAudioLike | None = None
        # Told of every stored change (action, line, origin, score) once it is on disk.
        self.on_stored: Callable[[str, str, str, dict[str, int] | None], None] | None = None
        # Told once when the store starts refusing changes ("trouble", why, in words for the
        # terminal) and once when it takes them again ("ok", ...): ``store_state``.
        self.on_store_state: Callable[[str, str], None] | None = None

    # -- reading ------------------------------------------------------------------------------
    @property
    def game_id(self) -> int:
        """The game in play, as stored."""
        unsettled = self._unsettled
        return self._game.game_id if unsettled is None else unsettled

    @property
    def table(self) -> TableLike:
        return self._game.table

    def snapshot(self) -> dict[str, Any]:
        return self._snapshots.snapshot()

    def current(self) -> tuple[int, str]:
        """The latest snapshot's sequence number and JSON text."""
        return self._snapshots.current()

    def interpret(self, text: str, team: str | None = None) -> list[Any]:
        """What a transcript would do to the game now, without changing it (for the listener)."""
        return self._read(text, team, "interpret")

    def preview(self, text: str, team: str | None, deals: bool = True) -> list[Any]:
        """``interpret``, as if the next hand were dealt when the last one is over (it will be,
        by the first accepted call, if it ``deals``): the Table's ``preview``."""
        return self._read(text, team, "preview" if deals else "interpret")

    def expected(self) -> frozenset[str]:
        """What the table would take now as the first thing said (the Table's ``expected``;
        nothing from a table that cannot tell): what the recognizer listens for most."""
        with self._lock:
            expected = getattr(self._settled_table(), "expected", None)
            return expected() if expected else frozenset()

    def _read(self, text: str, team: str | None, how: str) -> list[Any]:
        with self._lock:
            read = getattr(self._settled_table(), how, None)
            if read is None:
                raise ActionError("no-interpreter", "esta mesa no interpreta lo que se dice", 501)
            return list(read(text, team))

    @contextmanager
    def change(self, refused: str = STORE_REFUSED) -> Iterator[None]:
        """Hold the table for one change, stored whole or not at all.  Its writes (a line, the
        heard item's verdict, its clip…) are one batch of the store, and the pages are told
        only once it is on disk.  If a write fails after another went in, the store takes them
        all back and the game that was in play when the change began is rebuilt from what is
        stored (not a new game or one opened that the store did not take), so that a refusal
        («no se pudo guardar», or what was not done: ``refused``) means nothing changed, and a
        second tap does not take back a second line.  While the store refuses, every page says
        so (``store_state``), until a change is stored again."""
        with self._lock:
            if self._told is not None:  # a change inside a change: one and the same
                yield
                return
            self._settle()
            in_play = self._game.game_id  # what the store holds as the game in play
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
                    self._restore(in_play)
                cause = _store_cause(err)
                if cause is None:
                    raise
                self._store_is("trouble", cause)
                raise store_failed(cause, refused) from cause
            told, self._told = self._told, None
            for tell in told:
                tell()
            if wrote:
                self._store_is("ok")

    def _restore(self, in_play: int) -> None:
        """After a change the store refused: the game ``in_play`` when it began, its table and
        heard strip as stored, and the pages shown them (a new snapshot, so a tap on the old one
        is stale).  If the store cannot be read either, the table is rebuilt before anything
        else is done with it (``_settle``); the pages go on showing the last snapshot, made
        before the change, which is what is stored."""
        if not in_play:  # the first game was being made: there is nothing to put back
            return
        try:
            self._load(in_play)
        except Exception:  # noqa: BLE001 - the change's own refusal is the one to answer
            self._unsettled = in_play
            return
        self.publish()

    def _settle(self, refuse: bool = True) -> None:
        """Rebuild the game in play from the store if a refused change could not put it back
        (``_restore``).  While it cannot be, a change is refused (``refuse``): nothing made on
        a table that is not the stored one may be stored."""
        if self._unsettled is None:
            return
        try:
            self._load(self._unsettled)
        except Exception as err:
            if not refuse:
                return
            self._store_is("trouble", err)
            raise ActionError("store-failed", "no se puede leer la partida guardada: "
                              f"{store_words(err)}; no se anota nada hasta que se pueda",
                              503) from err
        self._unsettled = None

    def _settled_table(self) -> TableLike:
        """The game's Table, rebuilt first if a refused change left it unsure (``_settle``),
        when the store lets it."""
        self._settle(refuse=False)
        return self._game.table

    def _store_is(self, state: str, err: BaseException | None = None) -> None:
        """Every page says whether the store takes the changes (``store_state``; why not,
        ``err``), and ``on_store_state`` is told, once each time it changes."""
        message = "" if err is None else banner_words(err)
        if not self._snapshots.set_store(store_state(state, message)):
            return
        self.publish(table=False)
        on_store_state = self.on_store_state
        if on_store_state is not None:
            on_store_state(state, banner_words(err, english=True) if err is not None else
                           "Se puede guardar de nuevo: lo que se oye y lo que se toca se anota.")

    GAMES_LISTED = 100  # games listed at a time; the older ones page by page (``before``)

    def list_games(self, before: int | None = None) -> dict[str, Any]:
        """The newest games, or the ones older than game ``before``, and whether there are older
        ones still (``more``), with the game in play."""
        games = self.store.games(self.GAMES_LISTED + 1, before)
        return {"games": [g.to_dict() for g in games[:self.GAMES_LISTED]],
                "more": len(games) > self.GAMES_LISTED, "current": self.game_id}

    def game_log(self, game_id: int) -> list[dict[str, str]]:
        if self.store.game(game_id) is None:
            raise ActionError("no-such-game", f"no existe la partida {game_id}", 404)
        return [{"action": e.action, "line": e.line, "origin": e.origin}
                for e in self.store.log(game_id)]

    def heard_history(self) -> dict[str, Any]:
        """What the history shows of what was heard in the game in play: the clip or picture of
        each line the voice or the camera applied, by the line's place in the log
        (``heard_strip.evidence_of_lines``), and how the voice did (``voice_tally``)."""
        with self._lock:
            table = self._settled_table()
            rows = self.store.heard_of(self._game.game_id)
            return {"lines": evidence_of_lines(rows, list(table.lines)),
                    "tally": voice_tally(rows)}

    def game_record(self, game_id: int) -> str:
        """A stored game as a table log for ``truco-referee replay`` (``web_scoreboard.record``);
        ActionError 404 when there is no such game."""
        with self._lock:
            return self._game.record(game_id)[1]

    def game_evidence(self, game_id: int) -> IO[bytes]:
        """A stored game's table log and everything heard and seen in it, with the clips and
        pictures, as a zip in a file read from its start, for the caller to close (in memory
        up to ``EVIDENCE_IN_MEMORY``, on disk beyond: a long evening's clips are many); ActionError
        404 when there is no such game, 507 when the disk will not hold it.  The clips are read
        and zipped outside the lock: the table goes on meanwhile."""
        with self._lock:
            names, log = self._game.record(game_id)
        out = tempfile.SpooledTemporaryFile(max_size=EVIDENCE_IN_MEMORY)  # noqa: SIM115 - the caller's
        try:
            evidence_zip(out, game_id, names, log, self.store.heard_of(game_id), self.store.clip)
        except BaseException as err:
            out.close()  # nothing half made is left behind
            if isinstance(err, OSError):
                raise ActionError("evidence-failed", "no pude armar el zip con los audios y las "
                                  f"fotos: {syserrors.said(err)}", 507) from err
            raise
        out.seek(0)
        return out

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
        with self.change("no se empezó la partida nueva"):
            merged = {**self._table_settings(), **(settings or {})}
            try:
                rules = self._settings_from_dict(merged)
            except (ValueError, TypeError, KeyError) as err:
                raise ActionError("bad-settings", f"reglas inválidas: {err}", 422) from err
            game_id = written(lambda: self.store.create_game(rules.to_dict(),
                                                                 names or self._game.names))
            self._load(game_id)
            return self.publish()

    def open_game(self, game_id: int) -> dict[str, Any]:
        with self.change(f"no se abrió la partida {game_id}"):
            if self.store.game(game_id) is None:
                raise ActionError("no-such-game", f"no existe la partida {game_id}", 404)
            written(lambda: self.store.set_current_game(game_id))
            self._load(game_id)
            return self.publish()

    def delete_game(self, game_id: int) -> dict[str, Any]:
        """Delete a past game whole, with its clips and pictures (``Store.delete_game``), and
        give their room back to the disk; not the one in play.  How much they took (``freed``,
        bytes)."""
        with self.change(f"no se borró la partida {game_id}"):
            if self.store.game(game_id) is None:
                raise ActionError("no-such-game", f"no existe la partida {game_id}", 404)
            if game_id == self._game.game_id:
                raise ActionError("game-in-play", "la partida en curso no se borra: empezá o "
                                  "abrí otra primero")
            freed = self.store.delete_game(game_id)
        self.store.give_back_room()
        return {"deleted": game_id, "freed": freed}

    def set_names(self, names: dict[str, str]) -> dict[str, Any]:
        with self.change():
            given = {"A": names["A"], "B": names["B"]}
            written(lambda: self.store.set_names(self._game.game_id, given))
            self._game.names = given
            return self.publish()

    # -- events -------------------------------------------------------------------------------
    def submit_line(self, line: str, origin: str = "manual",
                    seen: int | None = None) -> dict[str, Any]:
        """Apply one replay-log line (``"A1: truco"``); the new snapshot, or ActionError.  With
        ``seen``, only if the table is still as the page showed it (``Snapshots.require_seen``):
        two tablets tapping «Ronda» or «+1» at once score it once."""
        with self.change():
            self._snapshots.require_seen(seen)
            self._game.apply(line, origin)
            return self.publish()

    def undo(self, origin: str = "manual", seen: int | None = None) -> dict[str, Any]:
        """Take back the last line whole (both calls of «B1: quiero retruco»); with ``seen`` (the
        snapshot the page showed), only if nothing changed since (``Snapshots.require_seen``).  A
        heard call it takes back is shown as undone."""
        with self.change():
            self._snapshots.require_seen(seen)
            self._game.undo_line(origin)
            self._heard.undone_by_hand(len(self._game.table.lines))
            return self.publish()

    def flip_last(self, origin: str = "manual", seen: int | None = None) -> dict[str, Any]:
        """Give the last line's calls to the other team (the referee heard the wrong side)."""
        return self._replace_last(lambda: self._game.table.flip_last(), origin, "flip",
                                  "no hay ningún canto para cambiar de equipo", seen)

    def give_last_to(self, seat: str, origin: str = "manual",
                     seen: int | None = None) -> dict[str, Any]:
        """Give the last line's calls to a partner of its seat (with four or six players the
        referee cannot tell which seat of a team spoke)."""
        return self._replace_last(lambda: self._game.table.give_last_to(seat), origin, "seat",
                                  "no hay ningún canto para cambiar de asiento", seen)

    def swap_answer(self, origin: str = "manual", seen: int | None = None,
                    to: str | None = None) -> dict[str, Any]:
        """Turn the last answer into its opposite (the referee heard «quiero» for «no quiero»),
        or with ``to`` the last call into a longer one that ends with it («falta envido»)."""
        return self._replace_last(lambda: self._game.table.swap_answer(to), origin, "swap",
                                  "no hay ninguna respuesta para cambiar", seen)

    def _replace_last(self, change: Callable[[], str], origin: str, name: str,
                      empty: str, seen: int | None = None) -> dict[str, Any]:
        """Replace the last line by what ``change`` (a call on the current Table, made under the
        lock) makes of it (``GameInPlay.replace_last``); with ``seen``, only if the table is
        still as the page showed it (``Snapshots.require_seen``)."""
        with self.change():
            self._snapshots.require_seen(seen)
            start = self._game.replace_last(change, origin, name, empty)
            self._heard.changed_by_hand(start, name)
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

    def confirm_heard(self, heard_id: int, origin: str = "confirm",
                      instead: str | None = None) -> dict[str, Any]:
        """Apply an "unsure" heard call a person confirmed, or the longer call it ended
        (``instead``; ``HeardDecisions.confirm``)."""
        return self._decisions.confirm(heard_id, origin, instead)

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
        """Apply a heard call, dealing the next hand first if it ``deals`` and the hand ended
        (``GameInPlay.apply_call``): the lines of the hand it dealt and of the call."""
        return self._game.apply_call(line, origin, deals)

    def take_back(self, lines: list[str], origin: str) -> None:
        """Take back the last events of the log, ``lines``, stored as undos
        (``GameInPlay.take_back``)."""
        self._game.take_back(lines, origin)

    def interpret_after(self, lines: Iterable[str], text: str, team: str | None) -> list[Any]:
        """``interpret``, as if ``lines`` were applied first (each taken once those before it
        are in), without changing the game: from the first the rules refuse, or that cannot be
        made (ActionError), the rest are left out."""
        with self._lock:
            start = len(self._settled_table().lines)
            try:
                for line in lines:
                    self._game.table.apply_line(line)
            except (ActionError, self._rejected):
                pass
            try:
                return self.interpret(text, team)
            finally:
                while len(self._game.table.lines) > start:
                    self._game.table.undo()

    def read_calls(self, calls: Sequence[Said], at: int) -> list[str | None] | None:
        """How calls said one after the other read from where the log had ``at`` lines, without
        changing the game (``Table.read_calls``); None (no telling: they wait) when the log lost
        lines since, or by a table that does not interpret."""
        with self._lock:
            read = getattr(self._settled_table(), "read_calls", None)
            found = None if read is None else read(calls, at)
            return None if found is None else list(found)

    def log_length(self) -> int:
        """How many lines the game's log has (where a phrase heard now begins)."""
        with self._lock:
            return len(self._settled_table().lines)

    # -- the referee's ears and eyes ----------------------------------------------------------
    def set_source(self, key: str, state: str, message: str = "") -> dict[str, Any] | None:
        """Show on the pages how the microphone or the camera is doing: ``key`` one of
        ``snapshots.SOURCE_KEYS`` ("mic A" and "mic B" with a microphone per team), ``state``
        "ok", "poor" (it works, worse than it could: a microphone through a narrow line),
        "trouble" (missing, unplugged, failing: the table must not trust it) or "off" (done, as
        a recording heard to its end).  Not a game event: neither stored nor logged, it
        describes this running process and stays across games.  The new snapshot, or None when
        nothing changed (nothing is published then)."""
        source = source_state(key, state, message)
        return self._show_own(lambda: self._snapshots.set_source(source))

    def set_room(self, low: bool, message: str = "") -> dict[str, Any] | None:
        """Show on the pages whether the data folder runs low on room (``room.RoomWatch``); the
        new snapshot, or None when nothing changed."""
        return self._show_own(lambda: self._snapshots.set_room(low, message))

    def set_calibration(self, state: dict[str, Any] | None) -> dict[str, Any] | None:
        """Show on the pages how the voices' calibration is going (``CalibrationControls``'s
        state); like ``set_source``, not a game event.  The new snapshot, or None when nothing
        changed."""
        return self._show_own(lambda: self._snapshots.set_calibration(state))

    def _show_own(self, changed: Callable[[], bool]) -> dict[str, Any] | None:
        """Publish what a snapshot says of this running server (its sources, room, calibration)
        if ``changed`` (the ``Snapshots`` setter) says it changed; the new snapshot, or None."""
        with self._lock:
            if not changed():
                return None
            return self.publish(table=False)

    def calibrate(self, action: str, players: int = 1, index: int | None = None,
                  kept: int | None = None, name: str = "") -> dict[str, Any]:
        """A tap on the calibration panel ("start" or "add" with the number of ``players``, "next",
        "skip" with the ``index`` of the prompt shown, "cancel", "close", "remove" with the
        ``index`` of a kept player of the ``kept`` listed, "rename" so with their ``name``, "name"
        for the player saying the prompts, "forget"), carried out by the referee's
        ``calibration``; the snapshot then.  ActionError (409) when it cannot be done now, and
        why."""
        controls = self.calibration
        if controls is None:
            raise ActionError("calibration-off", "calibrar las voces desde la tablet necesita "
                              "que 'serve' escuche un micrófono con el modelo de Sphinx en "
                              "español", 409)
        try:
            controls.act(action, players, index, kept, name)
        except ValueError as err:
            raise ActionError("calibration-refused", str(err), 409) from err
        return self.snapshot()

    def table_sound(self, seconds: float) -> Replay:
        """The table's last ``seconds`` of sound as a WAV, for the table to hear again what was
        said; ActionError 409 when this server keeps none, or has heard nothing yet."""
        replay = self._table_audio().last(seconds)
        if replay is None:
            raise ActionError("table-audio-empty", "el micrófono todavía no oyó nada", 409)
        return replay

    def keep_table_sound(self, replay_id: str) -> dict[str, Any]:
        """Keep with the game in play, among what was heard (and in its evidence), the sound
        ``table_sound`` handed over as ``replay_id``, as it was heard; the snapshot then.
        ActionError 409 when it was kept already or is forgotten."""
        kept = self._table_audio()
        with self._lock:
            replay = kept.handed(replay_id)
            if replay is None:
                raise ActionError("table-audio-gone", "ese sonido ya se guardó, o ya se borró de "
                                  "la memoria del árbitro: volvé a escucharlo", 409)
            self._heard.record_table(replay)
            kept.kept(replay, f"con la partida {self._game.game_id}")
            return self.snapshot()

    def _table_audio(self) -> TableAudioLike:
        kept = self.table_audio
        if kept is None:
            raise ActionError("table-audio-off", "el árbitro no guarda el sonido de la mesa: "
                              "hace falta 'serve' con micrófono (y sin --table-audio 0)", 409)
        return kept

    def voice_sample(self, player: int) -> bytes | None:
        """A few prompts a kept calibrated ``player`` said, as a WAV; None when there is no such
        player (or no calibration from this server)."""
        controls = self.calibration
        return None if controls is None else controls.voice_sample(player)

    # -- internals ----------------------------------------------------------------------------
    def _load(self, game_id: int) -> None:
        """Rebuild a game's Table by replaying its stored log (``GameInPlay.load``), and show its
        heard items."""
        self._game.load(game_id)
        self._strip.load(game_id)

    def _table_settings(self) -> dict[str, Any]:
        settings = self._game.table.snapshot().get("settings")
        return dict(settings) if isinstance(settings, dict) else self.default_settings.to_dict()

    def _stored(self, entries: list[LogEntry], snap: dict[str, Any]) -> None:
        """Tell ``on_stored`` of the rows of a change the store took (``GameInPlay``), with the
        Table's snapshot then: once the whole change is on disk (``_tell``)."""
        on_stored = self.on_stored
        if on_stored is not None:
            def tell() -> None:  # the score once the whole change is made, on its last row
                for k, entry in enumerate(entries, 1):
                    on_stored(entry.action, entry.line, entry.origin,
                              snap.get("score", {}) if k == len(entries) else None)
            self._tell(tell)

    def publish(self, table: bool = True) -> dict[str, Any]:
        """Make the next snapshot and tell the pages (once stored, inside a change); ``table``
        False for one that changes only the sources (``set_source``)."""
        current = self._snapshots.make(self._game, self._strip, self._heard, table)
        self._tell(lambda: self._snapshots.show(current))
        return current[2]

    def _tell(self, tell: Callable[[], None]) -> None:
        """Now, or, inside a change, once it is stored (``change``)."""
        if self._told is None:
            tell()
        else:
            self._told.append(tell)


def _store_cause(err: BaseException) -> BaseException | None:
    """The disk's error behind a change refused for it (a write or the commit SQLite or the
    system refused), or None for a refusal of the table's, or of what is stored (a game whose
    rules cannot be read)."""
    if isinstance(err, ActionError) and err.code == "store-failed":
        err = err.__cause__ or err
    return err if isinstance(err, (sqlite3.Error, OSError)) else None
