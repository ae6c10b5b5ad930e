"""Draw readings on a frame: each card's outline and its name, or "no la veo"; and such a frame
as the JPEG kept with the game as evidence."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

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


def jpeg(frame: np.ndarray, readings: Sequence[Reading], title: str = "") -> bytes:
    """The annotated frame (``annotate``) as a JPEG, the picture kept with the game as evidence;
    b"" in the rare case OpenCV cannot encode it (the play or the verdict stands without it)."""
    ok, data = cv2.imencode(".jpg", annotate(frame, readings, title))
    return data.tobytes() if ok else b""
