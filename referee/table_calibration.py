"""The table's voices calibrated from the tablet while ``serve`` runs, as ``voices calibrate``
does from a terminal: each player in turn is shown each prompt and says it into the table's
microphone; then the Spanish Sphinx model is fitted to what they said, kept as the table's
calibration, and handed to the running recognizer.

While the players are recorded the microphone's audio goes to the calibration, not to the
listener (``tap``): a prompt said is not a call.  The listener then goes on with the audio after
it, its clock carried on as if the recording had not been there.  Every change of state is shown
on the pages (``show``, the service's ``set_calibration``) as a dict: ``state`` ("idle",
"listening", "ready" for the next player, "fitting", "done", "failed"), the player and prompt,
what became of the last prompt, the result, whether the table has a calibration in use (which
"forget" drops, as ``voices forget`` does), how many players' recordings it keeps and their
names ("" for one not named; "rename" names one, as ``voices name`` does).

A player who sits down at a calibrated table is added ("add"): only they say the prompts, and the
calibration is fitted again on everyone's, the kept recordings and theirs.  Heard with a
calibration made without them, a player is heard about as with none, and in noise worse
(docs/voice.md, "A table calibrated together").  A player who leaves is removed ("remove"):
their recordings are deleted and the calibration is fitted again on the others' (with no one
left, it is forgotten); ``voice_sample`` lets the table hear whose voice each kept player is.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from models import syserrors
from referee.asr import kept_recordings
from referee.asr import learn as voice_learning
from referee.asr.base import RecognizerError
from referee.audio import AudioChunk
from referee.calibration_prompts import (
    NOTHING_HEARD,
    PLAY_FORGOTTEN,
    PROMPTS,
    PhraseCapture,
    unfitted,
)
from referee.device_status import NARROW_CALIBRATION

Voices = Sequence[Sequence[tuple[bytes, str]]]
Fit = Callable[[Path, Path, Voices, Sequence[str]], tuple[Path, Any]]  # and the players' names

# The taps each state takes (``act``); any other is refused, saying why.
TAPS = {
    "idle": ("start", "add", "remove", "rename", "forget"),
    "listening": ("skip", "name", "cancel"),
    "ready": ("next", "name", "cancel"),
    "fitting": (),
    "done": ("close", "start", "add", "remove", "rename", "forget"),
    "failed": ("close", "start", "add", "remove", "rename", "forget"),
}
REFUSED = {
    "idle": "no se está calibrando: tocá «Calibrar las voces»",
    "listening": "se está calibrando: «Saltear» o «Cancelar»",
    "ready": "se espera al próximo jugador: «Empezar» o «Cancelar»",
    "fitting": "se está calibrando con lo que dijeron: esperá un momento",
    "done": "la calibración terminó: «Cerrar»",
    "failed": "la calibración no salió: «Cerrar»",
}


class Dropped(Exception):
    """A fit that left the table with no calibration (said why, in its message)."""


class TableCalibration:
    """Records the prompts from the table's stream, player by player, and calibrates."""

    def __init__(self, show: Callable[[dict[str, Any]], object], models_dir: Path,
                 recognizer: Any, log: Callable[[str], None], *,
                 prompts: Sequence[str] = PROMPTS,
                 fit: Fit = voice_learning.calibrate_prompts) -> None:
        self._show, self._log = show, log
        self.models_dir, self.recognizer = models_dir, recognizer
        self.prompts = tuple(prompts)
        self._fit = fit
        self._lock = threading.RLock()
        self._state = "idle"
        self._players = 1
        self._voices: list[list[tuple[bytes, str]]] = []
        self._names: dict[int, str] = {}  # the players recorded now who gave a name, by number
        self._index = 0  # the prompt being said, of the last voice
        self._missed = 0
        self._last = ""
        self._message = ""
        self._capture: PhraseCapture | None = None
        self._unfitted = ""  # what the last fit left out, in words (``unfitted``)
        self._calibrated = bool(getattr(recognizer, "calibrated", False))
        self._kept = kept_recordings.player_names(models_dir)  # players whose recordings are kept
        self._adding = False  # the players recorded join those kept
        self._publish()

    # -- the tablet's taps --------------------------------------------------------------------
    def act(self, action: str, players: int = 1, index: int | None = None,
            kept: int | None = None, name: str = "") -> None:
        """A tap: "start" (with the number of ``players``), "add" (that many players more, to
        the table's kept recordings), "remove" (the kept player ``index``, of the ``kept`` the
        page listed, if given), "rename" (the kept player ``index`` is called ``name``; "" takes
        their name away), "name" (the player saying the prompts, or the next one to, is called
        ``name``), "next", "skip" (the prompt shown, ``index``, if given), "cancel",
        "close", "forget"; ValueError, in words, for one the state does not take, a skip of a
        prompt already heard, an "add", "remove" or "rename" on a table with no such recordings
        kept, a name too long, or a "remove" or "rename" from a list that has changed since
        (another page removed or added one)."""
        with self._lock:
            if action not in TAPS[self._state]:
                raise ValueError(REFUSED[self._state])
            if action == "skip" and index not in (None, self._index + 1):
                raise ValueError(f"ese ya lo oí; ahora va «{self.prompts[self._index]}»")
            if action in ("start", "add"):
                if action == "add" and not (self._calibrated and self._kept):
                    raise ValueError("no hay voces calibradas guardadas a las que sumar otra: "
                                     "tocá «Calibrar las voces»")
                self._players, self._voices, self._missed, self._message = players, [], 0, ""
                self._names = {}
                self._adding = action == "add"
                who = _players(players)
                joins = (f" que se {'suma' if players == 1 else 'suman'} a "
                         f"{_players(len(self._kept))}"
                         " ya calibrados") if self._adding else ""
                self._log(f"escucha: calibrando las voces desde la tablet ({who}{joins}); "
                          "mientras tanto no oigo cantos")
                self._next_player()
            elif action == "next":
                self._next_player()
            elif action == "skip":
                self._answered(None, "lo salteaste")
            elif action == "name":
                player = self._player()
                others = [*(self._kept if self._adding else ()),
                          *(given for p, given in self._names.items() if p != player)]
                self._names[player] = kept_recordings.player_name(name, others)
            elif action in ("remove", "rename"):
                if kept not in (None, len(self._kept)):
                    raise ValueError("la lista de voces cambió: ahora hay "
                                     f"{_players(len(self._kept))} calibrados; fijate de nuevo")
                if action == "remove":
                    self._remove(index or 0)
                else:
                    self._rename(index or 0, name)
            elif action == "forget":
                self._forget()
            elif action == "cancel":
                self._state, self._voices, self._capture, self._adding = "idle", [], None, False
                self._log("escucha: calibración cancelada; no guardé nada")
            else:  # close
                self._state = "idle"
            self._publish()

    # -- the microphone -----------------------------------------------------------------------
    def tap(self, source: Iterable[AudioChunk]) -> Iterator[AudioChunk]:
        """The stream for the listener: the audio heard while the players are recorded goes to
        the calibration, and the rest follows on as if it had not been there."""
        taken = 0.0
        for chunk in source:
            if self.hears(chunk):
                taken += chunk.duration
            else:
                yield replace(chunk, t=chunk.t - taken) if taken else chunk

    def hears(self, chunk: AudioChunk) -> bool:
        """Record a chunk if a player is being recorded (or the next is awaited); False if the
        listener should hear it."""
        with self._lock:
            if self._state == "ready":
                return True
            if self._state != "listening" or self._capture is None:
                return False
            got = self._capture.feed(chunk.pcm)
            if got is not None:
                pcm, why = got
                self._answered(pcm, why)
                self._publish()
            return True

    # -- internals ----------------------------------------------------------------------------
    def _next_player(self) -> None:
        self._voices.append([])
        self._index, self._last = 0, ""
        self._listen()

    def _listen(self) -> None:
        self._state, self._capture = "listening", PhraseCapture()

    def _answered(self, pcm: bytes | None, why: str) -> None:
        """The prompt shown was said (``pcm``), or not and why; on to the next one."""
        text = self.prompts[self._index]
        if pcm is None:
            self._missed += 1
            self._last = f"«{text}»: {why}; sigo"
        else:
            self._voices[-1].append((pcm, text))
            self._last = f"te oí «{text}»"
        self._index += 1
        if self._index < len(self.prompts):
            self._listen()
        elif len(self._voices) < self._players:
            self._state, self._capture = "ready", None
        else:
            self._state, self._capture = "fitting", None
            threading.Thread(target=self._calibrate, name="voice-calibration", daemon=True).start()

    def _calibrate(self) -> None:
        """Fit the model to what was said and hand it to the recognizer (in its own thread)."""
        heard = [(v, self._names.get(k, "")) for k, v in enumerate(self._voices, 1) if v]
        voices = [v for v, _ in heard]
        said = sum(len(v) for v in voices)

        def fitted() -> str:
            if not said:
                raise RecognizerError("nothing-heard", NOTHING_HEARD)
            # a player added: fitted with the players' recordings kept, and said so
            kept, names = (kept_recordings.saved_players(self.models_dir) if self._adding
                           else ([], []))
            seconds = self._refit([*kept, *voices], [*names, *(name for _, name in heard)])
            before = f" y las de {_players(len(kept))} ya calibrados" if kept else ""
            return f"Listo: {said} frases{before}, {seconds:.0f} s de voz."

        self._fitting(fitted)

    def _remove(self, player: int) -> None:
        """Delete a kept player's recordings and fit again on the others' in the background; with
        no one else kept, forget the calibration."""
        voice = self._voice_of(player)
        if len(self._kept) == 1:
            self._forget()
            return
        self._state = "fitting"
        self._message = f"Saco {voice} y calibro con las de los demás…"
        self._log(f"escucha: saco {voice} de la calibración; mientras tanto sigo oyendo cantos")

        def fitted() -> str:
            voices, names = kept_recordings.saved_players(self.models_dir)
            if len(voices) < max(player, 2):  # changed on disk since (``voices forget --player``)
                raise ValueError(f"las voces guardadas cambiaron: quedan {len(voices)}; "
                                 "fijate en la lista y probá de nuevo")
            del voices[player - 1], names[player - 1]
            voice_learning.forget_play(self.models_dir)  # first: no relearning on it meanwhile
            try:
                seconds = self._refit(voices, names)
            except RecognizerError as err:
                if err.code != "calibration-short":
                    raise
                voice_learning.forget(self.models_dir)  # theirs are too little to calibrate on
                self.recognizer.use_means(None)
                raise Dropped(f"Saqué {voice}, pero con las grabaciones de los demás no alcanza "
                              f"para calibrar: {err.message}. Así que borré la calibración: "
                              "escucho sin ella, y «Calibrar las voces» hace una nueva. "
                              f"{PLAY_FORGOTTEN}") from err
            return (f"Listo: saqué {voice}; quedan {_players(len(voices))} calibrados, "
                    f"{seconds:.0f} s de voz. {PLAY_FORGOTTEN}")

        threading.Thread(target=self._fitting, args=(fitted,), name="voice-calibration",
                         daemon=True).start()

    def _rename(self, player: int, name: str) -> None:
        """Name a kept player (no fitting: their voice is the same)."""
        voice = self._voice_of(player)
        try:
            said = kept_recordings.name_player(self.models_dir, player, name)
        except OSError as err:
            raise ValueError(f"no pude guardar el nombre en {err.filename}: "
                             f"{syserrors.said(err)}") from err
        self._kept = kept_recordings.player_names(self.models_dir)
        self._log(f"escucha: {voice} es la de {said}" if said
                  else f"escucha: {voice} ya no tiene nombre")

    def _voice_of(self, player: int) -> str:
        """«la voz de Juan» for a kept ``player``; ValueError in words for one not kept."""
        if not (self._calibrated and 1 <= player <= len(self._kept)):
            raise ValueError(f"no hay un jugador {player} entre las voces calibradas guardadas")
        return kept_recordings.voice_of(player, self._kept[player - 1])

    def _refit(self, voices: Voices, names: Sequence[str]) -> float:
        """Fit the calibration on ``voices`` (which it keeps, with the players' ``names``) and
        hand it to the recognizer; the seconds of speech fitted on."""
        path, stats = self._fit(self.models_dir, self.recognizer.model_dir, voices, names)
        self.recognizer.use_means(path)
        self._unfitted = unfitted(stats.said, stats.aligned)
        return float(stats.frames) / 100

    def _fitting(self, fitted: Callable[[], str]) -> None:
        """Run a fit (``fitted``, which says what it did) and show how it ended."""
        try:
            message = fitted()
        except Dropped as dropped:
            self._finished("done", str(dropped), calibrated=False)
        except RecognizerError as err:
            self._finished("failed", f"No pude calibrar: {err.message}")
        except OSError as err:
            self._finished("failed", f"No pude {_on_disk('guardar', err)}")
        except Exception as err:  # noqa: BLE001 - the panel must not wait for ever on every page
            self._finished("failed", f"No pude calibrar: {err}")
        else:
            narrow = voice_learning.calibrated_narrow(self.models_dir)
            self._finished("done", f"{message} Ya escucho con la calibración."
                           + (f" {self._unfitted}" if self._unfitted else "")
                           + (f" {NARROW_CALIBRATION}" if narrow else ""))

    def voice_sample(self, player: int) -> bytes | None:
        """A few of the prompts a kept ``player`` said, as a WAV
        (``kept_recordings.voice_sample``)."""
        return kept_recordings.voice_sample(self.models_dir, player)

    def _forget(self) -> None:
        """Drop the table's calibration and hear with the model's own means from the next pause."""
        if not self._calibrated:
            raise ValueError("no hay ninguna calibración que olvidar")
        try:
            voice_learning.forget(self.models_dir)
        except OSError as err:
            raise ValueError(f"no pude {_on_disk('borrar', err)}") from err
        self.recognizer.use_means(None)
        self._state, self._message, self._calibrated, self._kept = "idle", "", False, []
        self._log("escucha: olvidé la calibración de las voces; escucho sin ella")

    def _finished(self, state: str, message: str, calibrated: bool | None = None) -> None:
        """How a fit ended: ``state``, said in ``message``; ``calibrated``, whether a calibration
        is left (by default: there was one, or the fit made one)."""
        with self._lock:
            self._state, self._message, self._voices, self._adding = state, message, [], False
            self._calibrated = (self._calibrated or state == "done") if calibrated is None else calibrated
            self._kept = kept_recordings.player_names(self.models_dir)  # as the fit left them
            self._log(f"escucha: {message}")
            self._publish()

    def _player(self) -> int:
        """The player saying the prompts, or, while the next one is awaited, that one (1 = the
        first of those recorded now)."""
        return len(self._voices) + (self._state == "ready")

    def state(self) -> dict[str, Any]:
        """What the pages show (module docstring)."""
        with self._lock:
            listening = self._state == "listening"
            return {
                "state": self._state,
                "player": self._player(), "name": self._names.get(self._player(), ""),
                "players": self._players,
                "index": self._index + 1, "total": len(self.prompts),
                "prompt": self.prompts[self._index] if listening else "",
                "last": self._last,
                "heard": sum(len(v) for v in self._voices), "missed": self._missed,
                "message": self._message, "calibrated": self._calibrated,
                "kept": len(self._kept), "names": list(self._kept), "adding": self._adding,
            }

    def _publish(self) -> None:
        self._show(self.state())


def _players(count: int) -> str:
    """«un jugador», «3 jugadores»."""
    return "un jugador" if count == 1 else f"{count} jugadores"


def _on_disk(doing: str, err: OSError) -> str:
    """«guardar la calibración en …: no queda lugar en el disco»: what the disk refused, and why
    (``syserrors.said``)."""
    return f"{doing} la calibración en {err.filename}: {syserrors.said(err)}"
