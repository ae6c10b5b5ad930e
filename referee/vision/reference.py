"""Pick the reference bank: the deck folders given, or the decks in the models directory."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from engine.cards import Card
from models.decks import banks_root, installed_decks
from models.syserrors import said
from referee.vision.bank import Bank, bank_for, deck_key, save_bank
from referee.vision.errors import VisionError
from referee.vision.faces import DeckError, face_name, missing_faces, unnamed_images


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
            raise DeckError(_missing_text(missing, unnamed_images(folders)))
        return _cached_bank(folders, banks_root(models), progress, say or _to_stderr)
    except DeckError as err:
        raise VisionError("bad-deck", str(err)) from err


def _cached_bank(folders: list[Path], cache: Path, progress: Callable[[int, int], None] | None,
                 say: Callable[[str], None]) -> Bank:
    """The bank from the cache, else built and cached; built in memory when the cache cannot
    be written (a read-only models folder): the cards are read all the same."""
    path = cache / f"{deck_key(folders)}.npz"
    if path.exists():
        with contextlib.suppress(OSError):  # a damaged copy is built again, if it can be saved
            return bank_for(folders, cache, progress)
    bank = bank_for(folders, None, progress)
    try:
        save_bank(bank, path)
    except OSError as err:
        say(f"no puedo guardar la referencia del mazo en {err.filename or cache}: {said(err)}; "
            "la uso sin guardarla (se vuelve a armar cada vez; elegí otra carpeta con "
            "--models-dir para guardarla)")
    return bank


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
