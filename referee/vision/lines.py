"""Card outlines from straight edges: two long sides meeting at a square-ish corner.

Region-based finding fails where a card's paper runs into a table of the same colour (a light
check of a tablecloth) or into other cards.  The sides of a card stay long straight edges, so
pairs of long segments that meet at a corner propose the card; the bank then picks the right one.
"""

from __future__ import annotations

import cv2
import numpy as np

from referee.vision.geometry import CARD_ASPECT, order_corners, side_corners

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


def _length(v: np.ndarray) -> float:
    """``np.linalg.norm`` of a vector, the same value (the square root of its dot product with
    itself, as numpy takes it) without its general machinery: a frame asks it hundreds of times."""
    return float(np.sqrt(v.dot(v)))


def line_quads(gray: np.ndarray, min_side: float) -> list[np.ndarray]:
    """Card outlines proposed by corners of long straight edges (working-image pixels), in the
    order of their segments as LSD gives them (grown from the strongest gradients first)."""
    lines = segments(gray, 0.8 * min_side)
    if len(lines) < 2 or len(lines) > MAX_SEGMENTS:
        return []
    quads: list[np.ndarray] = []
    for x, a, b in _corners(lines):
        la, lb = _length(a), _length(b)
        long_arm, short_arm = (a, b) if la >= lb else (b, a)
        ratio = max(la, lb) / max(1e-6, min(la, lb))
        if 1.2 <= ratio <= 2.2:
            quads.append(np.array([x, x + a, x + a + b, x + b], np.float32))
            continue
        unit = short_arm / max(1e-6, min(la, lb))
        long_length = np.float32(max(la, lb))  # float32, as the arms are: the same corners
        for other in (long_length / CARD_ASPECT, long_length * CARD_ASPECT):
            if other >= 0.9 * min(la, lb):
                side = unit * other
                quads.append(np.array([x, x + long_arm, x + long_arm + side, x + side], np.float32))
    return [order_corners(q) for q in quads]


# Each side of an outline moved onto a straight edge lying along it (``onto_outer_edges``):
ALONG_COS = 0.97      # the edge within about 14° of the side's direction ...
ALONG_REACH = 0.2     # ... within this share of the neighbouring side of it, in or out ...
ALONG_OVERLAP = 0.25  # ... and running along at least this share of it
MIN_EDGE = 20.0       # pixels: the shortest segment taken for an edge (``frame_edges``)
MIN_MOVE = 2.0        # pixels: a side moved less than this stays where it was
MAX_MOVE = 0.4        # a corner may move this share of the outline's diagonal at most


def frame_edges(frame: np.ndarray) -> np.ndarray:
    """The straight segments of a BGR frame at least ``MIN_EDGE`` long (``segments``)."""
    return segments(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), MIN_EDGE)


def onto_outer_edges(quad: np.ndarray, edges: np.ndarray) -> np.ndarray | None:
    """The outline with each side moved onto the outermost straight edge lying along it
    (``ALONG_COS``, ``ALONG_REACH``, ``ALONG_OVERLAP``) and its corners where the new sides meet;
    a side with no edge along it stays.  None when no side moves (``MIN_MOVE``), or when the new
    outline is not convex or a corner moves more than ``MAX_MOVE`` of the diagonal.

    An outline can follow the frame line printed inside a pale card on a pale table, or stop where
    a finger or another card crosses the card; its sides then lie inside the card's edges, farther
    than snapping reaches (``snapping.snap_to_edges``), and the card's straight edges still run
    along them outside."""
    quad = np.asarray(quad, np.float32)
    if len(edges) == 0:
        return None
    p0, p1 = edges[:, :2], edges[:, 2:]
    length = np.linalg.norm(p1 - p0, axis=1) + 1e-6
    u = (p1 - p0) / length[:, None]
    mid = (p0 + p1) / 2
    centre = quad.mean(axis=0)
    sides, moved = [], False
    for k in range(4):
        a, b = quad[k], quad[(k + 1) % 4]
        span = float(np.linalg.norm(b - a))
        if span < 1:
            return None
        along = (b - a) / span
        normal = np.array([-along[1], along[0]], np.float32)
        if ((a + b) / 2 - centre) @ normal < 0:
            normal = -normal  # pointing out of the outline
        neighbour = float(np.linalg.norm(quad[(k + 2) % 4] - b))
        out = (mid - a) @ normal
        s0, s1 = (p0 - a) @ along, (p1 - a) @ along
        overlap = (np.minimum(np.maximum(s0, s1), span) - np.maximum(np.minimum(s0, s1), 0)) / span
        fits = np.flatnonzero((np.abs(u @ along) >= ALONG_COS)
                              & (np.abs(out) <= ALONG_REACH * neighbour) & (overlap >= ALONG_OVERLAP))
        if len(fits):
            outer = fits[np.argmax(out[fits])]
            sides.append((mid[outer], u[outer]))
            moved = moved or abs(float(out[outer])) > MIN_MOVE
        else:
            sides.append((a, along))
    if not moved:
        return None
    starts = np.array([start for start, _ in sides], np.float32)
    ends = starts + np.array([direction for _, direction in sides], np.float32)
    new = side_corners(starts, ends, quad, np.inf)
    if new is None:
        return None
    if float(np.abs(new - quad).max()) > MAX_MOVE * float(np.linalg.norm(quad[2] - quad[0])):
        return None
    return new if cv2.isContourConvex(new.reshape(-1, 1, 2)) else None

