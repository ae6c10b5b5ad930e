"""A card's proportions under perspective: an outline's sides once its perspective is undone."""

from __future__ import annotations

import math

import numpy as np

from referee.vision.geometry import CARD_ASPECT, order_corners, side_lengths


def _cross(a: tuple[float, ...], b: tuple[float, ...]) -> tuple[float, float, float]:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _dot(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def rectified_aspect(quad: np.ndarray) -> float:
    """Long side / short side of the rectangle a quad shows once its perspective is undone.

    Zhang and He's whiteboard rectification (2007), with the principal point at the crossing of
    the diagonals (the image of the card's centre, for a camera looking at the card).  When the
    sides do not converge the focal length is unknown and the quad's own side ratio is returned.
    Worked out on Python numbers: ``card_proportioned`` asks it some forty times an outline, and
    numpy's calls on three-element vectors took ten times as long as the arithmetic."""
    q = order_corners(np.asarray(quad, np.float64)).astype(np.float64).tolist()
    try:
        f2, n2, n3 = _focal(q)
    except ZeroDivisionError:  # a degenerate quad: two corners on one line through the centre
        f2 = 0.0
    if not math.isfinite(f2) or f2 <= 0:
        sides = side_lengths(np.array(q)).tolist()
        return (sides[1] + sides[3]) / (sides[0] + sides[2])
    short = n2[0] ** 2 + n2[1] ** 2 + f2 * n2[2] ** 2
    long = n3[0] ** 2 + n3[1] ** 2 + f2 * n3[2] ** 2
    return math.sqrt(long / short)


def _focal(q: list[list[float]]) -> tuple[float, list[float], list[float]]:
    """The squared focal length and the two vanishing directions (``rectified_aspect``)."""
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = q
    d1, d2 = (x2 - x0, y2 - y0), (x3 - x1, y3 - y1)
    den = d1[0] * d2[1] - d1[1] * d2[0]
    num = (x1 - x0) * d2[1] - (y1 - y0) * d2[0]
    cx, cy = x0 + d1[0] * num / den, y0 + d1[1] * num / den
    m1, m2, m4, m3 = ((x - cx, y - cy, 1.0) for x, y in q)
    c14 = _cross(m1, m4)
    k2 = _dot(c14, m3) / _dot(_cross(m2, m4), m3)
    k3 = _dot(c14, m2) / _dot(_cross(m3, m4), m2)
    n2 = [k2 * a - b for a, b in zip(m2, m1)]
    n3 = [k3 * a - b for a, b in zip(m3, m1)]
    depth = n2[2] * n3[2]
    f2 = -(n2[0] * n3[0] + n2[1] * n3[1]) / depth if abs(depth) > 1e-12 else 0.0
    return f2, n2, n3


PROPORTION_STEPS = np.linspace(0.55, 1.8, 26)  # where a side is tried, in its neighbours' lengths


def _side_moved(quad: np.ndarray, k: int, scale: float) -> np.ndarray:
    """``quad`` with side ``k`` (corners k and k + 1) moved along its two neighbouring sides,
    these scaled by ``scale`` from their far ends."""
    new = quad.copy()
    for near, far in ((k, (k + 3) % 4), ((k + 1) % 4, (k + 2) % 4)):
        new[near] = quad[far] + scale * (quad[near] - quad[far])
    return new


def _misfit(quad: np.ndarray) -> float:
    return math.log(rectified_aspect(quad) / CARD_ASPECT)


def has_card_proportions(quad: np.ndarray, tolerance: float) -> bool:
    """The outline, its perspective undone (``rectified_aspect``), has a card's sides within
    ``tolerance`` (a share of ``CARD_ASPECT``, either way)."""
    return abs(_misfit(quad)) <= math.log(1 + tolerance)


def card_proportioned(quad: np.ndarray, tolerance: float = 0.06) -> list[np.ndarray]:
    """The outline with one side moved along its two neighbouring sides until it has a card's
    proportions once its perspective is undone (``rectified_aspect`` = ``CARD_ASPECT``): each
    side in turn, at each such place within ``PROPORTION_STEPS``; none when the outline has them
    already (within ``tolerance``).

    Where a finger or another card crosses a card its outline may stop there, and on a table as
    pale as the card run on past its end: three sides on the card's edges and one across it."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    if has_card_proportions(q, tolerance):
        return []
    found = []
    for k in range(4):
        misfit = [_misfit(_side_moved(q, k, float(s))) > 0 for s in PROPORTION_STEPS]
        for i in np.flatnonzero(np.diff(misfit)):
            lo, hi = float(PROPORTION_STEPS[i]), float(PROPORTION_STEPS[i + 1])
            for _ in range(20):  # bisection, to well under a pixel
                mid = (lo + hi) / 2
                if (_misfit(_side_moved(q, k, mid)) > 0) == misfit[i]:
                    lo = mid
                else:
                    hi = mid
            found.append(_side_moved(q, k, (lo + hi) / 2).astype(np.float32))
    return found
