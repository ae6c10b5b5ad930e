"""How card outlines overlap: the share of one inside another, their bounding boxes, and the
best of those that overlap kept."""

from __future__ import annotations

import cv2
import numpy as np

from referee.vision.geometry import shared_area


def covered(quad: np.ndarray, by: np.ndarray) -> float:
    """Share of ``quad`` inside ``by`` (both convex)."""
    return shares(quad, by)[0]


def shares(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Share of ``a`` inside ``b`` and of ``b`` inside ``a`` (both convex), the area they share
    measured once."""
    both = shared_area(a, b)
    return (both / max(1.0, float(cv2.contourArea(a))), both / max(1.0, float(cv2.contourArea(b))))


def overlaps(a: np.ndarray, b: np.ndarray, share: float) -> bool:
    """More than ``share`` of either quad lies inside the other."""
    return max(shares(a, b)) > share


def bounds(quads: list[np.ndarray]) -> list[tuple[float, float, float, float]]:
    """Each quad's bounding box (left, top, right, bottom) as Python numbers, all in one step."""
    if not quads:
        return []
    corners = np.stack(quads)
    return [(*lo, *hi) for lo, hi in zip(corners.min(axis=1).tolist(), corners.max(axis=1).tolist())]


def apart(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    """Two bounding boxes without a point in common: neither quad covers any of the other, and
    ``covered`` need not be asked (the outlines of two cards apart, a card and a pip box
    elsewhere)."""
    return a[2] < b[0] or b[2] < a[0] or a[3] < b[1] or b[3] < a[1]


def keep_best(quads: list[np.ndarray], scores: list[float], overlap: float = 0.6) -> list[int]:
    """Indices of the quads to keep, best score first, dropping any that mostly overlaps a kept one
    (the same card seen twice, a pip box inside a card, two cards taken for one)."""
    kept: list[int] = []
    boxes = bounds(quads)
    for i in sorted(range(len(quads)), key=lambda j: -scores[j]):
        q = quads[i]
        if not any(not apart(boxes[i], boxes[k]) and overlaps(q, quads[k], overlap) for k in kept):
            kept.append(i)
    return kept


def suppress(quads: list[tuple[np.ndarray, float]], overlap: float = 0.6) -> list[np.ndarray]:
    """The quads that survive ``keep_best`` on their shape scores."""
    shapes = [q for q, _ in quads]
    return [shapes[i] for i in keep_best(shapes, [s for _, s in quads], overlap)]
