"""The values the command line takes, checked as it is read, and system errors in words."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

from models import syserrors
from models.decks import DECK_NAME
from models.paths import ENV_VAR, models_dir, models_dir_problem

# System errors in words (by errno): one table with the models fetch, which tells them too.
SYSTEM_ERRORS = syserrors.SYSTEM_ERRORS
said = syserrors.said


def add_models_dir(parser: argparse._ActionsContainer,
                   what: str = "dónde están los modelos bajados", **options: Any) -> None:
    """The --models-dir option, its help saying the folder taken without it (``options``: more
    of ``add_argument``'s)."""
    default = str(models_dir()).replace("%", "%%")  # argparse formats help with %
    parser.add_argument("--models-dir", metavar="CARPETA", **options,
                        help=f"{what} (si no, ${ENV_VAR} o la carpeta del usuario; ahora: {default})")


def port(text: str) -> int:
    """A TCP port to listen on."""
    value = _whole(text)
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"el puerto va de 1 a 65535, no {text}")
    return value


def share(text: str) -> float:
    """A confidence, from 0 to 1."""
    value = _real(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"va de 0 a 1, no {text}")
    return value


def at_least_one(text: str) -> int:
    """A count of people or things: 1 or more."""
    value = _whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"tiene que ser 1 o más, no {text}")
    return value


def at_least_zero(text: str) -> int:
    """A number of things or an index from 0 (a camera: 0 is the first)."""
    value = _whole(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"tiene que ser 0 o más, no {text}")
    return value


def table_audio_s(text: str) -> int:
    """Seconds of the table's sound kept in memory: 0 (none) to ``table_audio.KEEP_MAX_S``."""
    from referee.table_audio import KEEP_MAX_S

    value = _whole(text)
    if not 0 <= value <= KEEP_MAX_S:
        raise argparse.ArgumentTypeError(f"va de 0 (nada) a {KEEP_MAX_S} segundos, no {text}")
    return value


def deck_name(text: str) -> str:
    """A name for a calibrated deck: it names its folder."""
    if not DECK_NAME.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"«{text}» no sirve de nombre de mazo: usá letras sin tilde, números, - o _, "
            "hasta 40 (p. ej. mi-mazo)")
    return text


PIN_TEXT = re.compile(r"\d{4,8}")


def pin(text: str) -> str:
    """The table's PIN: 4 to 8 digits."""
    if not PIN_TEXT.fullmatch(text):
        raise argparse.ArgumentTypeError("el PIN tiene que tener de 4 a 8 números")
    return text


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"«{text}» no es un número entero") from None


def _real(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"«{text}» no es un número") from None


# The options that name a folder (one, or a list of them), by the name argparse stores them under
# (--models-dir is checked by ``models_dir_problem``, given or not).
FOLDER_OPTIONS: dict[str, str] = {
    "data_dir": "--data-dir", "evidence": "--evidence",
    "frames_dir": "--frames-dir", "deck": "--deck", "wav_dir": "--wav-dir",
}


def not_folders(args: argparse.Namespace) -> list[str]:
    """What is wrong with the folders given on the command line: each one that is a file.  The
    models folder of a command that takes --models-dir is checked whether it was given or comes
    from $TRUCO_REFEREE_MODELS or the default, and a link to nothing is wrong there too."""
    found = []
    for name, option in FOLDER_OPTIONS.items():
        given = getattr(args, name, None)
        for path in given if isinstance(given, list) else [given]:
            if path is not None and Path(path).exists() and not Path(path).is_dir():
                found.append(f"{option} {path}: es un archivo, no una carpeta")
    problem = models_dir_problem(args.models_dir) if hasattr(args, "models_dir") else None
    if problem:
        found.append(problem)
    return found
