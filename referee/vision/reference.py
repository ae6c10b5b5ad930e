"""Pick the reference bank: the deck folders given, or the decks in the models directory."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

from engine.cards import Card
from models.decks import banks_root, installed_decks
from models.syserrors import said
from referee.vision.bank import Bank, bank_for
from referee.vision.errors import VisionError
from referee.vision.faces import (
    DeckError,
    face_files,
    face_name,
    missing_faces,
    unnamed_images,
)


def reference_bank(decks: Sequence[Path] | None, models: Path,
                   progress: Callable[[int, int], None] | None = None,
                   say: Callable[[str], None] | None = None) -> Bank:
    """The bank for ``decks`` (or every installed deck), built once and cached under ``models``;
    a cache that cannot be written is said (``say``, by default on standard error) and the bank
    is used from memory."""
    folders = list(decks or installed_decks(models))
    if not folders:
        raise VisionError("no-deck", "no tengo ningún mazo de referencia. Calibrá con tu mazo: "
                          "truco-referee cards --calibrate --camera 0, pasá una carpeta de caras "
                          "con --deck CARPETA (archivos como 07-oros.png), o bajá un mazo libre "
                          "con 'truco-referee models fetch mazo-naipes-libres'")
    try:
        missing = missing_faces(folders)
        if missing:
            for folder in folders:
                _require_faces(folder)
            raise DeckError(_missing_text(missing, unnamed_images(folders)))
        cache = banks_root(models)
        return bank_for(folders, cache, progress,
                        unsaved=partial(_unsaved, say or _to_stderr, cache))
    except DeckError as err:
        raise VisionError("bad-deck", str(err)) from err


def _require_faces(folder: Path) -> None:
    """A deck folder with no face at all is refused as such, naming the decks inside it when it
    holds some (``--deck`` given the folder of decks), not as a deck missing its 40 faces."""
    if face_files(folder):
        return
    inside = sorted(sub for sub in Path(folder).iterdir() if sub.is_dir() and face_files(sub))
    hint = (f"; adentro hay mazos: {', '.join(str(sub) for sub in inside[:3])}"
            + (f" y {len(inside) - 3} más" if len(inside) > 3 else "")
            + " (pasá uno con --deck CARPETA)" if inside else
            ": nombralas como 07-oros.png, 12-bastos.webp")
    raise DeckError(f"no hay caras de cartas en {folder}{hint}")


def _unsaved(say: Callable[[str], None], cache: Path, err: OSError) -> None:
    """Say that the bank could not be cached (a read-only or full models folder), and how to."""
    say(f"no puedo guardar la referencia del mazo en {err.filename or cache}: {said(err)}; "
        "la uso sin guardarla (se vuelve a armar cada vez; elegí otra carpeta con "
        "--models-dir para guardarla)")


def _to_stderr(message: str) -> None:
    print(message, file=sys.stderr)


def _missing_text(missing: list[Card], unnamed: list[Path]) -> str:
    """Why a deck with faces missing is refused (a card with no face is read as another one), and
    the images left out because their names say no card."""
    shown = ", ".join(f"{c.nombre} ({face_name(c)})" for c in missing[:6])
    more = f" y {len(missing) - 6} más" if len(missing) > 6 else ""
    left = ", ".join(p.name for p in unnamed[:6]) + (f" y {len(unnamed) - 6} más" if len(unnamed) > 6 else "")
    ignored = f" (no sé qué carta es {left}: se llaman como 07-oros.png)" if unnamed else ""
    return (f"al mazo le faltan caras: {shown}{more}{ignored}. Sin su cara, una carta se lee como "
            "otra: agregalas a la carpeta o calibrá tu mazo (truco-referee cards --calibrate "
            "--camera 0)")
