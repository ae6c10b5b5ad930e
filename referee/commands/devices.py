"""Muestra los micrófonos que ve la computadora, con el número y el nombre para usar en --mic."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from referee.audio import AudioError
from referee.band import narrow_rate
from referee.microphone import InputDevice, list_devices

# A device that records at 8 kHz (a Bluetooth headset's link) hears as a telephone does.
PHONE = "suena como un teléfono, y los números se oyen peor"
DEFAULT_MARK = "* = el que se usa si no elegís ninguno."
CHOOSE = ("Elegí uno con --mic NÚMERO o --mic NOMBRE (alcanza una parte del nombre) al arrancar "
          "'truco-referee serve', 'truco-referee voices calibrate' o 'truco-referee listen'; "
          "p. ej.: truco-referee serve --mic {index}")
NO_PORTAUDIO = ("falta PortAudio (libportaudio2): instalalo con 'sudo apt install libportaudio2' "
                "y volvé a probar")

# Where Linux shows the sound cards (ALSA): a card's recording and playing devices are pcmC*.
SOUND_DEVICES = Path("/dev/snd")
NONE_PLUGGED = "No hay ningún micrófono conectado. Enchufá uno y volvé a probar."
NO_CARD = ("No veo ningún sistema de audio: la computadora no muestra ninguna placa de sonido "
           f"({SOUND_DEVICES}). En una máquina virtual o un contenedor, dale acceso al audio; si "
           "no, enchufá un micrófono USB y volvé a probar.")
NO_PERMISSION = ("No tengo permiso para usar el audio (no puedo abrir lo que hay en "
                 f"{SOUND_DEVICES}): sumá tu usuario al grupo audio (sudo adduser $USER audio), "
                 "volvé a entrar a la sesión y probá de nuevo.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    del parser  # no options


def run(args: argparse.Namespace) -> int:
    """The microphones, one a line; 1 when there is none or the audio system cannot be asked."""
    try:
        devices = list_devices()
    except AudioError as err:
        missing = isinstance(err.__cause__, OSError)  # sounddevice found no PortAudio library
        print(f"No puedo ver los micrófonos: {NO_PORTAUDIO if missing else err.message}",
              file=sys.stderr)
        return 1
    if not devices:
        print(why_none(), file=sys.stderr)
        return 1
    for d in devices:
        print(_line(d))
    print()
    if any(d.is_default for d in devices):
        print(DEFAULT_MARK)
    print(CHOOSE.format(index=devices[0].index))
    return 0


def _line(d: InputDevice) -> str:
    mark = "*" if d.is_default else " "
    phone = f", graba a {d.default_rate / 1000:g} kHz: {PHONE}" if narrow_rate(d.default_rate) else ""
    return (f"{mark} {d.index:3d}  {d.name}  ({d.channels} canal{'es' if d.channels != 1 else ''}"
            f"{phone})")


def why_none() -> str:
    """Why no microphone is listed: none plugged in, or (on Linux) no sound card to ask, or no
    permission to open the ones there are."""
    if not sys.platform.startswith("linux"):
        return NONE_PLUGGED
    cards = sorted(SOUND_DEVICES.glob("pcmC*")) if SOUND_DEVICES.is_dir() else []
    if not cards:
        return NO_CARD
    if not any(os.access(card, os.R_OK | os.W_OK) for card in cards):
        return NO_PERMISSION
    return NONE_PLUGGED
