"""Find cards in a frame: bright paper regions and closed edge regions, fitted with four corners."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from referee.vision.geometry import fit_quad


@dataclass(frozen=True)
class DetectorSettings:
    """Detection limits, relative to the working image (frames are shrunk to ``work_width``)."""

    work_width: int = 640
    min_area: float = 0.006   # of the frame
    max_area: float = 0.45
    min_aspect: float = 1.08  # long side / short side, after perspective
    max_aspect: float = 2.5
    min_fill: float = 0.62    # region area / quad area (fingers and overlaps take the rest)


def _paper_mask(small: np.ndarray) -> np.ndarray:
    """Pixels that look like card paper (bright, not very saturated), holes filled."""
    hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
    s, v = hsv[:, :, 1], hsv[:, :, 2]
    bright = float(np.percentile(v, 99))
    mask = ((s < 110) & (v > 0.6 * bright)).astype(np.uint8) * 255
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(mask)
    cv2.drawContours(filled, contours, -1, 255, cv2.FILLED)
    return filled


def _edges(small: np.ndarray) -> np.ndarray:
    """Edges in lightness or colour (a finger on cream paper differs mostly in hue)."""
    lab = cv2.cvtColor(cv2.GaussianBlur(small, (5, 5), 0), cv2.COLOR_BGR2LAB)
    edges = cv2.Canny(lab[:, :, 0], 25, 70)
    for ch in (1, 2):
        edges |= cv2.Canny(lab[:, :, ch], 12, 30)
    return cv2.dilate(edges, np.ones((3, 3), np.uint8))


def _edge_support(quad: np.ndarray, near_edges: np.ndarray) -> float:
    """Share of the quad's outline that runs along an image edge."""
    h, w = near_edges.shape
    t = np.linspace(0.08, 0.92, 24)[:, None]
    pts = np.concatenate([quad[i] + t * (quad[(i + 1) % 4] - quad[i]) for i in range(4)])
    x = np.clip(pts[:, 0].round().astype(int), 0, w - 1)
    y = np.clip(pts[:, 1].round().astype(int), 0, h - 1)
    return float((near_edges[y, x] > 0).mean())


def _trimmed(contour: np.ndarray, area: float) -> np.ndarray | None:
    """The region opened with a disc a third of a card wide: fingers and thin overlaps fall off."""
    x, y, w, h = cv2.boundingRect(contour)
    k = max(5, int(0.3 * np.sqrt(area / 1.55))) | 1
    roi = np.zeros((h + 2 * k, w + 2 * k), np.uint8)
    cv2.drawContours(roi, [contour - [x - k, y - k]], -1, 255, cv2.FILLED)
    roi = cv2.morphologyEx(roi, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    found, _ = cv2.findContours(roi, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not found:
        return None
    return max(found, key=cv2.contourArea) + [x - k, y - k]


def _quads(mask: np.ndarray, settings: DetectorSettings, mode: int,
           weight: float) -> list[tuple[np.ndarray, float]]:
    """Candidate quads from the regions of a mask, scored by fill⁴ × √area × weight."""
    h, w = mask.shape
    frame_area = float(h * w)
    contours, _ = cv2.findContours(mask, mode, cv2.CHAIN_APPROX_NONE)
    found = []
    for contour in contours:
        area = cv2.contourArea(contour)
        if not settings.min_area * frame_area <= area <= settings.max_area * frame_area:
            continue
        region = _trimmed(contour, area)
        quad = fit_quad(region if region is not None else contour)
        if quad is not None and _plausible(quad, area, settings, (w, h)):
            fill = min(1.0, area / cv2.contourArea(quad))
            found.append((quad, weight * fill ** 2 * np.sqrt(cv2.contourArea(quad))))
    return found


def _plausible(quad: np.ndarray, area: float, settings: DetectorSettings,
               size: tuple[int, int]) -> bool:
    quad_area = cv2.contourArea(quad)
    if quad_area <= 0 or area / quad_area < settings.min_fill:
        return False
    if quad_area > settings.max_area * size[0] * size[1]:
        return False
    sides = [np.linalg.norm(quad[(i + 1) % 4] - quad[i]) for i in range(4)]
    short, long = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
    if min(sides) < 8 or not settings.min_aspect <= long / short <= settings.max_aspect:
        return False
    return max(sides[0], sides[2]) / min(sides[0], sides[2]) < 1.8 and \
        max(sides[1], sides[3]) / min(sides[1], sides[3]) < 1.8


def _covered(quad: np.ndarray, by: np.ndarray) -> float:
    """Share of ``quad`` inside ``by`` (both convex)."""
    inter, _ = cv2.intersectConvexConvex(quad.astype(np.float32), by.astype(np.float32))
    return float(inter) / max(1.0, float(cv2.contourArea(quad)))


def _dedupe(quads: list[tuple[np.ndarray, float]]) -> list[np.ndarray]:
    """Best-scored quads first; drop any mostly inside one already kept (same card, or a pip box)."""
    kept: list[np.ndarray] = []
    for quad, _ in sorted(quads, key=lambda qs: -qs[1]):
        if not any(_covered(quad, k) > 0.6 for k in kept):
            kept.append(quad)
    return kept


def find_cards(frame: np.ndarray, settings: DetectorSettings = DetectorSettings()) -> list[np.ndarray]:
    """Corners (4×2, frame pixels, clockwise, short side first) of every card-like quad in the frame."""
    if frame is None or frame.ndim != 3 or frame.shape[2] != 3:
        raise ValueError("find_cards needs a BGR colour frame")
    scale = min(1.0, settings.work_width / frame.shape[1])
    small = frame if scale == 1.0 else cv2.resize(frame, None, fx=scale, fy=scale,
                                                   interpolation=cv2.INTER_AREA)
    edges = _edges(small)
    quads = (_quads(_paper_mask(small), settings, cv2.RETR_EXTERNAL, 1.0)
             + _quads(cv2.bitwise_not(edges), settings, cv2.RETR_LIST, 1.0))
    near = cv2.dilate(edges, np.ones((5, 5), np.uint8))
    quads = [(q, s * _edge_support(q, near) ** 2) for q, s in quads]
    return [q / scale for q in _dedupe(quads)]
