"""Card outlines from straight edges: two long sides meeting at a square-ish corner.

Region-based finding fails where a card's paper runs into a table of the same colour (a light
check of a tablecloth) or into other cards.  The sides of a card stay long straight edges, so
pairs of long segments that meet at a corner propose the card; the bank then picks the right one.
"""

from __future__ import annotations

import cv2
import numpy as np

from referee.vision.geometry import CARD_ASPECT, order_corners

_LSD = cv2.createLineSegmentDetector(cv2.LSD_REFINE_NONE)
# Beyond this many long segments the frame is all texture; a checked tablecloth can show a few
# hundred, and its cards are outlined only from their straight edges.
MAX_SEGMENTS = 500


def segments(gray: np.ndarray, min_length: float) -> np.ndarray:
    """Straight segments (x0, y0, x1, y1) at least ``min_length`` long, found at half resolution."""
    half = cv2.resize(gray, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    found = _LSD.detect(half)[0]
    if found is None:
        return np.zeros((0, 4), np.float32)
    lines = found.reshape(-1, 4) * 2.0
    length = np.hypot(lines[:, 2] - lines[:, 0], lines[:, 3] - lines[:, 1])
    return lines[length >= min_length]


def _corners(lines: np.ndarray) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(corner, arm a, arm b) for segment pairs at 55-125° that meet near an end of each."""
    p0, p1 = lines[:, :2], lines[:, 2:]
    d = p1 - p0
    length = np.linalg.norm(d, axis=1)
    u = d / length[:, None]
    i, j = np.triu_indices(len(lines), 1)
    cross = u[i, 0] * u[j, 1] - u[i, 1] * u[j, 0]
    ok = np.abs(cross) > 0.82  # sin 55°
    i, j, cross = i[ok], j[ok], cross[ok]
    w = p0[j] - p0[i]
    t_i = (w[:, 0] * u[j, 1] - w[:, 1] * u[j, 0]) / cross
    x = p0[i] + t_i[:, None] * u[i]
    t_j = np.einsum("nk,nk->n", x - p0[j], u[j])
    arm_i, ok_i = _arm(i, t_i, x, p0, p1, length)
    arm_j, ok_j = _arm(j, t_j, x, p0, p1, length)
    both = np.flatnonzero(ok_i & ok_j)
    return [(x[k], arm_i[k], arm_j[k]) for k in both]


def _arm(s: np.ndarray, t: np.ndarray, x: np.ndarray, p0: np.ndarray, p1: np.ndarray,
         length: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The arm of segment ``s`` away from the crossing ``x`` (at ``t`` along it), and whether the
    crossing lies near one of its ends (within 15% of its length and 6 px)."""
    tol = 0.15 * length[s] + 6
    at_start = np.abs(t) <= tol
    at_end = ~at_start & (np.abs(t - length[s]) <= tol)
    arm = np.where(at_start[:, None], p1[s] - x, p0[s] - x)
    return arm, at_start | at_end


def line_quads(gray: np.ndarray, min_side: float) -> list[np.ndarray]:
    """Card outlines proposed by corners of long straight edges (working-image pixels), in the
    order of their segments as LSD gives them (grown from the strongest gradients first)."""
    lines = segments(gray, 0.8 * min_side)
    if len(lines) < 2 or len(lines) > MAX_SEGMENTS:
        return []
    quads: list[np.ndarray] = []
    for x, a, b in _corners(lines):
        la, lb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
        long_arm, short_arm = (a, b) if la >= lb else (b, a)
        ratio = max(la, lb) / max(1e-6, min(la, lb))
        if 1.2 <= ratio <= 2.2:
            quads.append(np.array([x, x + a, x + a + b, x + b], np.float32))
            continue
        unit = short_arm / max(1e-6, float(np.linalg.norm(short_arm)))
        for other in (np.linalg.norm(long_arm) / CARD_ASPECT, np.linalg.norm(long_arm) * CARD_ASPECT):
            if other >= 0.9 * min(la, lb):
                side = unit * other
                quads.append(np.array([x, x + long_arm, x + long_arm + side, x + side], np.float32))
    return [order_corners(q) for q in quads]
