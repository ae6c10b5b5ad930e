"""What runs at the table and what does not, and why: the listener and the camera for `serve`.

Nothing missing stops the scoreboard: without a microphone, a model or a camera it runs with its
manual controls, and the start-up screen says what is missing and how to get it.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.markup import escape

from models.paths import models_dir
from referee.commands import values
from referee.device_status import said_once as device_said_once
from referee.phrases import BARS_SAID
from referee.table_audio import KEEP_S as TABLE_AUDIO_S

if TYPE_CHECKING:
    from referee.asr.base import Recognizer
    from referee.asr.find import ModelChoice
    from referee.audio import AudioChunk

Log = Callable[[str], None]


@dataclass(frozen=True)
class Part:
    """One part of the referee as the start-up screen shows it."""

    name: str
    running: bool
    detail: str


def add_listening_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("escucha")
    group.add_argument("--no-mic", action="store_true",
                       help="no escuchar: llevar los puntos sólo con los botones de la pantalla")
    group.add_argument("--mic", metavar="NOMBRE|NÚMERO", action="append",
                       help="qué micrófono usar (ver 'truco-referee devices'); si no, el de "
                       "siempre. Dos veces = un micrófono por equipo (el primero es de A, el "
                       "segundo de B): decide el que más fuerte oyó")
    group.add_argument("--channels", type=int, default=1, choices=(1, 2),
                       help="2 = un micrófono (canal) por equipo: el canal 1 es A, el 2 es B; "
                       "decide el más fuerte")
    group.add_argument("--recognizer", choices=("vosk", "sphinx"),
                       help="qué reconocedor usar (si no, el mejor que haya)")
    group.add_argument("--model", metavar="CARPETA",
                       help="carpeta de un modelo de Vosk o de un modelo acústico de Sphinx")
    values.add_models_dir(group)
    group.add_argument("--wav", metavar="ARCHIVO",
                       help="hacer sonar una grabación como si fuera el micrófono (en tiempo real)")
    group.add_argument("--exit-when-done", action="store_true",
                       help="con --wav: terminar cuando se acaba la grabación")
    group.add_argument("--unsure-below", type=values.share, default=0.6, metavar="CONF",
                       help="con menos confianza que esto un canto queda dudoso hasta que lo "
                       f"confirmen en la tablet (por defecto 0.6; {BARS_SAID})")
    group.add_argument("--learn", action="store_true",
                       help="aprender las voces de la mesa mientras juegan (Sphinx en español): "
                       "lo oído con seguridad y lo confirmado en la tablet ajustan el modelo")
    group.add_argument("--table-audio", type=values.table_audio_s, default=TABLE_AUDIO_S,
                       metavar="SEGUNDOS",
                       help="cuántos segundos del sonido de la mesa se guardan en la memoria para "
                       "volver a oírlos desde la tablet («¿Qué se dijo?»; por defecto "
                       f"{TABLE_AUDIO_S}; 0 = ninguno); no se escriben en ningún lado")


def start_listening(args: argparse.Namespace, service: Any, log: Log,
                    on_end: Callable[[], None] | None = None) -> list[Part]:
    """Start the listener in the background if it can run; say what runs and what does not.

    ``on_end`` is called when a recording (``--wav``) has been heard to its end.
    """
    if args.no_mic and not args.wav:  # not asked for: the pages show no microphone
        return [Part("escucha", False, "apagada (--no-mic): se anota con los botones"
                     + unused(args, "sin micrófono", LISTENING_ONLY))]
    from referee.asr.base import RecognizerError

    show = shown(service, "mic")
    try:
        choice, recognizer = load_recognizer(args)
    except RecognizerError as err:
        return [show_part(show, Part("reconocedor", False,
                                     f"{err.message}; se anota con los botones"))]
    parts = [_recognizer_part(choice, recognizer)]
    source, audio_part = _audio_source(args, log, service)
    parts.append(audio_part)
    if source is None or args.wav:  # a microphone says how it is once it is listened to
        show_part(show, audio_part)
    if source is not None:
        source = when_played(args, service, source, log)
        parts += _listen(args, service, recognizer, source, log, on_end)
    return parts


PAGE_POLL_S = 0.2


def when_played(args: argparse.Namespace, service: Any, source: Any, log: Log) -> Any:
    """The source, a recording held until a page is open if ``wait_for_page`` says so (only
    ``demo`` sets it: seconds to wait at most; see ``after_a_page``)."""
    wait_s = getattr(args, "wait_for_page", 0.0)
    if not args.wav or wait_s <= 0:
        return source
    return after_a_page(source, open_pages(service), wait_s, log)


def open_pages(service: Any) -> Callable[[], int]:
    """How many pages the scoreboard has open (its hub's WebSocket clients; none without one)."""
    hub = getattr(service, "hub", None)
    return lambda: hub.size if hub is not None else 0


def after_a_page(source: Iterable[AudioChunk], pages: Callable[[], int], wait_s: float,
                 log: Log, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> Iterator[AudioChunk]:
    """A recording played once a page is open on the scoreboard, or after ``wait_s`` seconds
    with none (the demo: whoever opens the page sees the game from its first call)."""
    end = clock() + wait_s
    while not pages() and clock() < end:
        sleep(PAGE_POLL_S)
    log("  Página abierta: empieza la partida." if pages() else
        f"  Nadie abrió la página en {wait_s:.0f} s: la partida empieza igual.")
    yield from source


def load_recognizer(args: argparse.Namespace,
                    make: Callable[[ModelChoice], Recognizer] | None = None
                    ) -> tuple[ModelChoice, Recognizer]:
    """The recognizer to listen with (``make``, by default ``find.make_recognizer``) and its model.

    One that fails to load (a model that passes the file checks but the library refuses, a damaged
    calibration) gives way to the next one the finder would choose, unless the person asked for it
    with --recognizer or --model; the choice's label says which one failed and why."""
    from referee.asr.base import RecognizerError
    from referee.asr.find import make_recognizer
    from referee.commands.listen import choose_model

    make = make or make_recognizer
    choice = choose_model(args)
    forced = bool(args.recognizer or args.model)
    while True:
        try:
            return choice, make(choice)
        except RecognizerError as err:
            after = None if forced else _next_choice(choice, models_dir(args.models_dir))
            if after is None:
                raise
            why = err.message if choice.kind != "vosk" else (
                f"{err.message} ('truco-referee models fetch --force vosk-es' lo baja de nuevo)")
            choice = replace(after, passed_over=(*choice.passed_over, why, *after.passed_over))


def _next_choice(choice: ModelChoice, root: Path) -> ModelChoice | None:
    """What the finder would choose after ``choice``: Sphinx in Spanish after Vosk, the same
    Sphinx model without the table's calibration, then the English model; None after that."""
    from referee.asr.base import RecognizerError
    from referee.asr.find import ModelChoice, find_model
    from referee.asr.sphinx import english_model_dir

    english = ModelChoice("sphinx", english_model_dir(), english=True)
    if choice.kind == "vosk":
        try:
            return find_model(root, "sphinx")
        except RecognizerError as err:  # damaged: passed over, as the finder does
            return replace(english, passed_over=(err.message,))
    if choice.calibration is not None:
        return replace(choice, calibration=None, passed_over=())
    return None if choice.english else english


def _recognizer_part(choice: Any, recognizer: Any) -> Part:
    detail = choice.label
    if choice.kind == "sphinx" and not choice.english and not choice.calibration:
        detail += "; 'truco-referee voices calibrate' lo ajusta a las voces de la mesa"
    if choice.kind != "vosk" and not choice.passed_over:  # else the line says what to fetch again
        detail += "; 'truco-referee models fetch' baja el modelo de Vosk en español, más preciso"
    if recognizer.low_accuracy and "baja precisión" not in detail:
        detail += " — modo de baja precisión"
    return Part("reconocedor", True, detail)


def _audio_source(args: argparse.Namespace, log: Log, service: Any = None) -> tuple[Any, Part]:
    from referee.audio import AudioError
    from referee.wav import WavSource

    source: Any
    if args.wav:
        try:
            told = source_status(service, "mic", said_once(log, "grabación"))
            source = WavSource(args.wav, realtime=True, on_status=told)
        except (AudioError, OSError) as err:
            message = getattr(err, "message", None) or str(err)
            return None, Part("audio", False, f"no puedo leer {args.wav}: {message}")
        cut = f"; {source.notice}" if source.notice else ""  # a file cut short: heard as it is
        return source, Part("audio", True, f"la grabación {Path(args.wav).name} "
                            f"({source.duration:.0f} s), como si fuera el micrófono{cut}")
    return _mic_source(args, log, service)


def _mic_source(args: argparse.Namespace, log: Log, service: Any = None) -> tuple[Any, Part]:
    """The microphone (or one per team) and whether it is there: the source is made even when it
    is not, and keeps looking for it while the scoreboard runs on its buttons; the terminal and
    the pages (``service``) are told how it is doing."""
    from referee.audio import AudioError
    from referee.microphone import MicSource, list_devices

    source: Any
    mics = args.mic or []
    if len(mics) > 2:
        return None, Part("micrófono", False, "a lo sumo dos micrófonos, uno por equipo")
    if len(mics) == 2:
        source = _team_mics(mics[0], mics[1], log, service, _data_dir(args))
    else:
        source = MicSource(mics[0] if mics else None, channels=args.channels,
                           on_status=source_status(service, "mic", said_once(log, "micrófono")))
    try:
        devices = list_devices()
    except AudioError as err:
        return source, Part("micrófono", False, f"{err.message}; {STILL_LOOKING}")
    return source, mic_part(mics, devices)


STILL_LOOKING = "se anota con los botones y se sigue buscando"


def mic_part(mics: list[str], devices: list[Any]) -> Part:
    """The microphone's line of the start-up screen: whether the ones asked for (none: the
    system's own) are among ``devices`` (``microphone.InputDevice``), and if not, why."""
    from referee.audio import AudioError
    from referee.microphone import resolve_device

    if not devices:
        return Part("micrófono", False, f"no hay ninguno conectado; {STILL_LOOKING} (enchufá "
                    "uno cuando quieras)")
    names = ", ".join(d.name for d in devices[:3])
    try:
        for spec in mics:
            resolve_device(spec, devices)
    except AudioError as err:
        return Part("micrófono", False, f"{err.message} (hay: {names}; mirá 'truco-referee "
                    f"devices'); {STILL_LOOKING}")
    which = " y ".join(map(str, mics)) or "el de siempre"
    return Part("micrófono", True, f"{which} (hay: {names})")


def _against(score: dict[str, int], expected: dict[str, int] | None) -> str:
    """How a recording's score compares with the one its script gives (the demo's), if known."""
    if not expected:
        return ""
    got, want = (score.get("A", 0), score.get("B", 0)), (expected["A"], expected["B"])
    if got == want:
        return ", como da el guion"
    return (f"; el guion da {want[0]} a {want[1]}: lo que no se oyó seguro espera «dudoso» en "
            "la tablet (tocá Confirmar), y lo que no se oyó se anota con los botones")


def said_once(log: Log, who: str) -> Callable[[str], None]:
    """A status callback that logs a message only when it differs from the last one
    (``device_status.said_once``)."""
    return device_said_once(lambda message: log(f"{who}: {escape(message)}"))


def _team_mics(spec_a: str, spec_b: str, log: Log, service: Any, data_dir: Path) -> Any:
    """One microphone per team (``mics.TeamMics``), each shown on the pages on its own ("mic A",
    "mic B"): one unplugged while the other hears is not hidden by it.  How much later B's hands
    over its sound is kept in the data folder, and the next session with the same two devices
    starts with it."""
    from referee.microphone import MicSource
    from referee.mics import TeamMics, lag_options

    said = said_once(log, "micrófonos")

    def mic(spec: str, team: str) -> MicSource:
        def terminal(message: str) -> None:
            said(f"el de {team}: {message}")

        return MicSource(spec, on_status=source_status(service, f"mic {team}", terminal))

    return TeamMics(mic(spec_a, "A"), mic(spec_b, "B"),
                    **lag_options([spec_a, spec_b], data_dir, said))


Show = Callable[[str, str], None]


def shown(service: Any, key: str) -> Show:
    """How a part of the referee tells the pages its state and why (``TableService.set_source``:
    "ok", "poor", "trouble" or "off"); a service that shows none (a test's) is told nothing."""
    set_source = getattr(service, "set_source", None)

    def show(state: str, message: str) -> None:
        if set_source is not None:
            set_source(key, state, message)

    return show


def show_part(show: Show, part: Part) -> Part:
    """Show a part's start-up line on the pages too: fine if it runs, in trouble if not."""
    show("ok" if part.running else "trouble", part.detail)
    return part


def source_status(service: Any, key: str, terminal: Callable[[str], None]) -> Callable[[str], None]:
    """A microphone's or a camera's ``on_status``: each message on the terminal (``terminal``) and
    on the pages, in trouble while it looks for its device again, poor while it hears through a
    narrow line (``device_status.shown_state``), else fine («escuchando», «la cámara 0 ya manda
    imágenes»)."""
    from referee.device_status import shown_state

    show = shown(service, key)

    def status(message: str) -> None:
        terminal(message)
        show(shown_state(message), message)

    return status


def _listen(args: argparse.Namespace, service: Any, recognizer: Any, source: Any,
            log: Log, on_end: Callable[[], None] | None) -> list[Part]:
    """Listen in the background; the start-up screen's lines of the calibration from the tablet
    and, with --learn, of the learning."""
    from referee.asr.base import expect
    from referee.listener import Listener
    from referee.mics import channel_teams
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


def _data_dir(args: argparse.Namespace) -> Path:
    """The data folder the table keeps what it learns in (``--data-dir``, or the user's)."""
    from models.paths import user_data_dir

    return getattr(args, "data_dir", None) or user_data_dir()


def _table_sound(args: argparse.Namespace, recognizer: Any, log: Log) -> Any:
    """The table's average sound from the last session, for recognizers that keep one."""
    if not hasattr(recognizer, "cepstral_mean"):
        return None
    from referee.table_sound import TableSound, sound_file

    sound = TableSound(recognizer, sound_file(_data_dir(args), recognizer.model_dir))
    if sound.restore():
        log("escucha: arranca con el sonido de la mesa de la última vez")
    return sound


def print_parts(parts: list[Part], log: Log) -> None:
    for part in parts:
        mark = "[green]✓[/green]" if part.running else "[yellow]✗[/yellow]"
        log(f"  {mark} {part.name + ':':<13} {escape(part.detail)}")


# The options that only do something with a microphone, or with a camera, by argparse's name.
LISTENING_ONLY = {"learn": "--learn"}
CAMERA_ONLY = {"seat_region": "--seat-region", "learn_deck": "--learn-deck"}


def unused(args: argparse.Namespace, without: str, options: dict[str, str]) -> str:
    """The start-up line's note of the ``options`` given that do nothing ``without`` their part
    («; sin cámara, --seat-region no se usa»), or nothing."""
    given = [option for name, option in options.items() if getattr(args, name, None)]
    if not given:
        return ""
    return f"; {without}, {' y '.join(given)} no se usa{'n' if len(given) > 1 else ''}"


def add_camera_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("cámara")
    group.add_argument("--camera", type=values.at_least_zero, metavar="N",
                       help="cámara sobre la mesa (0 es la primera): verifica el envido mostrado "
                       "y sigue las cartas jugadas")
    group.add_argument("--deck", type=Path, action="append", metavar="CARPETA",
                       help="caras de tu mazo para reconocerlo (si no, el mazo calibrado o bajado)")
    group.add_argument("--learn-deck", action="store_true",
                       help="aprende tu mazo de las cartas que la cámara nombra durante el juego "
                       "(nombra más cartas de un mazo sin calibrar; se olvida al salir)")
    group.add_argument("--seat-region", type=_seat_region, action="append", metavar="ASIENTO=I,A,D,B",
                       help="la parte de la imagen frente a un asiento, en fracciones "
                       "(izquierda, arriba, derecha, abajo), p. ej. A1=0,0.5,0.5,1; repetible "
                       "(si no, A abajo y B arriba, o alrededor de la mesa con 4 o 6)")


def _seat_region(text: str) -> tuple[str, tuple[float, float, float, float]]:
    """A ``--seat-region``: well written, and for a seat some table has (the largest one's)."""
    from engine.settings import SEATS
    from referee.seat_regions import parse_seat_region

    try:
        seat, box = parse_seat_region(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    if seat not in SEATS[max(SEATS)]:
        tables = "; ".join(f"{' '.join(seats)} con {n} jugadores" for n, seats in SEATS.items())
        raise argparse.ArgumentTypeError(f"'{text}': no hay asiento {seat} en ninguna mesa; los "
                                         f"asientos son {tables}")
    return seat, box


def start_camera(args: argparse.Namespace, service: Any, log: Log) -> list[Part]:
    """Start the camera watcher if asked for and possible; say what runs and why not."""
    if args.camera is None:
        return [Part("cámara", False, "sin cámara (--camera N para usar una)"
                     + unused(args, "sin cámara", CAMERA_ONLY))]
    from referee.camera_startup import start_table_camera

    return [start_table_camera(args, service, log)]
