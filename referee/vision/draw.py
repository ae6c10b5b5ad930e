"""Draw readings on a frame: each card's outline and its name, or "no la veo"; and keep such a
frame as evidence."""

from __future__ import annotations

import time
import unicodedata
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from referee.vision.reading import Reading

SEEN = (40, 200, 40)
UNSURE = (0, 140, 255)


def label(reading: Reading) -> str:
    if reading.card is None:
        return f"figura de {reading.figure_of.nombre}" if reading.figure_of else "no la veo"
    if reading.by_cues:  # the bank's confidence is under the bar: the cues named it
        return f"{reading.card} por señas"
    return f"{reading.card} {reading.confidence:.0%}"


def _ascii(text: str) -> str:
    """OpenCV fonts have no accents: "leí" → "lei"."""
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()


def annotate(frame: np.ndarray, readings: Sequence[Reading], title: str = "") -> np.ndarray:
    """A copy of the frame with the cards outlined and named."""
    out = frame.copy()
    thick = max(1, frame.shape[1] // 400)
    for reading in readings:
        colour = SEEN if reading.card else UNSURE
        pts = reading.outline.astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(out, [pts], True, colour, 2 * thick)
        x, y = reading.outline.min(axis=0).astype(int)
        cv2.putText(out, _ascii(label(reading)), (int(x), max(14, int(y) - 6)), cv2.FONT_HERSHEY_SIMPLEX,
                    0.5 * thick, colour, thick + 1, cv2.LINE_AA)
    if title:
        cv2.putText(out, _ascii(title), (10, 24 * thick), cv2.FONT_HERSHEY_SIMPLEX, 0.7 * thick,
                    (255, 255, 255), thick + 1, cv2.LINE_AA)
    return out


def save_annotated(folder: Path, kind: str, label: str, frame: np.ndarray,
                   readings: Sequence[Reading], title: str = "", at: float | None = None) -> Path:
    """Save the annotated frame as ``folder/<kind>-<UTC time>-<label>.jpg`` (``…-2.jpg``, … if
    taken; ``at`` the time, now by default); its path."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(time.time() if at is None else at))
    name = f"{kind}-{stamp}-{label}"
    folder.mkdir(parents=True, exist_ok=True)
    path, n = folder / f"{name}.jpg", 1
    while path.exists():
        n += 1
        path = folder / f"{name}-{n}.jpg"
    if not cv2.imwrite(str(path), annotate(frame, readings, title)):
        raise OSError(f"cannot write evidence frame {str(path)!r}")
    return path
