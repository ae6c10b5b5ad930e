"""Find cards in a frame: paper regions, edge-enclosed regions and long straight edges, fitted
with four corners; every plausible outline is a candidate for the bank to judge."""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from referee.vision.geometry import CARD_ASPECT
from referee.vision.lines import line_quads
from referee.vision.overlap import apart, bounds, overlaps, suppress
from referee.vision.regions import region_quads, shape_ok

LINE_WEIGHT = 0.6
LINE_FIRST = 40   # outlines from straight edges taken as they come; the rest only where no
                  # other outline lies (``_where_none``) ...
CARD_SIZED = 0.5  # ... of at least this share of their area ...
ELSEWHERE = 0.3   # ... covering this much of them or lying this much inside them, ...
PAPER_MARGIN = 0.75  # ... and with a margin of paper: at least this share (``_margin_share``)


@dataclass(frozen=True)
class DetectorSettings:
    """Detection limits, relative to the working image (frames are shrunk to ``work_width``)."""

    work_width: int = 640
    min_area: float = 0.006   # of the frame
    max_area: float = 0.45
    min_aspect: float = 1.08  # long side / short side, after perspective
    max_aspect: float = 2.5
    min_fill: float = 0.5     # region area / quad area (fingers and overlaps take the rest)
    min_support: float = 0.45  # share of the outline along image edges ...
    min_side_support: float = 0.35  # ... and of its worst side
    square_cell: float = 1.05  # a region whose smallest rectangle is this square ...
    square_fill: float = 0.9   # ... and this full is a check of the cloth, not a card


def _paper(small: np.ndarray) -> np.ndarray:
    """Pixels that look like card paper: bright for their surroundings and not very saturated."""
    _, s, v = cv2.split(cv2.cvtColor(small, cv2.COLOR_BGR2HSV))
    local = cv2.dilate(v, np.ones((31, 31), np.uint8))
    # v > 0.6 local and v > 0.4 p, in whole numbers: the same pixels, without floating-point copies
    bright = v > cv2.LUT(local, THREE_FIFTHS)
    mask = (s < 140) & bright & (v > math.floor(0.4 * _percentile(v, 99)))
    return mask.view(np.uint8) * 255


# For each 8-bit level L, the largest whole v with 5v <= 3L: v > THREE_FIFTHS[L] is 5v > 3L.
THREE_FIFTHS = (np.arange(256) * 3 // 5).astype(np.uint8)


def _percentile(v: np.ndarray, q: float) -> float:
    """``np.percentile(v, q)`` of an 8-bit image, the same value (linear between the two nearest
    ranks), from its histogram instead of a partial sort of every pixel."""
    ranks = np.cumsum(cv2.calcHist([v], [0], None, [256], [0, 256]).ravel())
    pos = q / 100 * (v.size - 1)
    k = int(pos)
    lo, hi = (float(x) for x in np.searchsorted(ranks, [k + 1, min(k + 2, v.size)]))
    t = pos - k
    return hi - (hi - lo) * (1 - t) if t >= 0.5 else lo + (hi - lo) * t


def _filled(paper: np.ndarray) -> np.ndarray:
    """Paper regions with their holes (the drawings) filled."""
    mask = cv2.morphologyEx(paper, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(mask)
    cv2.drawContours(filled, contours, -1, 255, cv2.FILLED)
    return filled


def _edges(small: np.ndarray) -> np.ndarray:
    """Edges in lightness or colour (a finger on cream paper differs mostly in hue)."""
    lab = cv2.cvtColor(cv2.GaussianBlur(small, (5, 5), 0), cv2.COLOR_BGR2LAB)
    edges = np.asarray(cv2.Canny(lab[:, :, 0], 25, 70))
    for ch in (1, 2):
        edges = np.bitwise_or(edges, cv2.Canny(lab[:, :, ch], 12, 30))
    return np.asarray(cv2.dilate(edges, np.ones((3, 3), np.uint8)))


_ALONG = np.linspace(0.08, 0.92, 24)[:, None]  # where each side is sampled


def _edge_support(quads: list[np.ndarray], near_edges: np.ndarray) -> np.ndarray:
    """Share of each quad's outline that runs along an image edge: overall, and on its worst side
    (a cut across the middle of a card, which makes half a card look like a whole one, is weak);
    all quads in one step, as an array of (overall, worst) rows."""
    if not quads:
        return np.zeros((0, 2))
    on = _on_sides(np.stack(quads), near_edges, _ALONG).mean(axis=2)
    return np.stack([on.mean(axis=1), on.min(axis=1)], axis=1)


def _on_sides(corners: np.ndarray, mask: np.ndarray, along: np.ndarray) -> np.ndarray:
    """Whether ``mask`` is set at points along each side of each quad (``corners``, n×4×2), at
    the fractions ``along`` of the side: an n×4×len(along) array."""
    h, w = mask.shape
    pts = corners[:, :, None] + along * (corners[:, [1, 2, 3, 0]] - corners)[:, :, None]
    x = np.clip(pts[..., 0].round().astype(int), 0, w - 1)
    y = np.clip(pts[..., 1].round().astype(int), 0, h - 1)
    return mask[y, x] > 0


_ROLLS = np.array([[0, 1, 2, 3], [3, 0, 1, 2], [2, 3, 0, 1], [1, 2, 3, 0]])  # np.roll by 0-3


def _distinct(quads: list[tuple[np.ndarray, float]]) -> list[tuple[np.ndarray, float]]:
    """Drop candidates whose corners all lie within 3% of a better one's (in any corner order)."""
    kept: list[tuple[np.ndarray, float]] = []
    stack = np.empty((len(quads), 4, 2), np.float32)  # the kept quads' corners
    for quad, score in sorted(quads, key=lambda qs: -qs[1]):
        rolls = quad[_ROLLS]  # every corner order
        tol = 0.03 * float(np.linalg.norm(quad[1] - quad[0])) + 1
        n = len(kept)
        if n and (np.abs(stack[:n, None] - rolls[None]).max(axis=(2, 3)) < tol).any():
            continue
        kept.append((quad, score))
        stack[n] = quad
    return kept


SMALLEST_FRAME = 16  # pixels a side: a thinner frame holds no card's outline (nor OpenCV's resize)


def candidates(frame: np.ndarray, settings: DetectorSettings = DetectorSettings()
               ) -> list[tuple[np.ndarray, float]]:
    """Every plausible card outline (corners in frame pixels) with a shape score, best first."""
    if frame is None or frame.ndim != 3 or frame.shape[2] != 3:
        raise ValueError("card detection needs a BGR colour frame")
    if min(frame.shape[:2]) < SMALLEST_FRAME:
        return []
    scale = min(1.0, settings.work_width / frame.shape[1])
    small = frame if scale == 1.0 else cv2.resize(frame, None, fx=scale, fy=scale,
                                                   interpolation=cv2.INTER_AREA)
    edges = _edges(small)
    near = cv2.dilate(edges, np.ones((5, 5), np.uint8))
    paper = _paper(small)
    regions = (_filled(paper), cv2.bitwise_not(edges), _filled(paper & cv2.bitwise_not(edges)))
    quads = [found for mask in regions for found in region_quads(mask, settings)]
    min_side = np.sqrt(settings.min_area * small.shape[0] * small.shape[1] / CARD_ASPECT)
    found = line_quads(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), min_side)
    quads = _supported(quads + _line_scored(found[:LINE_FIRST], settings, small.shape), near,
                       settings)
    later = found[LINE_FIRST:]
    rest = [q for q, share in zip(later, _margin_share(later, paper)) if share >= PAPER_MARGIN]
    quads += _where_none(_supported(_line_scored(rest, settings, small.shape), near, settings),
                         quads)
    return _distinct([(q / scale, s) for q, s in quads])


_ALONG_MARGIN = np.linspace(0.1, 0.9, 16)[:, None]
MARGIN_INSET = 0.05  # the margin sampled this share of the card's width and height inside its sides


def _margin_share(quads: list[np.ndarray], paper: np.ndarray) -> np.ndarray:
    """Share of points along each quad's sides, a little inside them (``MARGIN_INSET``), that
    fall on paper (``_paper``): a card's white margin runs all round it.  All quads in one step."""
    if not quads:
        return np.zeros(0)
    corners = np.stack(quads)
    inset = corners + MARGIN_INSET * 2 * (corners.mean(axis=1, keepdims=True) - corners)
    return _on_sides(inset, paper, _ALONG_MARGIN).mean(axis=(1, 2))


def _line_scored(quads: list[np.ndarray], settings: DetectorSettings,
                 shape: tuple[int, ...]) -> list[tuple[np.ndarray, float]]:
    """The card-shaped outlines from straight edges, with their shape scores."""
    return [(q, LINE_WEIGHT * np.sqrt(cv2.contourArea(q))) for q in quads
            if shape_ok(q, settings, shape)]


def _supported(quads: list[tuple[np.ndarray, float]], near: np.ndarray,
               settings: DetectorSettings) -> list[tuple[np.ndarray, float]]:
    """The quads that run along image edges (``_edge_support``), their scores weighted by it."""
    support = _edge_support([q for q, _ in quads], near)
    return [(q, s * e * e) for (q, s), (e, worst) in zip(quads, support.tolist())
            if e >= settings.min_support and worst >= settings.min_side_support]


def _where_none(more: list[tuple[np.ndarray, float]], quads: list[tuple[np.ndarray, float]]
                ) -> list[tuple[np.ndarray, float]]:
    """Of the outlines ``more``, those no outline in ``quads`` of at least ``CARD_SIZED`` of their
    area lies over (``ELSEWHERE``); smaller ones, a pip box or part of a drawing, do not count.

    A frame of many straight edges (a checked cloth, fingers, other cards) gives hundreds of
    corners, and only the first ``LINE_FIRST`` outlines they make are taken as they come.  A card
    whose paper runs into a white table, and which a finger cuts off from it, has no region of
    its own and its sides may be among the later outlines; where no other outline lies they may
    be its only ones.  Elsewhere they add little but risk: an outline made of one card's long
    side and a short side guessed from it can span that card and the table beside it, and as
    the better shape it was kept instead of the card's own (docs/camera.md, "A card outlined
    only by its straight edges")."""
    boxes = bounds([q for q, _ in quads])
    areas = [cv2.contourArea(q) for q, _ in quads]
    kept = []
    for (quad, score), box in zip(more, bounds([q for q, _ in more])):
        area = cv2.contourArea(quad)
        if all(apart(box, other_box) or other_area < CARD_SIZED * area
               or not overlaps(quad, other, ELSEWHERE)
               for other_box, other_area, (other, _) in zip(boxes, areas, quads)):
            kept.append((quad, score))
    return kept


EDGE_RING = 0.03    # of the photo's width: the strip along its edges ``framed`` looks at ...
PAPER_EDGES = 0.5   # ... and the share of it on paper that makes it a card cropped tight


def framed(photo: np.ndarray) -> tuple[np.ndarray, tuple[int, int]]:
    """A photo cut to a card's edges, put in the middle of a dark frame twice its width and
    height (a card the size of the whole photo is too big for a card in a frame), so that the
    card has an outline to be found by; and where the photo's corner went (the card's corners
    move by it).  Any other photo as it is, with (0, 0).  Cropped tight, the card's pips and
    drawings were its only outlines, and a 7 de oros was read as the 2 de oros its two lowest
    coins look like."""
    h, w = photo.shape[:2]
    ring = max(1, int(EDGE_RING * w))
    inside = np.zeros((h, w), bool)
    inside[ring:h - ring, ring:w - ring] = True
    if (_paper(photo) > 0)[~inside].mean() < PAPER_EDGES:
        return photo, (0, 0)
    dx, dy = w // 2, h // 2
    return cv2.copyMakeBorder(photo, dy, dy, dx, dx, cv2.BORDER_CONSTANT, value=(0, 0, 0)), (dx, dy)


def find_cards(frame: np.ndarray, settings: DetectorSettings = DetectorSettings()) -> list[np.ndarray]:
    """Corners (4×2, frame pixels, clockwise, short side first) of every card-like quad in the frame."""
    return suppress(candidates(frame, settings))
