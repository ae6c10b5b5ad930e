"""The reference bank: descriptors of every card of one or more decks, with augmented copies, cached."""

from __future__ import annotations

import hashlib
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from engine.cards import Card
from referee.vision.faces import Face, canonical, face_files, load_deck
from referee.vision.features import describe
from referee.vision.geometry import flatten
from referee.vision.scenes import SceneOptions, render

BANK_VERSION = "bank-v3"
AUGMENTED = 10


@dataclass(frozen=True)
class Bank:
    """Descriptors (rows, unit length) and the card each row shows; both orientations included."""

    vectors: np.ndarray
    labels: tuple[Card, ...]

    def __post_init__(self) -> None:
        if len(self.vectors) != len(self.labels) or not len(self.labels):
            raise ValueError("a bank needs one card label per descriptor, and at least one")

    @property
    def cards(self) -> list[Card]:
        return sorted(set(self.labels), key=str)


def deck_key(folders: Sequence[Path]) -> str:
    """Hash of the face files (names and bytes) of the folders, for the cache file name."""
    digest = hashlib.sha256(BANK_VERSION.encode())
    for folder in sorted(Path(f).resolve() for f in folders):
        for card, path in sorted(face_files(folder).items(), key=lambda kv: str(kv[0])):
            digest.update(str(card).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:20]


def _views(face: Face, rng: np.random.Generator, count: int) -> list[np.ndarray]:
    """The clean face plus ``count`` flattened views from generated table scenes with jittered corners."""
    opts = SceneOptions(width=360, height=300, max_tilt=35, finger_rate=0.2, overlap_rate=0.0,
                        card_size=(0.55, 0.8))
    views = [canonical(face)]
    while len(views) < count + 1:
        scene = render([face], rng, opts)
        if not scene.cards:
            continue
        corners = scene.cards[0].corners
        side = float(np.linalg.norm(corners[1] - corners[0]))
        views.append(flatten(scene.image, corners + rng.normal(0, 0.02 * side, corners.shape)))
    return views


def build_bank(decks: Sequence[dict[Card, Face]], augmented: int = AUGMENTED, seed: int = 0,
               progress: Callable[[int, int], None] | None = None) -> Bank:
    """Describe every face of the decks, in both orientations, plus augmented views."""
    rng = np.random.default_rng(seed)
    faces = [face for deck in decks for face in deck.values()]
    vectors, labels = [], []
    for i, face in enumerate(faces):
        for view in _views(face, rng, augmented):
            for img in (view, cv2.rotate(view, cv2.ROTATE_180)):
                vectors.append(describe(img))
                labels.append(face.card)
        if progress:
            progress(i + 1, len(faces))
    return Bank(np.stack(vectors), tuple(labels))


def save_bank(bank: Bank, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, vectors=bank.vectors, labels=np.array([str(c) for c in bank.labels]))
    tmp.replace(path)


def load_bank(path: Path) -> Bank:
    with np.load(path) as data:
        return Bank(data["vectors"].astype(np.float32), tuple(Card.parse(str(t)) for t in data["labels"]))


def bank_for(folders: Sequence[Path], cache_dir: Path | None,
             progress: Callable[[int, int], None] | None = None,
             unsaved: Callable[[OSError], None] | None = None) -> Bank:
    """The bank for these deck folders, from the cache when the same faces were seen before.  A
    cache the disk will not take is told to ``unsaved`` and the bank used all the same (without
    ``unsaved``, the error is raised)."""
    path = cache_dir / f"{deck_key(folders)}.npz" if cache_dir else None
    if path and path.exists():
        try:
            return load_bank(path)
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
            pass  # a damaged cache (a disk that filled up while it was written): built again
    bank = build_bank([load_deck(Path(f)) for f in folders], progress=progress)
    if path:
        try:
            save_bank(bank, path)
        except OSError as err:
            if unsaved is None:
                raise
            unsaved(err)
    return bank
