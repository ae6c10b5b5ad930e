"""Quadrilateral helpers: fit four corners to a card outline, order them, flatten the card."""

from __future__ import annotations

import math

import cv2
import numpy as np

from referee.vision.faces import CANON_H, CANON_W


def side_lengths(poly: np.ndarray) -> np.ndarray:
    """Length of each side of a closed polygon (n × 2), side i running from corner i to i + 1, all
    in one step (a ``np.linalg.norm`` call per side cost more than the sums)."""
    d = poly[[*range(1, len(poly)), 0]] - poly
    return np.sqrt(d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1])


def order_corners(quad: np.ndarray) -> np.ndarray:
    """Corners clockwise (in image coordinates) starting so the first side is a short side.

    Only the order is computed, on the corners as Python numbers (a dozen numpy calls on four
    points cost more than the arithmetic); the corners themselves are returned unchanged."""
    pts = quad.reshape(4, 2).astype(np.float32)
    xs, ys = pts[:, 0].tolist(), pts[:, 1].tolist()
    cx, cy = sum(xs) / 4, sum(ys) / 4
    order = sorted(range(4), key=lambda i: math.atan2(ys[i] - cy, xs[i] - cx))
    sides = [math.hypot(xs[order[(k + 1) % 4]] - xs[order[k]], ys[order[(k + 1) % 4]] - ys[order[k]])
             for k in range(4)]
    if sides[0] + sides[2] > sides[1] + sides[3]:
        order = order[1:] + order[:1]
    # Start at the corner nearest the image top-left among the two short-side starts, for stable output.
    if xs[order[2]] + ys[order[2]] < xs[order[0]] + ys[order[0]]:
        order = order[2:] + order[:2]
    return pts[order]


def _intersect(p1: np.ndarray, p2: np.ndarray, p3: np.ndarray, p4: np.ndarray) -> np.ndarray | None:
    d1, d2 = p2 - p1, p4 - p3
    den = d1[0] * d2[1] - d1[1] * d2[0]
    if abs(den) < 1e-6:
        return None
    t = ((p3[0] - p1[0]) * d2[1] - (p3[1] - p1[1]) * d2[0]) / den
    return p1 + t * d1


def _drop_shortest(poly: np.ndarray) -> np.ndarray | None:
    """Remove the shortest side by extending its two neighbours until they meet (a cut-off corner)."""
    n = len(poly)
    lengths = side_lengths(poly).tolist()
    shortest = lengths.index(min(lengths))
    p = poly[[(k + shortest - 1) % n for k in range(n)]]  # the shortest side is now p1-p2
    meet = _intersect(p[0], p[1], p[3 % n], p[2])
    if meet is None or np.linalg.norm(meet - p[1]) > 0.6 * max(lengths):
        return None
    return np.array([p[0], meet, *p[3:]], np.float32)


def refine_quad(points: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """Corners from straight lines fitted to the outline near the middle of each side
    (``refine_quads`` of the one outline)."""
    return refine_quads([(points, quad)])[0]


def refine_quads(jobs: list[tuple[np.ndarray, np.ndarray]]) -> list[np.ndarray]:
    """Each quad's corners from straight lines fitted to its outline's points (n × 2, float32)
    near the middle of each side; all the quads' sides at once, each as on its own.

    Rounded card corners and fingers over a corner pull polygon vertices inwards; the sides stay
    straight, so their intersections give the true corners.  A side with fewer than five points
    near it keeps its own line; a quad whose corners would move too far (``side_corners``) or
    with a side under a pixel stays as it was."""
    if not jobs:
        return []
    quads = np.stack([np.asarray(quad, np.float32) for _, quad in jobs])
    lengths = np.stack([side_lengths(quad) for quad in quads])
    usable = np.flatnonzero((lengths >= 1).all(axis=1))
    out = list(quads)
    if not len(usable):
        return out
    q, wide = quads[usable], lengths[usable].astype(np.float64)
    u = (q[:, [1, 2, 3, 0]] - q) / wide[:, :, None]  # each side's direction
    start_along = q[..., 0] * u[..., 0] + q[..., 1] * u[..., 1]  # where it starts, along it ...
    start_across = q[..., 0] * u[..., 1] - q[..., 1] * u[..., 0]  # ... and across it
    picked, groups = [], []
    ux, uy, length = u[..., 0, None], u[..., 1, None], wide[..., None]
    for j, k in enumerate(usable):  # each quad's points near each of its sides, side by side
        points = jobs[k][0].reshape(-1, 2)
        x, y = points[:, 0].astype(np.float64), points[:, 1].astype(np.float64)
        along = ux[j] * x + uy[j] * y - start_along[j, :, None]
        across = np.abs(uy[j] * x - ux[j] * y - start_across[j, :, None])
        near = (along > 0.2 * length[j]) & (along < 0.8 * length[j]) & (across < 0.04 * length[j] + 2)
        side, at = np.nonzero(near)  # each side's points in one run
        enough = np.bincount(side, minlength=4)[side] >= MIN_SIDE_POINTS
        at = at[enough]
        picked.append(np.stack([x[at], y[at]], axis=1))
        groups.append(4 * j + side[enough])
    group = np.concatenate(groups)
    starts, ends = q.copy(), q[:, [1, 2, 3, 0]].copy()  # each side's line: the side itself ...
    if len(group):  # ... or the line through the outline along it
        first = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
        lines = robust_lines(np.concatenate(picked), first).astype(np.float32)
        quad_of, side_of = np.divmod(group[first], 4)
        starts[quad_of, side_of] = lines[:, 2:]
        ends[quad_of, side_of] = lines[:, 2:] + lines[:, :2]
    meet, ok = _sides_meet(starts, ends, q, (REFINE_REACH * lengths[usable, 0] + REFINE_PIXELS))
    for j, k in enumerate(usable):
        if ok[j]:
            out[k] = meet[j]
    return out


MIN_SIDE_POINTS = 5  # a side's line is fitted to its outline only through this many points
REFINE_REACH = 0.2   # ``refine_quad`` moves no corner farther than this share of the first side ...
REFINE_PIXELS = 4.0  # ... plus this many pixels


def largest_refined_area(quad: np.ndarray) -> float:
    """More than the area of any outline ``refine_quad`` can make of ``quad``.

    Each corner it returns lies within its reach of the one it replaces (``side_corners``), so
    all four lie within that reach of the quad's convex hull, and any outline through them
    encloses at most the hull's area, plus its perimeter times the reach, plus a disc of the
    reach.  The reach is taken a little longer than ``refine_quad``'s, for rounding."""
    reach = (REFINE_REACH * float(side_lengths(quad)[0]) + REFINE_PIXELS) * 1.001 + 0.01
    hull = cv2.convexHull(np.asarray(quad, np.float32).reshape(-1, 1, 2))
    return (float(cv2.contourArea(hull)) + reach * float(cv2.arcLength(hull, True))
            + math.pi * reach * reach)


LINE_ROUNDS = 10   # least-squares fits of each line: the first plain, each next weighted ...
LINE_FLOOR = 0.3   # ... by one over each point's distance from the last, taken as at least this


def robust_lines(points: np.ndarray, first: np.ndarray) -> np.ndarray:
    """A line (vx, vy, x0, y0: a unit direction and a point) through each group of ``points``
    (n × 2; a group runs from each index of ``first`` to the next), all groups at once: of the
    lines of ``LINE_ROUNDS`` reweighted least-squares fits (``LINE_FLOOR``), the one whose
    points lie least far from it in all, which a few points far off (a finger, a rounded corner)
    hardly move.

    OpenCV's Huber line (``cv2.fitLine``, ``DIST_HUBER``), used here before, likewise keeps the
    fit of least total distance among reweighted fits, restarted from 20 random samples of each
    group's points, and took a tenth of a frame's time.  On the 7,523 sides of the 60 latency
    frames, the lines here lie a median of 0.09 px from OpenCV's (0.31 px at the 90th
    percentile) where their ends are measured; OpenCV's own line, the same points handed over in
    another order, lies 0.06 px (0.31 px) from it (docs/camera.md, "Speed, before each change")."""
    x, y = points[:, 0], points[:, 1]
    group = np.repeat(np.arange(len(first)), np.diff(np.r_[first, len(x)]))
    moments = np.stack([np.ones_like(x), x, y, x * x, y * y, x * y])
    weight = np.ones_like(x)
    best = np.zeros((len(first), 4))
    least = np.full(len(first), np.inf)
    for _ in range(LINE_ROUNDS):
        m = np.add.reduceat(moments * weight, first, axis=1)
        m[1:] /= m[0]
        cx, cy = m[1], m[2]
        sxx, syy, sxy = m[3] - cx * cx, m[4] - cy * cy, m[5] - cx * cy
        angle = np.arctan2(2 * sxy, sxx - syy) / 2
        vx, vy = np.cos(angle), np.sin(angle)
        dist = np.abs(vy[group] * x - vx[group] * y - (vy * cx - vx * cy)[group])
        total = np.add.reduceat(dist, first)
        better = total < least
        least[better] = total[better]
        best[better] = np.stack([vx, vy, cx, cy], axis=1)[better]
        weight = 1.0 / np.maximum(dist, LINE_FLOOR)
    return best


def side_corners(starts: np.ndarray, ends: np.ndarray, corners: np.ndarray,
                  reach: float) -> np.ndarray | None:
    """Where the lines of a quad's sides meet (side i from ``starts[i]`` through ``ends[i]``;
    corner i between sides i-1 and i), all four at once: ``_intersect`` for each; None if two
    sides are parallel or a corner lies farther than ``reach`` from the one it replaces."""
    meet, ok = _sides_meet(starts[None], ends[None], corners[None], np.array([reach]))
    return meet[0] if ok[0] else None


def _sides_meet(starts: np.ndarray, ends: np.ndarray, corners: np.ndarray,
                reach: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``side_corners`` of several quads (k × 4 × 2 each, ``reach`` one per quad): the meeting
    points, and for each quad whether they stand (no two sides parallel, no corner too far)."""
    p1, p2, p3, p4 = starts[:, [3, 0, 1, 2]], ends[:, [3, 0, 1, 2]], starts, ends
    d1, d2 = p2 - p1, p4 - p3
    den = d1[..., 0] * d2[..., 1] - d1[..., 1] * d2[..., 0]
    parallel = (np.abs(den) < 1e-6).any(axis=1)
    den = np.where(np.abs(den) < 1e-6, 1, den)
    t = ((p3[..., 0] - p1[..., 0]) * d2[..., 1] - (p3[..., 1] - p1[..., 1]) * d2[..., 0]) / den
    meet = p1 + t[..., None] * d1
    off = meet - corners
    far = (np.sqrt(off[..., 0] * off[..., 0] + off[..., 1] * off[..., 1]) > reach[:, None]).any(axis=1)
    return meet, ~(parallel | far)


def rough_quad(contour: np.ndarray) -> np.ndarray | None:
    """Four corners of a card outline's convex hull, a cut-off corner's short sides dropped (a
    corner rounded off or hidden by a finger), before the sides are refined (``fit_quads``)."""
    hull = cv2.convexHull(contour).reshape(-1, 2).astype(np.float32)
    peri = cv2.arcLength(hull, True)
    for eps in (0.02, 0.03, 0.045):
        poly = cv2.approxPolyDP(hull, eps * peri, True).reshape(-1, 2).astype(np.float32)
        while 4 < len(poly) <= 8:
            nxt = _drop_shortest(poly)
            if nxt is None:
                break
            poly = nxt
        if len(poly) == 4 and cv2.isContourConvex(poly.reshape(-1, 1, 2)):
            return order_corners(poly)
    return None


def fit_quads(outlines: list[tuple[np.ndarray, np.ndarray]]) -> list[np.ndarray | None]:
    """Four corners of each card outline (``rough_quad`` of its contour, the first of each pair),
    their sides refined onto the second's points (``refine_quads``, all outlines at once)."""
    rough = [rough_quad(contour) for contour, _ in outlines]
    jobs = [(points.reshape(-1, 2).astype(np.float32), quad)
            for (_, points), quad in zip(outlines, rough) if quad is not None]
    refined = iter(refine_quads(jobs))
    return [None if quad is None else order_corners(next(refined)) for quad in rough]


SAME_CORNER = 0.01  # pixels: two quads' corners this close are one corner (``shared_area``)


def shared_area(a: np.ndarray, b: np.ndarray) -> float:
    """Area of the intersection of two convex quads (4 × 2).

    ``cv2.intersectConvexConvex`` measures it, except where the two share a corner
    (``SAME_CORNER``), as the outlines proposed from one corner of straight edges do
    (``lines.line_quads``): there it can return a fraction of the area (two outlines of one
    card, each covering 94% of the other, measured 28%; 12-15 of 3,000 random pairs of boxes with
    a corner in common, none of 3,000 with their corners 0.001 px apart or more), and
    ``overlap.keep_best`` would keep both as two cards.  Those are clipped here instead
    (``_clipped_area``), which takes about five times as long."""
    shape, clip = a.tolist(), b.tolist()  # as Python numbers: a numpy check cost more than OpenCV
    if any(abs(x0 - x1) < SAME_CORNER and abs(y0 - y1) < SAME_CORNER
           for x0, y0 in shape for x1, y1 in clip):
        return _clipped_area(shape, clip)
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return float(inter)


def _clipped_area(shape: list[list[float]], clip: list[list[float]]) -> float:
    """Area of the intersection of two convex polygons, by clipping ``shape`` with each side of
    ``clip`` in turn (Sutherland and Hodgman)."""
    if _twice_area(clip) < 0:
        clip = clip[::-1]  # counter-clockwise, so that "inside" is on the left of each side
    for (ax, ay), (bx, by) in zip(clip, clip[1:] + clip[:1]):
        if not shape:
            break
        ex, ey = bx - ax, by - ay
        previous, shape = shape, []
        px, py = previous[-1]
        p_in = ex * (py - ay) - ey * (px - ax) >= 0
        for qx, qy in previous:
            q_in = ex * (qy - ay) - ey * (qx - ax) >= 0
            if q_in != p_in:  # the side crosses the clipping line: add where
                dx, dy = qx - px, qy - py
                den = ex * dy - ey * dx
                t = (ey * (px - ax) - ex * (py - ay)) / den if den else 0.0
                shape.append([px + t * dx, py + t * dy])
            if q_in:
                shape.append([qx, qy])
            px, py, p_in = qx, qy, q_in
    return abs(_twice_area(shape)) / 2 if len(shape) >= 3 else 0.0


def _twice_area(poly: list[list[float]]) -> float:
    """Twice the signed area of a polygon (shoelace); positive when counter-clockwise."""
    return sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(poly, poly[1:] + poly[:1]))


def flatten(frame: np.ndarray, corners: np.ndarray,
            size: tuple[int, int] = (CANON_W, CANON_H)) -> np.ndarray:
    """The card inside the corners, warped to a portrait image (the canonical size by default)."""
    w, h = size
    dst = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
    m = cv2.getPerspectiveTransform(corners.astype(np.float32), dst)
    return cv2.warpPerspective(frame, m, (w, h), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


CARD_ASPECT = 1.55


def _square_corners(poly: np.ndarray, sign: float) -> list[bool]:
    """Which vertices of a polygon turn the polygon's way (``sign``) by 50-130 degrees."""
    before, after = poly[np.arange(-1, len(poly) - 1)], poly[np.arange(1, len(poly) + 1) % len(poly)]
    into, a, b = poly - before, before - poly, after - poly
    turn = into[:, 0] * b[:, 1] - into[:, 1] * b[:, 0]
    lengths = np.sqrt((a * a).sum(axis=1)) * np.sqrt((b * b).sum(axis=1)) + 1e-6
    angle = np.degrees(np.arccos(np.clip((a * b).sum(axis=1) / lengths, -1.0, 1.0)))
    return ((turn * sign > 0) & (angle >= 50) & (angle <= 130)).tolist()


def corner_quads(contour: np.ndarray, limit: int = 8, min_area: float = 0.0) -> list[np.ndarray]:
    """Card outlines guessed from one whole visible side and its two corners (``corner_guesses``),
    their sides refined onto the contour (``refine_quads``)."""
    guesses = corner_guesses(contour, limit, min_area)
    if not guesses:
        return []
    points = contour.reshape(-1, 2).astype(np.float32)
    return [order_corners(q) for q in refine_quads([(points, quad) for quad in guesses])]


def corner_guesses(contour: np.ndarray, limit: int = 8, min_area: float = 0.0) -> list[np.ndarray]:
    """Card outlines guessed from one whole visible side and its two corners, before their sides
    are refined (``corner_quads``).

    Where cards overlap, their outlines merge into one region; each card still shows at least one
    full side between two square-ish corners.  The card is completed along the neighbouring side
    with the deck's aspect ratio, both ways (the side may be a short or a long one).  Of the first
    ``limit`` guessed, those too small to enclose ``min_area`` however their sides are refined
    (``largest_refined_area``) are left out unrefined: the finder drops outlines smaller than a
    card, and a third of those guessed were (a side between two bends of a drawing's outline)."""
    pts = contour.reshape(-1, 2).astype(np.float32)
    peri = cv2.arcLength(pts, True)
    poly = cv2.approxPolyDP(pts, 0.015 * peri, True).reshape(-1, 2).astype(np.float32)
    n = len(poly)
    if not 4 < n <= 16:
        return []
    sign = 1.0 if cv2.contourArea(poly, oriented=True) > 0 else -1.0
    square = _square_corners(poly, sign)
    found: list[np.ndarray] = []
    guessed = 0
    for i in range(n):
        j = (i + 1) % n
        if not (square[i] and square[j]):
            continue
        b, c = poly[i], poly[j]
        side = float(np.linalg.norm(c - b))
        back = poly[i - 1] - b
        u = back / (np.linalg.norm(back) + 1e-6)
        for other in (side * CARD_ASPECT, side / CARD_ASPECT):
            if guessed == limit:
                return found
            guessed += 1
            quad = np.array([b, c, c + u * other, b + u * other], np.float32)
            if largest_refined_area(quad) >= min_area:
                found.append(quad)
    return found
