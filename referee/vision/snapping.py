"""A card's outline snapped onto its edges in the full frame: each side onto the colour step."""

from __future__ import annotations

import cv2
import numpy as np

from referee.vision.geometry import order_corners, side_corners, side_lengths

# Snapping a card's sides to the colour step at its edge (``snap_to_edges``).
SNAP_REACH = 0.07     # each side moves at most this share of the card's short side ...
SNAP_MIN_REACH = 3.0  # ... or this many pixels
SNAP_BOX = 3          # pixels averaged on each side of a candidate edge: a step, not a thin line
SNAP_MIN_STEP = 18.0  # Lab distance between the two boxes for a point of the edge
SNAP_SAMPLES = 24     # points along the middle of each side (rounded corners left out)
SNAP_SPAN = (0.15, 0.85)
_SNAP_ALONG = np.linspace(*SNAP_SPAN, SNAP_SAMPLES, dtype=np.float32)


def _snap_sides(lab: np.ndarray, sides: list[tuple[np.ndarray, np.ndarray, np.ndarray]],
                reach: float) -> list[tuple[np.ndarray, np.ndarray] | None]:
    """Each side a-b (with its ``outward`` normal) moved onto the strongest colour step within
    ``reach`` of it, as a point and a direction; None for a side where too few points along it
    show a step (a finger, a card over it).  The four sides' colour profiles are taken and their
    steps measured in one step, as four sides' rows: each row as it was on its own."""
    step = 0.5
    box = int(SNAP_BOX / step)
    offsets = np.arange(-reach - SNAP_BOX, reach + SNAP_BOX + step, step, dtype=np.float32)
    along = _SNAP_ALONG
    points = np.concatenate([(a + along[:, None] * (b - a))[:, None, :]
                             + offsets[None, :, None] * outward for a, b, outward in sides])
    profile = cv2.remap(lab, points[..., 0], points[..., 1], cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_REPLICATE)
    sums = np.zeros((len(points), len(offsets) + 1, 3), profile.dtype)  # a zero before each row
    np.cumsum(profile, axis=1, out=sums[:, 1:])
    at = np.arange(box, len(offsets) - box)
    outside = (sums[:, at + box + 1] - sums[:, at + 1]) / box
    inside = (sums[:, at] - sums[:, at - box]) / box
    change = outside - inside
    strength = np.sqrt(change[..., 0] ** 2 + change[..., 1] ** 2 + change[..., 2] ** 2)
    strength[:, np.abs(offsets[at]) > reach] = 0.0
    best = strength.argmax(axis=1)
    strong = strength[np.arange(len(points)), best] >= SNAP_MIN_STEP
    shifts = offsets[at][best]
    found = []
    for k, (a, b, outward) in enumerate(sides):
        rows = slice(k * len(along), (k + 1) * len(along))
        found.append(_side_line(along[strong[rows]], shifts[rows][strong[rows]], a, b, outward))
    return found


def _side_line(t: np.ndarray, s: np.ndarray, a: np.ndarray, b: np.ndarray,
               outward: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The side a-b moved onto the line through its strong steps (``s`` out of it at ``t`` along
    it), fingers and other cards' edges left out; None with too few of them (``_snap_sides``)."""
    keep = np.ones(len(t), bool)
    for _ in range(3):  # a line through the points, fingers and other cards' edges left out
        if keep.sum() < SNAP_SAMPLES // 3:
            return None
        slope, shift = _line(t[keep], s[keep])
        miss = np.abs(s - (shift + slope * t))
        keep = miss <= max(1.0, 2.5 * _median(miss[keep]))
    if keep.sum() < SNAP_SAMPLES // 3:
        return None
    start, end = a + shift * outward, b + (shift + slope) * outward
    return start, end - start


def _line(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Slope and intercept of the least-squares line through the points (the x not all equal)."""
    x, y = x.astype(np.float64), y.astype(np.float64)
    mx, my = x.mean(), y.mean()
    dx = x - mx
    slope = float(dx @ (y - my)) / float(dx @ dx)
    return slope, float(my) - slope * float(mx)


def _median(v: np.ndarray) -> float:
    """``np.median`` of a non-empty vector, the same value without its general machinery."""
    n = len(v)
    if n % 2:
        return float(np.partition(v, n // 2)[n // 2])
    part = np.partition(v, (n // 2 - 1, n // 2))
    return float((part[n // 2 - 1] + part[n // 2]) / 2)


def snap_to_edges(frame: np.ndarray, quad: np.ndarray, passes: int = 2) -> np.ndarray:
    """The quad with each side moved onto the card's edge in the full frame.

    The outlines are found on a shrunken frame and from masks that stop short of the edge or run
    past it (a shadow): on the benchmark's scenes their corners were 7-9% of a card's width off
    (median), which moves the frame line out of the band where the pinta is read.  Each side is
    moved onto the strongest colour step near it (a step, not the thin printed frame line) and the
    corners are where the sides meet; a side with too little edge in sight stays where it was."""
    quad = order_corners(quad)
    for _ in range(passes):
        short = float(side_lengths(quad).min())
        reach = max(SNAP_MIN_REACH, SNAP_REACH * short)
        margin = int(reach + SNAP_BOX + 3)
        x0, y0 = np.maximum(np.floor(quad.min(axis=0)).astype(int) - margin, 0)
        x1, y1 = np.minimum(np.ceil(quad.max(axis=0)).astype(int) + margin,
                            (frame.shape[1], frame.shape[0]))
        if x1 - x0 < 8 or y1 - y0 < 8:  # an outline (partly) outside the frame stays as it is
            return quad
        roi = cv2.GaussianBlur(frame[y0:y1, x0:x1], (3, 3), 0)
        lab = cv2.cvtColor(roi, cv2.COLOR_BGR2LAB).astype(np.float32)
        local = quad - np.array([x0, y0], np.float32)
        centre = local.mean(axis=0)
        outlined = []
        for i in range(4):
            a, b = local[i], local[(i + 1) % 4]
            u = (b - a) / max(1e-6, float(np.linalg.norm(b - a)))
            normal = np.array([u[1], -u[0]], np.float32)
            if ((a + b) / 2 - centre) @ normal < 0:
                normal = -normal
            outlined.append((a, b, normal))
        sides = [snapped or (a, b - a)
                 for snapped, (a, b, _) in zip(_snap_sides(lab, outlined, reach), outlined)]
        starts = np.array([p for p, _ in sides], np.float32)
        corners = side_corners(starts, starts + np.array([d for _, d in sides], np.float32), local,
                                0.2 * short + 4)
        if corners is None:
            return quad
        quad = order_corners(corners + np.array([x0, y0], np.float32))
    return quad
