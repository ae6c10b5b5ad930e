"""Face images of a deck: folders of ``RR-suit.ext`` files (``07-oros.png``) and the canonical card size."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from engine.cards import DECK, RANKS, Card, InvalidCard

# Canonical flattened card, portrait, in pixels (the Spanish deck is about 1:1.55).
CANON_W = 96
CANON_H = 148
FACE_SUFFIXES = (".png", ".webp", ".jpg", ".jpeg", ".bmp")
_NAME = re.compile(r"^(\d{1,2})-(oros|copas|espadas|bastos)$")


class DeckError(ValueError):
    """A deck folder that cannot be read."""


@dataclass(frozen=True)
class Face:
    """One card face: BGR pixels and an alpha mask (255 inside the card)."""

    card: Card
    bgr: np.ndarray
    alpha: np.ndarray
    path: Path


def _faces_folder(folder: Path) -> Path:
    """Where a deck's faces are: the folder, or its ``cards/`` subfolder."""
    folder = Path(folder)
    if (folder / "cards").is_dir():
        folder = folder / "cards"
    if not folder.is_dir():
        raise DeckError(f"no encuentro la carpeta del mazo {folder}")
    return folder


def face_files(folder: Path) -> dict[Card, Path]:
    """The truco cards found in a folder (or its ``cards/`` subfolder), by card."""
    folder = _faces_folder(folder)
    found: dict[Card, Path] = {}
    for path in sorted(folder.iterdir()):
        card = _card_named(path)
        if card is not None:
            found[card] = path
    return found


def face_name(card: Card) -> str:
    """The file name of a card's face in a deck folder: ``07-oros.png``."""
    return f"{card.rank:02d}-{card.suit.nombre}.png"


def _card_named(path: Path) -> Card | None:
    """The card an image's name says it is (``07-oros.png``), or None."""
    m = _NAME.match(path.stem.lower())
    if not m or path.suffix.lower() not in FACE_SUFFIXES or int(m.group(1)) not in RANKS:
        return None
    try:
        return Card.parse(f"{int(m.group(1))}-{m.group(2)}")
    except InvalidCard:
        return None


def unnamed_images(folders: Sequence[Path]) -> list[Path]:
    """The images in the deck folders whose names say no card: they are left out."""
    return [path for folder in folders for path in sorted(_faces_folder(folder).iterdir())
            if path.suffix.lower() in FACE_SUFFIXES and _card_named(path) is None]


def missing_faces(folders: Sequence[Path]) -> list[Card]:
    """The cards of the deck no folder has a face of."""
    have = {card for folder in folders for card in face_files(folder)}
    return [card for card in DECK if card not in have]


def read_face(card: Card, path: Path) -> Face:
    """Read one face image, flattening transparency onto the card's own paper colour."""
    raw = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if raw is None:
        raise DeckError(f"no puedo leer la cara {path}")
    if raw.ndim == 2:
        raw = cv2.cvtColor(raw, cv2.COLOR_GRAY2BGR)
    if raw.shape[2] == 4:
        alpha = raw[:, :, 3].copy()
        bgr = raw[:, :, :3].copy()
        bgr[alpha < 128] = 255
    else:
        bgr = raw[:, :, :3].copy()
        alpha = np.full(bgr.shape[:2], 255, np.uint8)
    if bgr.shape[1] > bgr.shape[0]:
        bgr = cv2.rotate(bgr, cv2.ROTATE_90_CLOCKWISE)
        alpha = cv2.rotate(alpha, cv2.ROTATE_90_CLOCKWISE)
    return Face(card, bgr, alpha, path)


def load_deck(folder: Path) -> dict[Card, Face]:
    """Every truco card of a deck folder; refuses a folder with none."""
    files = face_files(folder)
    if not files:
        raise DeckError(f"no hay caras de cartas en {folder}: nombralas como 07-oros.png, "
                        "12-bastos.webp")
    return {card: read_face(card, path) for card, path in files.items()}


def canonical(face: Face) -> np.ndarray:
    """The face resized to the canonical card size."""
    return cv2.resize(face.bgr, (CANON_W, CANON_H), interpolation=cv2.INTER_AREA)
