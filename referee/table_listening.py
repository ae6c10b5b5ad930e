"""Listening at the table for `serve`: the listener in the background, with the voices'
calibration from the tablet, the learning of the table's voices (--learn), the table's sound from
the last session and its last seconds kept for the pages to hear again."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.markup import escape

from models.paths import models_dir
from referee.startup_lines import Log, Part, shown


def listen(args: argparse.Namespace, service: Any, recognizer: Any, source: Any,
           log: Log, on_end: Callable[[], None] | None) -> list[Part]:
    """Listen in the background; the start-up screen's lines of the calibration from the tablet
    and, with --learn, of the learning."""
    from referee.asr.base import expect
    from referee.listener import Listener
    from referee.mic_choice import channel_teams
    from referee.voice import VoiceReferee, listen_in_background

    teams = channel_teams(args.mic, args.channels)
    referee = VoiceReferee(service, log, unsure_below=args.unsure_below)
    sound = None if args.wav else _table_sound(args, recognizer, log)

    def heard(utt: Any) -> None:
        referee(utt)
        if sound:
            sound.heard()

    expect(recognizer, service.expected)
    listener = Listener(recognizer, heard, channel_teams=teams, on_revisions=referee.revise)
    lines = line_statuses(args, recognizer, source)
    learning = _learn(args, service, recognizer, log, lines) if args.learn else None

    show = shown(service, "mic")

    def ended() -> None:
        if not args.wav:  # a microphone never ends: the listening stopped, as the terminal says
            show("trouble", "la escucha se detuvo (la terminal dice por qué); se anota con los "
                 "botones")
            return
        show("off", "la grabación terminó")
        score = service.snapshot().get("score") or {}
        log(f"la grabación terminó: {score.get('A', 0)} a {score.get('B', 0)}"
            + _against(score, getattr(args, "expected_score", None))
            + ("" if args.exit_when_done else "; el tanteador sigue abierto"))
        if on_end:
            on_end()

    calibration = _calibration(args, service, recognizer, log, lines)
    if calibration is not None:
        source = calibration.tap(source)
    source = _table_audio(args, service, source, log)
    listen_in_background(listener, source, log, on_end=ended)
    parts = [CALIBRATION_PART] if calibration is not None else []
    return parts + ([learning] if learning else [])


def _against(score: dict[str, int], expected: dict[str, int] | None) -> str:
    """How a recording's score compares with the one its script gives (the demo's), if known."""
    if not expected:
        return ""
    got, want = (score.get("A", 0), score.get("B", 0)), (expected["A"], expected["B"])
    if got == want:
        return ", como da el guion"
    return (f"; el guion da {want[0]} a {want[1]}: lo que no se oyó seguro espera «dudoso» en "
            "la tablet (tocá Confirmar), y lo que no se oyó se anota con los botones")


def _table_audio(args: argparse.Namespace, service: Any, source: Any, log: Log) -> Any:
    """The stream, its last ``--table-audio`` seconds kept in memory for the pages to hear
    again (``referee.table_audio``; the service's ``table_audio``), said on the terminal each
    time they are."""
    if not args.table_audio or not hasattr(service, "table_audio"):
        return source
    from referee.table_audio import TableAudio

    kept = TableAudio(args.table_audio, told=log)
    service.table_audio = kept
    return kept.tap(source)


CALIBRATION_PART = Part("calibración", True, "calibrá las voces de la mesa desde la tablet: "
                        "Ajustes → Voces (un minuto por jugador)")


def _can_calibrate_voices(args: argparse.Namespace, recognizer: Any) -> bool:
    """Whether the voices can be calibrated, from the tablet or by play: a microphone heard by
    the Spanish Sphinx model."""
    return not args.wav and hasattr(recognizer, "use_means") and not recognizer.low_accuracy


def _calibration(args: argparse.Namespace, service: Any, recognizer: Any, log: Log,
                 lines: Callable[[], None]) -> Any:
    """The voices' calibration from the tablet (``referee.table_calibration``), for a microphone
    heard by the Spanish Sphinx model; None otherwise (the pages then offer none).  ``lines`` is
    called whenever a calibration is made or forgotten."""
    if not _can_calibrate_voices(args, recognizer) or not hasattr(service, "set_calibration"):
        return None
    from referee.table_calibration import TableCalibration

    models = models_dir(args.models_dir)

    def show(state: dict[str, Any]) -> None:
        service.set_calibration(state)
        if state["state"] in ("done", "idle"):  # calibrated, forgotten, or not yet
            lines()

    calibration = TableCalibration(show, models, recognizer, lambda message: log(escape(message)))
    service.calibration = calibration
    return calibration


def line_statuses(args: argparse.Namespace, recognizer: Any, source: Any) -> Callable[[], None]:
    """Each microphone of ``source`` that sounds like a telephone, where the voices can be
    calibrated, is told as its calibration makes it (``LineStatus``); what is returned says each
    one's status again, for when the calibration changed."""
    if not _can_calibrate_voices(args, recognizer):
        return lambda: None
    models = models_dir(args.models_dir)
    lines = [LineStatus(mic, recognizer, models) for mic in _microphones(source)]

    def again() -> None:
        for line in lines:
            line.again()

    return again


class LineStatus:
    """A microphone's ``on_status``, in its place, that says a narrow line the table's
    calibration in use (or taken at the next pause) was made through (``learn.calibrated_narrow``)
    as fine: calibrated so, the referee hears nearly as well as through a full one (docs/voice.md,
    "A microphone through a narrow line")."""

    def __init__(self, mic: Any, recognizer: Any, models: Path) -> None:
        self._status, mic.on_status = mic.on_status, self
        self._recognizer, self._models = recognizer, models
        self._last = ""

    def __call__(self, message: str) -> None:
        from referee.asr.learn import calibrated_narrow
        from referee.device_status import NARROW_CALIBRATED, NARROW_LINE

        self._last = message
        calibrated = getattr(self._recognizer, "calibrated", False)
        if message == NARROW_LINE and calibrated and calibrated_narrow(self._models):
            message = NARROW_CALIBRATED
        self._status(message)

    def again(self) -> None:
        """Say the last status again: the calibration it depends on changed."""
        if self._last:
            self(self._last)


def _microphones(source: Any) -> list[Any]:
    """The microphones a source is made of: itself, or each team's (``mics.TeamMics``)."""
    from referee.microphone import MicSource

    return [mic for mic in (source, *getattr(source, "sources", ())) if isinstance(mic, MicSource)]


def _learn(args: argparse.Namespace, service: Any, recognizer: Any, log: Log,
           lines: Callable[[], None]) -> Part:
    """Learn the table's voices from play, for the Spanish Sphinx model (``referee.learning``),
    or say why not; ``lines`` is called whenever it learned."""
    if args.wav:
        return Part("aprendizaje", False, "no aprende de una grabación (--wav), sólo del micrófono")
    if not hasattr(recognizer, "use_means"):
        return Part("aprendizaje", False, "aprender las voces es sólo con Sphinx, y se está "
                    "usando Vosk; para aprender, arrancá con --learn --recognizer sphinx")
    if recognizer.low_accuracy:
        return Part("aprendizaje", False, "aprender las voces es sólo con el modelo de Sphinx en "
                    "español: bajalo con 'truco-referee models fetch sphinx-es'")
    from referee.learning import TableLearner

    TableLearner(service.store, models_dir(args.models_dir), recognizer, log,
                 on_learned=lines).start()
    return Part("aprendizaje", True, "aprende las voces de la mesa mientras juegan")


def data_dir(args: argparse.Namespace) -> Path:
    """The data folder the table keeps what it learns in (``--data-dir``, or the user's)."""
    from models.paths import user_data_dir

    return getattr(args, "data_dir", None) or user_data_dir()


def _table_sound(args: argparse.Namespace, recognizer: Any, log: Log) -> Any:
    """The table's average sound from the last session, for recognizers that keep one."""
    if not hasattr(recognizer, "cepstral_mean"):
        return None
    from referee.table_sound import TableSound, sound_file

    sound = TableSound(recognizer, sound_file(data_dir(args), recognizer.model_dir))
    if sound.restore():
        log("escucha: arranca con el sonido de la mesa de la última vez")
    return sound
