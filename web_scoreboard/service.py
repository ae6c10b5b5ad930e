"""The table service: one Table, its store and the broadcast hub, behind a few thread-safe calls.

The HTTP routes, the WebSocket, the voice listener and the camera all change the game through
this object (``submit_line``, ``record_heard``, ``undo``...).  Each change is applied to the Table,
committed to the store, and only then published to the pages as a full snapshot.  The Table and
its stored log are kept in step by ``game_in_play.GameInPlay``; the snapshots are made by
``snapshots.Snapshots``.  What the referee heard is handled by ``heard_calls.HeardCalls`` and
decided later by ``heard_decisions.HeardDecisions``, which change the game through this object
too; the heard items are kept by ``heard_strip.HeardStrip``.  A change stored whole or not at
all is ``changes.Changes``; the rest is handed to ``table_reads``, ``past_games``,
``calibration_panel`` and ``table_sound``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from typing import IO, Any

from referee.doubt import Earlier, Said
from referee.table_audio import Replay
from web_scoreboard import calibration_panel
from web_scoreboard.calibration_panel import CalibrationControls
from web_scoreboard.changes import Changes
from web_scoreboard.errors import STORE_REFUSED, ActionError, banner_words, store_failed, written
from web_scoreboard.game_in_play import DEFAULT_NAMES, GameInPlay
from web_scoreboard.heard import Heard
from web_scoreboard.heard_calls import HeardCalls
from web_scoreboard.heard_decisions import HeardDecisions
from web_scoreboard.heard_strip import HeardStrip, evidence_of_lines, voice_tally
from web_scoreboard.hub import Hub
from web_scoreboard.past_games import PastGames
from web_scoreboard.rebuild import SettingsLike, TableLike
from web_scoreboard.snapshots import Snapshots, source_state, store_state
from web_scoreboard.store import LogEntry, Store
from web_scoreboard.table_reads import TableReads
from web_scoreboard.table_sound import TableAudioLike, handed_sound, kept_sound, last_sound

__all__ = ["ActionError", "CalibrationControls", "TableAudioLike", "TableService", "store_failed"]


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
        self._lock = threading.RLock()
        self._snapshots = Snapshots(hub, log_limit)
        self._game = GameInPlay(store, settings, table_factory=table_factory,
                                settings_from_dict=settings_from_dict,
                                rejected_error=rejected_error, stored=self._stored)
        self._strip = HeardStrip(store, heard_limit)
        self._heard = HeardCalls(self, self._strip)
        self._decisions = HeardDecisions(self, self._strip, self._heard)
        self._changes = Changes(store, self._game, self._lock, load=self._load,
                                publish=self.publish, store_is=self._store_is)
        self._reads = TableReads(self._game, self._lock, self._changes.settled_table,
                                 rejected_error)
        self._past = PastGames(store, self._game, self._lock, self.change)
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

    # -- reading (``table_reads.TableReads``) -------------------------------------------------
    @property
    def game_id(self) -> int:
        """The game in play, as stored (``Changes.game_id``)."""
        return self._changes.game_id

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
        return self._reads.read(text, team, "interpret")

    def preview(self, text: str, team: str | None, deals: bool = True) -> list[Any]:
        """``interpret``, as if the next hand were dealt when the last one is over (it will be,
        by the first accepted call, if it ``deals``): the Table's ``preview``."""
        return self._reads.read(text, team, "preview" if deals else "interpret")

    def expected(self) -> frozenset[str]:
        """What the table would take now as the first thing said (``TableReads.expected``)."""
        return self._reads.expected()

    # -- one change at a time (``changes.Changes``) -------------------------------------------
    def change(self, refused: str = STORE_REFUSED) -> AbstractContextManager[None]:
        """Hold the table for one change, stored whole or not at all, and told to the pages
        once on disk (``Changes.change``); a refusal (``refused``) means nothing changed."""
        return self._changes.change(refused)

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

    # -- past games (``past_games.PastGames``) ------------------------------------------------
    GAMES_LISTED = 100  # games listed at a time; the older ones page by page (``before``)

    def list_games(self, before: int | None = None) -> dict[str, Any]:
        """The newest games, or the ones older than game ``before`` (``PastGames.listing``)."""
        return self._past.listing(self.GAMES_LISTED, before, self.game_id)

    def game_log(self, game_id: int) -> list[dict[str, str]]:
        return self._past.log(game_id)

    def heard_history(self) -> dict[str, Any]:
        """What the history shows of what was heard in the game in play: the clip or picture of
        each line the voice or the camera applied, by the line's place in the log
        (``heard_strip.evidence_of_lines``), and how the voice did (``voice_tally``)."""
        with self._lock:
            table = self._changes.settled_table()
            rows = self.store.heard_of(self._game.game_id)
            return {"lines": evidence_of_lines(rows, list(table.lines)),
                    "tally": voice_tally(rows)}

    def game_record(self, game_id: int) -> str:
        """A stored game as a table log for ``truco-referee replay`` (``PastGames.record``)."""
        return self._past.record(game_id)

    def game_evidence(self, game_id: int) -> IO[bytes]:
        """A stored game's evidence zip, for the caller to close (``PastGames.evidence``)."""
        return self._past.evidence(game_id)

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
        """Delete a past game whole, not the one in play (``PastGames.delete``)."""
        return self._past.delete(game_id)

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
        """``interpret``, as if ``lines`` were applied first, without changing the game
        (``TableReads.after``)."""
        return self._reads.after(lines, text, team)

    def read_calls(self, calls: Sequence[Said], at: int) -> list[str | None] | None:
        """How calls said one after the other read from where the log had ``at`` lines, without
        changing the game (``TableReads.read_calls``)."""
        return self._reads.read_calls(calls, at)

    def log_length(self) -> int:
        """How many lines the game's log has (where a phrase heard now begins)."""
        return self._reads.log_length()

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
        """A tap on the calibration panel, carried out by the referee's ``calibration``
        (``calibration_panel.tap``); the snapshot then, or ActionError (409) and why."""
        calibration_panel.tap(self.calibration, action, players, index, kept, name)
        return self.snapshot()

    def voice_sample(self, player: int) -> bytes | None:
        """A few prompts a kept calibrated ``player`` said, as a WAV; None when there is none."""
        return calibration_panel.voice_sample(self.calibration, player)

    def table_sound(self, seconds: float) -> Replay:
        """The table's last ``seconds`` of sound as a WAV (``table_sound.last_sound``); ActionError
        409 when this server keeps none, or has heard nothing yet."""
        return last_sound(self.table_audio, seconds)

    def keep_table_sound(self, replay_id: str) -> dict[str, Any]:
        """Keep with the game in play, among what was heard (and in its evidence), the sound
        ``table_sound`` handed over as ``replay_id``, as it was heard; the snapshot then.
        ActionError 409 when it was kept already or is forgotten."""
        kept = kept_sound(self.table_audio)
        with self._lock:
            replay = handed_sound(kept, replay_id)
            self._heard.record_table(replay)
            kept.kept(replay, f"con la partida {self._game.game_id}")
            return self.snapshot()

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
        Table's snapshot then: once the whole change is on disk (``Changes.tell``)."""
        on_stored = self.on_stored
        if on_stored is not None:
            def tell() -> None:  # the score once the whole change is made, on its last row
                for k, entry in enumerate(entries, 1):
                    on_stored(entry.action, entry.line, entry.origin,
                              snap.get("score", {}) if k == len(entries) else None)
            self._changes.tell(tell)

    def publish(self, table: bool = True) -> dict[str, Any]:
        """Make the next snapshot and tell the pages (once stored, inside a change); ``table``
        False for one that changes only the sources (``set_source``)."""
        current = self._snapshots.make(self._game, self._strip, self._heard, table)
        self._changes.tell(lambda: self._snapshots.show(current))
        return current[2]
