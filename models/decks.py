"""Card decks and reference banks in the models directory.

Layout (``truco-referee cards --calibrate`` writes decks here; a fetched deck goes the same way):

    <models>/cards/decks/<name>/RR-suit.png   face images, one per card (07-oros.png, 12-bastos.png)
    <models>/cards/banks/<key>.npz            cached reference banks, keyed by a hash of the faces
"""

from __future__ import annotations

import re
from pathlib import Path

FACE_NAME = re.compile(r"^\d{1,2}-(oros|copas|espadas|bastos)\.(png|webp|jpe?g|bmp)$", re.IGNORECASE)
DECK_NAME = re.compile(r"[A-Za-z0-9_-]{1,40}")  # a calibrated deck's name, its folder's name


def cards_root(models: Path) -> Path:
    return Path(models) / "cards"


def decks_root(models: Path) -> Path:
    """Where deck folders live."""
    return cards_root(models) / "decks"


def banks_root(models: Path) -> Path:
    """Where cached reference banks live."""
    return cards_root(models) / "banks"


def face_count(folder: Path) -> int:
    """How many face images named like ``07-oros.png`` a folder (or its ``cards/``) holds."""
    folder = Path(folder)
    if (folder / "cards").is_dir():
        folder = folder / "cards"
    if not folder.is_dir():
        return 0
    return sum(1 for p in folder.iterdir() if FACE_NAME.match(p.name))


DECK_SIZE = 40


def installed_decks(models: Path) -> list[Path]:
    """Complete deck folders (all 40 faces) in the models directory, by name; hidden folders
    (a calibration still under way) are skipped."""
    root = decks_root(models)
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir()
                  if p.is_dir() and not p.name.startswith(".") and face_count(p) >= DECK_SIZE)


def deck_dir(models: Path, name: str) -> Path:
    """The folder for a deck called ``name`` (letters, digits, - and _ only)."""
    if not DECK_NAME.fullmatch(name):
        raise ValueError(f"invalid deck name {name!r}: use letters, digits, - or _")
    return decks_root(models) / name


# The "Naipes libres" sheet (Wikimedia Commons, "Baraja española completa.png", CC BY-SA 3.0):
# 12 columns (ranks 1-12) by 5 rows (oros, copas, espadas, bastos, then backs) of 208x319 cards.
SHEET_SIZE = (2496, 1595)
SHEET_CELL = (208, 319)
SHEET_SUITS = ("oros", "copas", "espadas", "bastos")
TRUCO_RANKS = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)


class SheetError(ValueError):
    """A deck sheet that is not laid out as expected; the message goes after the sheet's name."""


def split_sheet(sheet: Path, dest: Path) -> int:
    """Cut the 40 Truco faces out of a deck sheet into ``dest`` as ``RR-suit.png``; returns 40.
    A face that cannot be written raises the system's ``OSError`` (a full disk, no permission)."""
    import cv2

    image = cv2.imread(str(sheet), cv2.IMREAD_UNCHANGED)
    if image is None:
        raise SheetError("no es una imagen (¿una página web en vez del archivo?)")
    height, width = image.shape[:2]
    if (width, height) != SHEET_SIZE:
        raise SheetError(f"mide {width}x{height}, y la hoja del mazo mide "
                         f"{SHEET_SIZE[0]}x{SHEET_SIZE[1]} (12 × 5 cartas)")
    dest.mkdir(parents=True, exist_ok=True)
    w, h = SHEET_CELL
    for row, suit in enumerate(SHEET_SUITS):
        for rank in TRUCO_RANKS:
            cell = image[row * h:(row + 1) * h, (rank - 1) * w:rank * w]
            done, png = cv2.imencode(".png", cell)
            if not done:
                raise SheetError(f"no se deja guardar como PNG (el {rank} de {suit})")
            (dest / f"{rank:02d}-{suit}.png").write_bytes(png.tobytes())
    return len(SHEET_SUITS) * len(TRUCO_RANKS)
