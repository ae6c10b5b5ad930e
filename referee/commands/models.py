"""Baja, revisa y lista los modelos: los de reconocimiento de voz y un mazo de referencia para la
cámara.  Se bajan una sola vez (con internet); después el árbitro funciona sin conexión."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from models import catalog
from models.fetch import FetchError, check, fetch
from models.paths import models_dir
from referee.asr.base import RecognizerError
from referee.asr.find import find_model


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--models-dir", metavar="CARPETA",
                        help="dónde guardar los modelos (si no, $TRUCO_REFEREE_MODELS o la carpeta "
                             "del usuario)")
    sub = parser.add_subparsers(dest="action", metavar="ACCIÓN")
    f = sub.add_parser("fetch", help="bajar modelos (por defecto, todos)")
    f.add_argument("names", nargs="*", metavar="MODELO", choices=[*catalog.CATALOG, []],
                   help=f"cuáles: {', '.join(catalog.CATALOG)}")
    f.add_argument("--force", action="store_true", help="volver a bajarlo aunque ya esté")
    sub.add_parser("list", help="qué modelos hay para bajar y cuáles ya están")
    sub.add_parser("check", help="revisar que los modelos bajados estén completos")


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


def do_fetch(names: list[str], root: Path, force: bool) -> int:
    failures = 0
    for name in names or list(catalog.CATALOG):
        spec = catalog.get(name)
        progress, task = _bar(f"{spec.name} (~{spec.approx_mb} MB)")

        def show(done: int, total: int | None, progress: Any = progress, task: Any = task) -> None:
            progress.update(task, completed=done, total=total)

        try:
            with progress:  # type: ignore[attr-defined]
                path = fetch(spec, root, show, force=force)
            print(f"{spec.name}: listo en {path}")
        except FetchError as err:
            failures += 1
            print(f"{spec.name}: no se pudo bajar. {err.message}", file=sys.stderr)
    return 1 if failures else 0


def run(args: argparse.Namespace) -> int:
    root = models_dir(args.models_dir)
    action = args.action or "list"
    if action == "fetch":
        return do_fetch(args.names, root, args.force)
    if action == "list":
        print(f"Carpeta de modelos: {root}")
        for spec in catalog.CATALOG.values():
            ok, _ = check(spec, root)
            print(f"  {'✓' if ok else '·'} {spec.name:10s} {spec.description} "
                  f"(~{spec.approx_mb} MB, {spec.licence})")
        try:
            print(f"Se va a usar: {find_model(root).label}")
        except RecognizerError as err:
            print(f"Se va a usar: nada ({err.message})")
        return 0
    bad = 0
    for spec in catalog.CATALOG.values():
        ok, why = check(spec, root)
        bad += 0 if ok else 1
        print(f"{spec.name}: {why}")
    return 1 if bad else 0
