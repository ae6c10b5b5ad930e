"""Calibration to the players' own deck: ask for each card in turn, wait until it sits still
in front of the camera, and save its flattened face as ``RR-suit.png`` in a deck folder."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from engine.cards import DECK, Card
from models.folders import replace_folder
from referee.vision.detect import DetectorSettings, find_cards
from referee.vision.errors import VisionError
from referee.vision.faces import face_name
from referee.vision.geometry import flatten

FACE_SIZE = (240, 372)


@dataclass
class Calibrator:
    """Guided capture of a whole deck from a stream of frames."""

    out_dir: Path
    say: Callable[[str], None] = print
    steady_frames: int = 6
    detector: DetectorSettings = field(default_factory=DetectorSettings)

    def run(self, frames: Iterable[np.ndarray], cards: Sequence[Card] = DECK) -> list[Path]:
        """Capture every card asked for; returns the saved face files."""
        stream = iter(frames)
        # Faces go to a hidden folder first: a half-captured deck must never become the reference.
        work = self.out_dir.with_name(f".{self.out_dir.name}.incompleto")
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        for i, card in enumerate(cards, 1):
            self.say(f"({i}/{len(cards)}) Mostrá el {card.nombre} a la cámara, sola, y dejala quieta.")
            path = work / face_name(card)
            if not cv2.imwrite(str(path), self._capture(stream)):
                raise VisionError("deck-write", f"no puedo guardar {path}")
            self.say("Listo, ya la tengo. Sacala.")
            self._wait_empty(stream)
        replace_folder(work, self.out_dir)  # the old deck stays whole until this one is in
        self.say(f"Mazo guardado en {self.out_dir}")
        return [self.out_dir / face_name(card) for card in cards]

    def _next(self, stream: Iterator[np.ndarray]) -> np.ndarray:
        try:
            return next(stream)
        except StopIteration:
            raise VisionError("camera-stopped", "se cortaron las imágenes antes de terminar") from None

    def _capture(self, stream: Iterator[np.ndarray]) -> np.ndarray:
        """The face of the single card in view once it has stayed still for a few frames."""
        previous: np.ndarray | None = None
        steady = 0
        while True:
            frame = self._next(stream)
            quads = find_cards(frame, self.detector)
            if len(quads) != 1:
                previous, steady = None, 0
                continue
            quad = quads[0]
            size = float(np.linalg.norm(quad[1] - quad[0]))
            still = previous is not None and _moved(previous, quad) < 0.03 * size
            steady = steady + 1 if still else 0
            previous = quad
            if steady + 1 >= self.steady_frames:
                return flatten(frame, quad, FACE_SIZE)

    def _wait_empty(self, stream: Iterator[np.ndarray], frames: int = 3) -> None:
        empty = 0
        while empty < frames:
            empty = empty + 1 if not find_cards(self._next(stream), self.detector) else 0


def _moved(a: np.ndarray, b: np.ndarray) -> float:
    """Largest corner movement between two outlines of the same card (any corner order)."""
    return min(float(np.abs(np.roll(b, r, axis=0) - a).max()) for r in range(4))
