"""Muestra los micrófonos que ve la computadora, con el número y el nombre para usar en --mic."""

from __future__ import annotations

import argparse
import sys

from referee.audio import AudioError
from referee.microphone import list_devices


def add_arguments(parser: argparse.ArgumentParser) -> None:
    del parser  # no options


def run(args: argparse.Namespace) -> int:
    try:
        devices = list_devices()
    except AudioError as err:
        print(f"No puedo ver los micrófonos: {err.message}", file=sys.stderr)
        return 2
    if not devices:
        print("No hay ningún micrófono conectado. Enchufá uno y volvé a probar.")
        return 1
    for d in devices:
        mark = "*" if d.is_default else " "
        print(f"{mark} {d.index:3d}  {d.name}  ({d.channels} canal{'es' if d.channels != 1 else ''})")
    print("\n* = el que se usa si no elegís ninguno. Elegí con: truco-referee listen --mic NÚMERO")
    return 0
