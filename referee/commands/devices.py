"""Muestra los micrófonos que ve la computadora, con el número y el nombre para usar en --mic."""

from __future__ import annotations

import argparse
import sys

from referee.audio import AudioError
from referee.band import narrow_rate
from referee.microphone import list_devices

# A device that records at 8 kHz (a Bluetooth headset's link) hears as a telephone does.
PHONE = "suena como un teléfono, y los números se oyen peor"


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
        line = f", graba a {d.default_rate / 1000:g} kHz: {PHONE}" if narrow_rate(d.default_rate) else ""
        print(f"{mark} {d.index:3d}  {d.name}  ({d.channels} canal{'es' if d.channels != 1 else ''}"
              f"{line})")
    print("\n* = el que se usa si no elegís ninguno. Elegí con: truco-referee listen --mic NÚMERO")
    return 0
