"""Juega una partida corta hablada, a 15, a través del árbitro de verdad: el guion (con cantos,
palabras parecidas y charla) se dice con espeak-ng, el árbitro lo escucha como si fuera el
micrófono y el tanteador lo muestra en la tablet.  No hace falta micrófono ni mazo.

La partida empieza cuando abrís la página que muestra (o sola al minuto, o enseguida con
--exit-when-done), así se ve desde el primer canto."""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from referee.commands import values
from referee.demo import (
    DEMO_LOG,
    DEMO_POINTS,
    WAIT_FOR_PAGE_S,
    DemoError,
    DemoTerminal,
    render_script,
    say_each,
)
from referee.replay import replay


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from referee.commands.serve_arguments import data_folder, listen_host

    parser.add_argument("--port", type=values.port, default=8080, metavar="PUERTO",
                        help="puerto de la página (8080)")
    parser.add_argument("--host", type=listen_host, default="0.0.0.0", metavar="DIRECCIÓN",
                        help="dirección donde escuchar")
    parser.add_argument("--data-dir", type=data_folder, default=None, metavar="CARPETA",
                        help="dónde guardar la partida de muestra (si no, una carpeta "
                        "temporal); si ya tiene una partida en curso, esa queda entre las "
                        "anteriores y la muestra empieza una nueva")
    parser.add_argument("--recognizer", choices=("vosk", "sphinx"),
                        help="qué reconocedor usar (si no, el mejor que haya)")
    parser.add_argument("--model", metavar="CARPETA", help="carpeta de un modelo")
    values.add_models_dir(parser)
    parser.add_argument("--pin", type=values.pin, metavar="PIN", help="PIN de la mesa")
    parser.add_argument("--exit-when-done", action="store_true",
                        help="empezar sin esperar que se abra la página y terminar cuando se "
                        "acaba el guion (si no, la partida empieza cuando abrís la página, o "
                        f"sola a los {WAIT_FOR_PAGE_S:.0f} s, y el tanteador sigue abierto)")


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


def run(args: argparse.Namespace, render: Callable[[Path], float] | None = None) -> int:
    """Say the script (with ``render``, by default ``render_script``) in a folder of its own, and
    have the referee hear it; the folder goes however the demo ends: the script said, Ctrl+C,
    SIGTERM or SIGHUP."""
    from referee.commands import serve
    from referee.commands.serve_address import ServeError, bind
    from referee.commands.serve_ending import Ending, Stopped, end_by

    try:  # the port first: the script takes a while to say
        bind(args.host, args.port).close()
    except ServeError as err:
        print(f"truco-referee demo: {err}", file=sys.stderr)
        return 1
    work = Path(tempfile.mkdtemp(prefix="truco-demo-"))

    def forget() -> None:  # the script's sound, its calibration and (without --data-dir) its game
        shutil.rmtree(work, ignore_errors=True)

    try:
        try:  # a signal while the script is said ends the demo as Ctrl+C does, not at once
            with Ending().installed():
                serve_args = _prepare(args, work, render or render_script)
        except Stopped as stop:
            return end_by(stop, "truco-referee demo", forget)
        if isinstance(serve_args, int):
            return serve_args
        if args.data_dir is not None:
            notice = put_aside(args.data_dir)
            if notice is not None:
                print(notice, flush=True)
        return serve.run(serve_args, before_signal=forget)
    finally:
        forget()


def put_aside(data_dir: Path) -> str | None:
    """Leave the game in progress in ``data_dir`` among the past games, so that the script is
    heard from a new game (serve starts one, with the demo's rules): the notice that says so, or
    None if there was none to put aside (none, or a new one with the demo's rules).  A folder
    that cannot be used is left as it is: ``serve`` says what is wrong with it."""
    import sqlite3

    from engine.settings import Settings
    from referee.commands.serve import lock_data_dir
    from referee.commands.serve_address import ServeError
    from web_scoreboard.app import DB_NAME
    from web_scoreboard.store import Store, StoreError

    if not (data_dir / DB_NAME).is_file():
        return None
    demo_rules = Settings.from_dict({"points": DEMO_POINTS}).to_dict()
    try:
        with lock_data_dir(data_dir):
            store = Store(data_dir / DB_NAME)
            try:
                game_id = store.current_game_id()
                game = store.game(game_id) if game_id is not None else None
                if game is None or (game.settings == demo_rules and not store.log(game.id)):
                    return None
                store.forget_current_game()
            finally:
                store.close()
    except (ServeError, StoreError, sqlite3.Error, OSError):
        return None
    score = f"A {game.score.get('A', 0)} — B {game.score.get('B', 0)}"
    return (f"La partida #{game.id} ({score}) que estaba en curso en {data_dir} quedó guardada: "
            "se sigue desde la tablet, en «Partidas anteriores». La muestra juega una nueva, "
            f"a {DEMO_POINTS}.")


def _prepare(args: argparse.Namespace, work: Path,
             render: Callable[[Path], float]) -> argparse.Namespace | int:
    """Say the script into ``work``: the options ``serve`` hears it with, or the exit code."""
    wav = work / "partida.wav"
    print("Preparando la partida hablada con espeak-ng…", file=sys.stderr)
    try:
        seconds = render(wav)
    except DemoError as err:
        print(f"truco-referee demo: {err.message}", file=sys.stderr)
        return 2
    model, models = calibrated_to_the_script(args, work / "modelos")
    print(f"Guion listo: {seconds:.0f} s de partida.", file=sys.stderr)
    return serve_arguments(args, wav, work, model, models)


def serve_arguments(args: argparse.Namespace, wav: Path, work: Path, model: str | None,
                    models: str | None) -> argparse.Namespace:
    """The options of ``serve`` that play the script's recording ``wav``: with
    --exit-when-done (unattended) at once, else once a page is open (or after a minute)."""
    from referee.commands.serve_arguments import demo_arguments

    wait_s = 0.0 if args.exit_when_done else WAIT_FOR_PAGE_S
    return demo_arguments(
        terminal=lambda console: DemoTerminal(console, wait_s), wait_for_page=wait_s,
        wav=wav, data_dir=args.data_dir or work / "datos", port=args.port, host=args.host,
        points=DEMO_POINTS, recognizer=args.recognizer, model=model,
        models_dir=models, pin=args.pin, exit_when_done=args.exit_when_done,
        command="demo", expected_score=replay(DEMO_LOG.splitlines()).to_dict()["score"])
