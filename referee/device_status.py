"""How a microphone or a camera tells how it is doing: looking for its lost device again,
hearing through a narrow line or clipped, and each message said once."""

from __future__ import annotations

import sys
from collections.abc import Callable

# How a microphone or a camera that lost its device says it is looking for it again («no hay
# ningún micrófono conectado: enchufá uno; reintento en 2 s»); any other status says it works.
RETRYING = "; reintento en "
# How a microphone whose sound comes through a narrow line says so (``referee.band``).
NARROW_LINE = ("suena como un teléfono: calibrá las voces con este micrófono o usá otro (no "
               "manda nada por encima de 4 kHz, y así los números y las palabras parecidas se "
               "oyen peor)")
# ... and where the voices were calibrated through such a line: then it hears nearly as well.
NARROW_CALIBRATED = ("suena como un teléfono, y las voces se calibraron así: oye casi como con "
                     "uno completo")
# ... and how ``voices calibrate``, ``voices learn`` and the tablet say a calibration made through one.
NARROW_CALIBRATION = ("Las voces sonaron como por teléfono (nada por encima de 4 kHz): con esta "
                      "calibración el árbitro oye casi como con un micrófono completo si juegan "
                      "con ese mismo micrófono; si cambian a otro, calibrá de nuevo con ese.")
# How a recording (``listen --wav``, ``serve --wav``) whose sound came through such a line says
# so, and when it no longer does (``wav._line``: «a los 5.8 s suena como un teléfono …»).
NARROW_RECORDING = ("suena como un teléfono (no trae nada por encima de 4 kHz, y así los números "
                    "y las palabras parecidas se oyen peor); si la grabó el micrófono de la mesa, "
                    "calibrá las voces con él")
FULL_RECORDING = "vuelve a sonar completa"
# How a microphone turned up so far that the words come cut flat says so (``referee.clipping``),
# and a recording that sounds so, and no longer does (``sound_check.SoundCheck.recorded``).
CLIPPED_LINE = ("satura: las palabras llegan cortadas de tan fuerte, y así se oyen peor; bajale "
                "el volumen al micrófono o alejalo un poco")
CLIPPED_RECORDING = "satura (las palabras llegan cortadas de tan fuerte, y así se oyen peor)"
UNCLIPPED_RECORDING = "deja de saturar"


def retrying(trouble: str, retry_s: float) -> str:
    """A source's status while it looks for its device again (``is_retrying``)."""
    return f"{trouble}{RETRYING}{retry_s:.0f} s"


def is_retrying(status: str) -> bool:
    """Whether a source's status says it lost its device and is looking for it again."""
    return RETRYING in status


def shown_state(status: str) -> str:
    """How the pages show a source with this status: "trouble" while it looks for its device
    again, "poor" while it hears through a narrow line or clipped (a microphone's, or a
    recording's from where it began to sound so), else "ok"."""
    poor = status in (NARROW_LINE, CLIPPED_LINE) or status.endswith((NARROW_RECORDING,
                                                                      CLIPPED_RECORDING))
    return "trouble" if is_retrying(status) else "poor" if poor else "ok"


def said_once(say: Callable[[str], None]) -> Callable[[str], None]:
    """A status callback that passes a message on only when it differs from the last one (a
    microphone or camera that stays unplugged is said once, not at every retry)."""
    last: list[str] = []

    def status(message: str) -> None:
        if last != [message]:
            last[:] = [message]
            say(message)

    return status


def print_status(what: str) -> Callable[[str], None]:
    """``said_once`` on standard error, as ``[what] message``: the commands run in a terminal."""
    return said_once(lambda msg: print(f"[{what}] {msg}", file=sys.stderr, flush=True))
