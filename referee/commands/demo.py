"""Juega una partida corta hablada, a 15, a través del árbitro de verdad: el guion (con cantos,
palabras parecidas y charla) se dice con espeak-ng, el árbitro lo escucha como si fuera el
micrófono y el tanteador lo muestra en la tablet.  No hace falta micrófono ni mazo."""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from referee.commands import values
from referee.demo import DEMO_LOG, DEMO_POINTS, DemoError, render_script, say_each
from referee.replay import replay


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from referee.commands.serve import data_folder, listen_host

    parser.add_argument("--port", type=values.port, default=8080, metavar="PUERTO",
                        help="puerto de la página (8080)")
    parser.add_argument("--host", type=listen_host, default="0.0.0.0", metavar="DIRECCIÓN",
                        help="dirección donde escuchar")
    parser.add_argument("--data-dir", type=data_folder, default=None, metavar="CARPETA",
                        help="dónde guardar la partida de muestra (si no, una carpeta temporal)")
    parser.add_argument("--recognizer", choices=("vosk", "sphinx"),
                        help="qué reconocedor usar (si no, el mejor que haya)")
    parser.add_argument("--model", metavar="CARPETA", help="carpeta de un modelo")
    values.add_models_dir(parser)
    parser.add_argument("--pin", type=values.pin, metavar="PIN", help="PIN de la mesa")
    parser.add_argument("--exit-when-done", action="store_true",
                        help="terminar cuando se acaba el guion (si no, el tanteador sigue abierto)")


def calibrated_to_the_script(args: argparse.Namespace, folder: Path) -> tuple[str | None, str | None]:
    """The ``--model`` and ``--models-dir`` the demo's referee runs with: with the Spanish Sphinx
    model, that model calibrated to the script's voice as a table calibrates it to its own
    (``voices calibrate``: each prompt said once), kept in ``folder`` so the table's own
    calibration is neither used nor touched; else the ones asked for.  Uncalibrated, Sphinx
    hears espeak-ng's voice poorly (docs/voice.md)."""
    from referee.asr.adapt import calibrate
    from referee.asr.base import RecognizerError
    from referee.asr.learn import Learned, narrow_voices, save
    from referee.calibration_prompts import PROMPTS
    from referee.commands.listen import choose_model

    asked = (args.model, args.models_dir)
    try:
        choice = choose_model(args)
    except RecognizerError:
        return asked  # serve says what is wrong with it
    if choice.kind != "sphinx" or choice.english:
        return asked
    print("Calibrando el reconocedor a la voz del guion, como 'truco-referee voices calibrate' "
          "a las voces de una mesa…", file=sys.stderr)
    try:
        voice = say_each(PROMPTS)
        means, stats = calibrate(choice.path, [voice])
        learned = Learned(means, stats, len(voice), 0, narrow_voices([voice]))
        save(folder, choice.path, learned, learned_until=0)
    except (DemoError, RecognizerError, OSError) as err:
        print(f"No pude calibrar ({getattr(err, 'message', err)}); sigo sin calibrar.",
              file=sys.stderr)
        return asked
    return str(choice.path), str(folder)


def run(args: argparse.Namespace) -> int:
    from referee.commands import serve

    try:  # the port first: the script takes a while to say
        serve.bind(args.host, args.port).close()
    except serve.ServeError as err:
        print(f"truco-referee demo: {err}", file=sys.stderr)
        return 1
    work = Path(tempfile.mkdtemp(prefix="truco-demo-"))

    def forget() -> None:  # the script's sound, its calibration and (without --data-dir) its game
        shutil.rmtree(work, ignore_errors=True)

    try:  # however it ends: the script said, Ctrl+C, SIGTERM
        return _play(args, work, forget)
    finally:
        forget()


def _play(args: argparse.Namespace, work: Path, forget: Callable[[], None]) -> int:
    """Say the script into ``work`` and have the referee hear it; ``forget`` is called before a
    signal ends the process."""
    from referee.commands import serve

    wav = work / "partida.wav"
    print("Preparando la partida hablada con espeak-ng…", file=sys.stderr)
    try:
        seconds = render_script(wav)
    except DemoError as err:
        print(f"truco-referee demo: {err.message}", file=sys.stderr)
        return 2
    model, models = calibrated_to_the_script(args, work / "modelos")
    print(f"Guion listo: {seconds:.0f} s de partida. Abrí el tanteador y mirá.", file=sys.stderr)
    serve_args = serve.demo_arguments(
        wav=wav, data_dir=args.data_dir or work / "datos", port=args.port, host=args.host,
        points=DEMO_POINTS, recognizer=args.recognizer, model=model,
        models_dir=models, pin=args.pin, exit_when_done=args.exit_when_done,
        command="demo", expected_score=replay(DEMO_LOG.splitlines()).to_dict()["score"])
    return serve.run(serve_args, before_signal=forget)
