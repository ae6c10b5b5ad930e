"""Escucha los cantos (del micrófono o de un archivo WAV) y muestra cada uno apenas lo oye: el
momento, el equipo, el canto o la palabra parecida que se rechazó, y qué tan seguro está."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path

from engine.settings import Settings
from models.paths import fetch_command, models_dir, user_data_dir
from referee.asr.base import RecognizerError, expect
from referee.asr.find import ModelChoice, classify, find_model, make_recognizer
from referee.audio import AudioChunk, AudioError
from referee.cli import INTERRUPTED
from referee.commands import values
from referee.commands.listen_printer import Printer
from referee.commands.rules import add_rule_arguments, rule_options
from referee.device_status import print_status
from referee.evidence import DEFAULT_MAX_MB, EvidenceError, EvidenceStore
from referee.evidence_bound import MB
from referee.listener import Listener
from referee.mic_choice import channel_teams, table_mics
from referee.phrases import BARS_SAID
from referee.startup import line_statuses, load_recognizer
from referee.wav import WavSource

UNSURE_BELOW = 0.6


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--wav", metavar="ARCHIVO", help="escuchar un archivo WAV en vez del micrófono")
    parser.add_argument("--mic", metavar="NOMBRE|NÚMERO", action="append",
                        help="qué micrófono usar (ver 'truco-referee devices'); si no, el de "
                             "siempre. Dos veces = un micrófono por equipo (el primero es de A)")
    parser.add_argument("--channels", type=int, default=1, choices=(1, 2),
                        help="2 = un micrófono (canal) por equipo: el canal 1 es A, el 2 es B")
    parser.add_argument("--json", action="store_true", help="una línea JSON por cosa oída")
    parser.add_argument("--recognizer", choices=("vosk", "sphinx"),
                        help="qué reconocedor usar (si no, el mejor que haya)")
    parser.add_argument("--model", metavar="CARPETA",
                        help="carpeta de un modelo de Vosk o de un modelo acústico de Sphinx")
    values.add_models_dir(parser)
    parser.add_argument("--data-dir", type=Path, metavar="CARPETA",
                        help="dónde guarda 'serve' sus datos: con dos micrófonos, cuánto tarda "
                             "cada uno (por defecto la de siempre)")
    parser.add_argument("--realtime", action="store_true",
                        help="con --wav, ir al ritmo del audio en vez de lo más rápido posible")
    parser.add_argument("--evidence", metavar="CARPETA",
                        help="dónde guardar la evidencia (texto y audio de cada canto)")
    parser.add_argument("--no-evidence", action="store_true", help="no guardar evidencia")
    parser.add_argument("--evidence-max", type=values.at_least_zero, default=DEFAULT_MAX_MB,
                        metavar="MB",
                        help="cuántos MB de audios de evidencia guardar como mucho: al pasarse, "
                             "se borran los de las sesiones más viejas (lo que se oyó sigue "
                             f"anotado); por defecto {DEFAULT_MAX_MB} (1 GB), 0 = sin límite")
    parser.add_argument("--unsure-below", type=values.share, default=UNSURE_BELOW, metavar="CONF",
                        help=f"con menos confianza que esto, un canto queda 'dudoso' "
                             f"y no se anota (por defecto {UNSURE_BELOW}; {BARS_SAID})")
    add_rule_arguments(parser, "reglas de la partida que se escucha (las que no des, como "
                       "empieza una partida: 2 jugadores, a 30, sin flor, falta leader)")


def choose_model(args: argparse.Namespace) -> ModelChoice:
    if args.model:
        choice = classify(Path(args.model).expanduser(), models_dir(args.models_dir))
        if args.recognizer and args.recognizer != choice.kind:
            raise RecognizerError("model-mismatch",
                                  f"{args.model} es un modelo de {choice.kind}, no de {args.recognizer}")
        return choice
    return find_model(models_dir(args.models_dir), args.recognizer)


def default_evidence_dir() -> Path:
    """The per-user evidence folder, wherever the models are (``$TRUCO_REFEREE_MODELS`` moves
    only them)."""
    return user_data_dir() / "evidence"


def run(args: argparse.Namespace) -> int:
    clash = clashing_options(args)
    if clash:
        print(f"truco-referee listen: {clash}", file=sys.stderr)
        return 2
    try:
        source = open_source(args)
    except AudioError as err:
        print(f"Problema con el audio: {err.message}", file=sys.stderr)
        return 2
    try:
        evidence = open_evidence(args)
    except EvidenceError as err:
        print(f"No puedo guardar la evidencia: {err.message}; indicá una carpeta con --evidence "
              "o usá --no-evidence", file=sys.stderr)
        return 2
    try:
        choice, recognizer = load_recognizer(args, make_recognizer)
    except RecognizerError as err:
        print(f"No puedo arrancar el reconocedor: {err.message}", file=sys.stderr)
        return 2
    print(f"Reconocedor: {choice.label}", file=sys.stderr)
    if recognizer.low_accuracy:
        print("Atención: modo de baja precisión. Bajá el modelo en español con "
              f"'{fetch_command(models_dir(args.models_dir))}'.", file=sys.stderr)
    line_statuses(args, recognizer, source)  # a narrow microphone the voices were calibrated through
    printer = Printer(sys.stdout, args.json, args.unsure_below, evidence,
                      Settings(**rule_options(args)))
    expect(recognizer, printer.table.expected)
    listener = Listener(recognizer, printer, channel_teams=channel_teams(args.mic, args.channels),
                        on_revisions=printer.revise)
    stopped = 0
    try:
        listener.run(source)
    except AudioError as err:
        print(f"Problema con el audio: {err.message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # the end of listening to the table; a recording left unheard
        listener.close()
        if args.wav:
            print("interrumpido: la grabación no se escuchó entera", file=sys.stderr)
            stopped = INTERRUPTED
    if not printer.printed:
        print("no se oyó ningún canto ni palabra parecida", file=sys.stderr)
    score = printer.table.snapshot()["score"]
    print(f"tanteador: A {score['A']} — B {score['B']}", file=sys.stderr)
    return stopped


def clashing_options(args: argparse.Namespace) -> str | None:
    """What the options given ask for that cannot be done together, or None."""
    if args.realtime and not args.wav:  # the microphone is always at the pace of the table
        return "--realtime es con --wav: escucha el archivo a su ritmo"
    if args.wav and args.mic:
        return "--mic y --wav no van juntos: se escucha un micrófono o una grabación"
    if args.evidence and args.no_evidence:
        return "--evidence y --no-evidence no van juntos: elegí una"
    return None


def open_source(args: argparse.Namespace) -> Iterable[AudioChunk]:
    """The WAV file, read whole, or the microphone; checked before the recognizer is loaded.  With
    a microphone per team on two devices, their lag is kept where `serve` keeps it (``--data-dir``,
    or its default)."""
    if not args.wav:
        return table_mics(args.mic, args.channels, data_dir=args.data_dir or user_data_dir())
    status = print_status("grabación")
    source = WavSource(args.wav, realtime=args.realtime, on_status=status)
    if args.channels == 2 and source.channels == 1:
        raise AudioError("wav-channels", f"{args.wav} tiene un solo canal y --channels 2 necesita "
                         "dos, uno por equipo (el canal 1 es A, el 2 es B)")
    if source.notice:  # a file cut short: told once, and heard as far as it goes
        status(source.notice)
    return source


def open_evidence(args: argparse.Namespace) -> EvidenceStore | None:
    """Where the evidence goes, its folder created and its oldest clips let go past
    --evidence-max; None with --no-evidence."""
    if args.no_evidence:
        return None
    return EvidenceStore(Path(args.evidence) if args.evidence else default_evidence_dir(),
                         max_bytes=args.evidence_max * MB)
