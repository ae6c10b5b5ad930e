"""Baja, revisa y lista los modelos: los de reconocimiento de voz y un mazo de referencia para la
cámara.  Se bajan una sola vez (con internet); después el árbitro funciona sin conexión."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from models import catalog
from models.catalog import ModelSpec
from models.download import FetchError
from models.fetch import fetch, lock_path, partial_path
from models.finding import check_in_use
from models.lock import busy
from models.paths import fetch_command, models_dir
from models.validate import check
from referee.asr.base import RecognizerError
from referee.asr.find import find_model
from referee.cli import INTERRUPTED
from referee.commands import values

# where the folder's models are read (list, check) or written (fetch)
MODELS_DIR_VERB = {"fetch": "guardar", "list": "están", "check": "están"}
ACTIONS: dict[str, tuple[str, str]] = {
    "fetch": ("bajar modelos (por defecto, todos)",
              ("Baja los modelos que faltan, con una barra de progreso. Una descarga cortada se "
               "retoma donde quedó; una que llega dañada se borra y la próxima vez empieza de "
               "cero. Con --force se baja de nuevo aunque ya esté.")),
    "list": ("qué modelos hay para bajar y cuáles ya están",
             ("Muestra los modelos del catálogo (✓ está, · no está, ✗ dañado) y qué reconocedor "
              "se va a usar.")),
    "check": ("revisar que los modelos bajados estén completos",
              ("Revisa que cada modelo bajado tenga todos sus archivos y que no hayan cambiado "
               "desde la descarga; si no se bajó pero hay uno copiado a mano que se usaría en su "
               "lugar, revisa ese. Sale con 1 solo si alguno está dañado o incompleto; un modelo "
               "que nunca se bajó (como el mazo, que es opcional) no es un error.")),
}


def model_name(text: str) -> str:
    """A catalog name, for argparse (a plain error with the known names otherwise)."""
    if text not in catalog.CATALOG:
        raise argparse.ArgumentTypeError(
            f"no conozco el modelo {text!r} (hay: {', '.join(catalog.CATALOG)})")
    return text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    values.add_models_dir(parser, "dónde están (o, con fetch, se guardan) los modelos")
    sub = parser.add_subparsers(dest="action", metavar="ACCIÓN")
    for action, (help_text, description) in ACTIONS.items():
        p = sub.add_parser(action, help=help_text, description=description)
        # Also after the action; SUPPRESS keeps a value given before it.
        values.add_models_dir(p, f"dónde {MODELS_DIR_VERB[action]} los modelos",
                              default=argparse.SUPPRESS)
        if action == "fetch":
            p.add_argument("names", nargs="*", metavar="MODELO", type=model_name,
                           help=f"cuáles: {', '.join(catalog.CATALOG)}")
            p.add_argument("--force", action="store_true",
                           help="volver a bajarlo desde cero aunque ya esté")


def _bar(name: str) -> tuple[object, object]:
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    progress = Progress("[bold]{task.description}", BarColumn(), DownloadColumn(),
                        TransferSpeedColumn(), TimeRemainingColumn(), transient=False)
    task = progress.add_task(name, total=None)
    return progress, task


def do_fetch(specs: list[ModelSpec], root: Path, force: bool) -> int:
    """Fetch each model in turn; one already there and whole is only said, a failure is told and
    the next one is tried.  Ctrl-C stops, saying how to go on (without --force, which would
    start over)."""
    failures = 0
    for at, spec in enumerate(specs):
        if not force and check(spec, root).ok:
            print(f"{spec.name}: ya está en {spec.target(root)}")
            continue
        try:
            path = _fetch_one(spec, root, force)
            print(f"{spec.name}: listo en {path}")
        except FetchError as err:
            failures += 1
            print(f"{spec.name}: no se pudo bajar. {err.message}", file=sys.stderr)
        except KeyboardInterrupt:
            rest = [s.name for s in specs[at:]]
            again = fetch_command(root, *([] if rest == list(catalog.CATALOG) else rest))
            print(f"\n{spec.name}: descarga interrumpida. Lo bajado quedó guardado: volvé a correr "
                  f"'{again}' y sigue desde donde quedó.", file=sys.stderr)
            return INTERRUPTED
    return 1 if failures else 0


def _fetch_one(spec: ModelSpec, root: Path, force: bool) -> Path:
    progress, task = _bar(f"{spec.name} (~{spec.approx_mb} MB)")

    def show(done: int, total: int | None, progress: Any = progress, task: Any = task) -> None:
        progress.update(task, completed=done, total=total)

    def tell(note: str, progress: Any = progress) -> None:
        progress.console.print(f"{spec.name}: {note}", markup=False, highlight=False)

    with progress:  # type: ignore[attr-defined]
        return fetch(spec, root, show, force=force, tell=tell)


def _folder_line(root: Path) -> str:
    """The models folder looked at, and whether it is there (a mistyped --models-dir shows)."""
    return f"Carpeta de modelos: {root}{'' if root.is_dir() else ' (no existe)'}"


def _size(size: int) -> str:
    """A download's size in words: in MB, in KB under a megabyte, in bytes under a kilobyte."""
    if size < 1000:
        return f"{size} bytes"
    kb = round(size / 1000)
    return f"{kb} KB" if kb < 1000 else f"{size / 1e6:.1f} MB"


def do_list(root: Path) -> int:
    print(_folder_line(root))
    marks = {"ok": "✓", "missing": "·", "broken": "✗"}
    width = max(len(name) for name in catalog.CATALOG)
    for spec in catalog.CATALOG.values():
        status = check(spec, root)
        print(f"  {marks[status.state]} {spec.name:{width}s} {spec.description} "
              f"(~{spec.approx_mb} MB, {spec.licence})")
        if status.state == "broken":
            print(f"      {status.message}")
        partial = partial_path(spec, root)
        if not status.ok and busy(lock_path(spec, root)):
            got = partial.stat().st_size if partial.is_file() else 0
            print(f"      bajándose ahora, en otra 'models fetch' ({_size(got)} hasta acá)")
        elif not status.ok and partial.is_file():
            print(f"      a medio bajar ({_size(partial.stat().st_size)}); "
                  f"'{fetch_command(root, spec.name)}' sigue desde ahí")
    try:
        choice = find_model(root)
        fetched = any(choice.path.is_relative_to(spec.target(root))
                      for spec in catalog.CATALOG.values())
        found = "" if fetched or choice.english else "; está en la carpeta, pero no lo bajó 'models fetch'"
        print(f"Se va a usar: {choice.label}{found}")
    except RecognizerError as err:
        print(f"Se va a usar: nada ({err.message})")
    return 0


def do_check(root: Path) -> int:
    """Each model's state, as the finder takes it (its catalog folder, else a copy by hand); 1
    only when one is damaged (a model never fetched is not a problem)."""
    print(_folder_line(root))
    broken = 0
    for spec in catalog.CATALOG.values():
        status = check_in_use(spec, root)
        broken += status.state == "broken"
        print(f"{spec.name}: {status.message}")
    return 1 if broken else 0


def run(args: argparse.Namespace) -> int:
    root = models_dir(args.models_dir)
    action = args.action or "list"
    if action == "fetch":
        return do_fetch([catalog.get(n) for n in args.names or catalog.CATALOG], root, args.force)
    if action == "check":
        return do_check(root)
    return do_list(root)
