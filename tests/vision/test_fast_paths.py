"""The per-frame arithmetic written for speed gives the values of its plain form: the lighting
division done row by row, all sides' lengths at once, the straight-edge corners found
without a loop over segment pairs, the points near each side of an outline picked for all four
sides at once, the edge support of all outlines in one step, the corner orders of an outline
by index, the corners of a quad ordered on Python numbers, the square corners of a polygon found
at once, the lines of the four sides met at once, and the median without numpy's general one; the
snapped side's least-squares line comes within rounding of ``np.polyfit``'s, a frame's outlines
compared with the bank at once come within rounding of each compared on its own, and the paper
mask's percentile and comparisons, taken from a histogram and in whole numbers, pick the pixels
numpy's do, outlines whose boxes lie apart are never asked how much they overlap, a polygon's
shortest side is dropped after the same turn ``np.roll`` gave, no outline too short to enclose
a card's area encloses it, the cues read on one white balance are those read on one each, a
frame's cues read once an outline are forgotten when the frame is read, a card's far end is read
on the pixels the card turned round shows, an ink colour is picked by one table look-up, a
straight edge's arm is as long as ``np.linalg.norm`` says, blobs of ink are labelled,
counted and boxed as ``cv2.connectedComponentsWithStats`` does it, a card's four sides
snapped in one step are each snapped as alone, no outline holds one at least as large, and a
figure's picture read small once measures as read for each measure."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from engine.cards import Card
from referee.vision import outlines, recognize
from referee.vision.cues import Cues, read_cues
from referee.vision.detect import (
    THREE_FIFTHS,
    _distinct,
    _edge_support,
    _paper,
    _percentile,
)
from referee.vision.emblems import holds_coin, holds_cup
from referee.vision.faces import CANON_H, CANON_W, Face
from referee.vision.features import gray_mean, grey_paper, normalise
from referee.vision.figures import _measures, brown_share, shape
from referee.vision.geometry import (
    _drop_shortest,
    _intersect,
    _square_corners,
    order_corners,
    refine_quad,
    refine_quads,
    robust_lines,
    side_lengths,
)
from referee.vision.lines import _corners, _length
from referee.vision.overlap import apart, bounds, covered, keep_best, overlaps
from referee.vision.pintas import BAND, SPAN, _far_end, _near_end, agreed, pintas_on
from referee.vision.pips import (
    HUES,
    MIN_SATURATION,
    ORANGE,
    PIP_SIZE,
    box,
    components,
    hue_mask,
    read_pips,
)
from referee.vision.reading import Reading
from referee.vision.recognize import Recognizer
from referee.vision.regions import fewest_points
from referee.vision.scenes import SceneOptions, random_scene
from referee.vision.snapping import _line, _median, _snap_sides


def _plain_normalise(card: np.ndarray) -> np.ndarray:
    img = card.astype(np.float32) + 1.0
    h, w = img.shape[:2]
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    small = cv2.resize(gray, (w // 4, h // 4), interpolation=cv2.INTER_AREA)
    paper = cv2.GaussianBlur(cv2.dilate(small, np.ones((3, 3), np.uint8)), (0, 0), 3)
    img = img / cv2.resize(paper, (w, h), interpolation=cv2.INTER_LINEAR)[..., None]
    sample = img[::3, ::3].reshape(-1, 3)
    k = int(0.9 * len(sample))
    white = np.partition(sample, k, axis=0)[k]
    return np.clip(img / np.maximum(white, 1e-3), 0, 1.2)


@pytest.mark.parametrize("shape", [(148, 96, 3), (97, 61, 3), (300, 200, 3)])
def test_normalise_row_by_row_gives_the_plain_values(shape: tuple[int, int, int]) -> None:
    rng = np.random.default_rng(3)
    for _ in range(10):
        card = (rng.random(shape) * 255).astype(np.uint8)
        card[: shape[0] // 5] //= 8  # a dark band: some channels' white far from 255
        fast, plain = normalise(card), _plain_normalise(card)
        assert fast.shape == plain.shape and fast.dtype == plain.dtype
        assert np.array_equal(fast, plain)
        assert np.array_equal(gray_mean(plain), plain.mean(axis=2))


def test_side_lengths_are_each_sides_norm() -> None:
    rng = np.random.default_rng(4)
    for n in (4, 5, 8):
        poly = (rng.random((n, 2)) * 640).astype(np.float32)
        plain = [np.linalg.norm(poly[(i + 1) % n] - poly[i]) for i in range(n)]
        assert side_lengths(poly).tolist() == [float(v) for v in plain]


def _plain_corners(lines: np.ndarray) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    p0, p1 = lines[:, :2], lines[:, 2:]
    length = np.linalg.norm(p1 - p0, axis=1)
    u = (p1 - p0) / length[:, None]
    out = []
    for i in range(len(lines)):
        for j in range(i + 1, len(lines)):
            cross = u[i, 0] * u[j, 1] - u[i, 1] * u[j, 0]
            if abs(cross) <= 0.82:
                continue
            w = p0[j] - p0[i]
            t_i = (w[0] * u[j, 1] - w[1] * u[j, 0]) / cross
            x = p0[i] + t_i * u[i]
            t_j = float((x - p0[j]) @ u[j])
            arms = []
            for s, t in ((i, t_i), (j, t_j)):
                tol = 0.15 * length[s] + 6
                if abs(t) <= tol:
                    arms.append(p1[s] - x)
                elif abs(t - length[s]) <= tol:
                    arms.append(p0[s] - x)
            if len(arms) == 2:
                out.append((x, arms[0], arms[1]))
    return out


def test_an_arms_length_is_numpys_norm() -> None:
    """``lines._length``, which the corners of straight edges ask hundreds of times a frame, gives
    ``np.linalg.norm``'s value bit for bit (a length in another order or precision would not)."""
    rng = np.random.default_rng(8)
    for dtype in (np.float32, np.float64):
        for v in (rng.normal(0, 200, (500, 2)) * rng.random((500, 1))).astype(dtype):
            assert _length(v) == float(np.linalg.norm(v))


def test_segment_corners_match_the_pairwise_loop() -> None:
    rng = np.random.default_rng(6)
    starts = rng.random((60, 2)) * 600
    ends = starts + rng.normal(0, 120, (60, 2))
    lines = np.hstack([starts, ends]).astype(np.float32)
    # Card-like corners: segments that meet end to end at right angles.
    lines[:4] = [[100, 100, 300, 100], [100, 100, 100, 400], [300, 100, 300, 400], [500, 50, 500, 250]]
    fast, plain = _corners(lines), _plain_corners(lines)
    assert len(fast) == len(plain) >= 3
    for (x, a, b), (px, pa, pb) in zip(fast, plain):
        np.testing.assert_allclose(x, px, rtol=1e-5, atol=1e-3)
        np.testing.assert_allclose(a, pa, rtol=1e-5, atol=1e-3)
        np.testing.assert_allclose(b, pb, rtol=1e-5, atol=1e-3)


def _plain_refine_quad(points: np.ndarray, quad: np.ndarray) -> np.ndarray:
    lines = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        d = b - a
        length = float(np.linalg.norm(d))
        if length < 1:
            return quad
        u = d / length
        rel = points - a
        along = rel @ u
        across = np.abs(rel[:, 0] * u[1] - rel[:, 1] * u[0])
        near = points[(along > 0.2 * length) & (along < 0.8 * length) & (across < 0.04 * length + 2)]
        if len(near) < 5:
            lines.append((a, b))
            continue
        vx, vy, x0, y0 = robust_lines(near.astype(np.float64), np.array([0])).astype(np.float32)[0]
        p0 = np.array([x0, y0], np.float32)
        lines.append((p0, p0 + np.array([vx, vy], np.float32)))
    out = []
    for i in range(4):
        meet = _intersect(*lines[(i - 1) % 4], *lines[i])
        if meet is None or np.linalg.norm(meet - quad[i]) > 0.2 * np.linalg.norm(quad[1] - quad[0]) + 4:
            return quad
        out.append(meet)
    return np.array(out, np.float32)


def _outline(rng: np.random.Generator, n: int, spread: float = 1.0,
             guess: float = 3.0) -> tuple[np.ndarray, np.ndarray]:
    """A noisy card outline (pixel points, ``spread`` px off its sides) and a rough guess of its
    corners (``guess`` px off)."""
    centre = rng.random(2) * 300 + 50
    w, h = rng.random(2) * 100 + 4
    turn = rng.random() * np.pi
    rot = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
    corners = np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) @ rot.T + centre
    t = rng.random(n) * 4
    side = t.astype(int)
    pts = corners[side] + (t - side)[:, None] * (corners[(side + 1) % 4] - corners[side])
    points = np.round(pts + rng.normal(0, spread, (n, 2))).astype(np.float32)
    return points, (corners + rng.normal(0, guess, (4, 2))).astype(np.float32)


def test_refine_quad_gives_the_per_side_values() -> None:
    rng = np.random.default_rng(7)
    for k in range(3000):
        n = int(rng.integers(5, 900))
        if k % 3:
            points, quad = _outline(rng, n)
        else:  # points anywhere, and corners that may fit nothing
            points = (rng.random((n, 2)) * 400).astype(np.float32)
            quad = (rng.random((4, 2)) * 400).astype(np.float32)
        fast, plain = refine_quad(points, quad), _plain_refine_quad(points, quad)
        assert fast.dtype == plain.dtype
        np.testing.assert_allclose(fast, plain, rtol=0, atol=1e-3)


def test_quads_refined_at_once_are_each_refined_alone() -> None:
    rng = np.random.default_rng(8)
    for _ in range(200):
        jobs = []
        for k in range(int(rng.integers(1, 12))):
            n = int(rng.integers(1, 700))
            if k % 3:
                jobs.append(_outline(rng, n))
            else:  # points anywhere, corners that may fit nothing, or a side under a pixel
                quad = (rng.random((4, 2)) * 400).astype(np.float32)
                if k % 2:
                    quad[1] = quad[0] + 0.5
                jobs.append(((rng.random((n, 2)) * 400).astype(np.float32), quad))
        together = refine_quads(jobs)
        assert len(together) == len(jobs)
        for quad, (points, guess) in zip(together, jobs):
            alone = refine_quad(points, guess)
            assert quad.dtype == alone.dtype == np.float32
            np.testing.assert_allclose(quad, alone, rtol=1e-5, atol=1e-3)


def _plain_edge_support(quad: np.ndarray, near_edges: np.ndarray) -> tuple[float, float]:
    h, w = near_edges.shape
    t = np.linspace(0.08, 0.92, 24)[:, None]
    pts = np.concatenate([quad[i] + t * (quad[(i + 1) % 4] - quad[i]) for i in range(4)])
    x = np.clip(pts[:, 0].round().astype(int), 0, w - 1)
    y = np.clip(pts[:, 1].round().astype(int), 0, h - 1)
    on = (near_edges[y, x] > 0).reshape(4, -1).mean(axis=1)
    return float(on.mean()), float(on.min())


def test_edge_support_of_all_outlines_at_once_gives_each_ones_values() -> None:
    rng = np.random.default_rng(8)
    edges = ((rng.random((480, 640)) > 0.6) * 255).astype(np.uint8)
    quads = [(rng.random((4, 2)) * [700, 520] - 30).astype(np.float32) for _ in range(50)]
    fast = _edge_support(quads, edges)
    assert fast.shape == (50, 2)
    assert [tuple(map(float, row)) for row in fast] == [_plain_edge_support(q, edges) for q in quads]
    assert _edge_support([], edges).shape == (0, 2)


def _plain_distinct(quads: list[tuple[np.ndarray, float]]) -> list[tuple[np.ndarray, float]]:
    kept: list[tuple[np.ndarray, float]] = []
    stack = np.zeros((0, 4, 2), np.float32)
    for quad, score in sorted(quads, key=lambda qs: -qs[1]):
        rolls = np.stack([np.roll(quad, r, axis=0) for r in range(4)])
        tol = 0.03 * float(np.linalg.norm(quad[1] - quad[0])) + 1
        if len(stack) and (np.abs(stack[:, None] - rolls[None]).max(axis=(2, 3)) < tol).any():
            continue
        kept.append((quad, score))
        stack = np.concatenate([stack, quad[None].astype(np.float32)])
    return kept


def test_distinct_outlines_by_index_keep_what_rolling_kept() -> None:
    rng = np.random.default_rng(9)
    base = [(rng.random((4, 2)) * 400).astype(np.float32) for _ in range(12)]
    # the same outlines again, nudged and with their corners in another order
    quads = [(q, float(rng.random())) for q in base]
    quads += [(np.roll(q + rng.normal(0, 2, (4, 2)).astype(np.float32), r, axis=0), float(rng.random()))
              for q, r in zip(base, rng.integers(0, 4, len(base)))]
    fast, plain = _distinct(quads), _plain_distinct(quads)
    assert 12 <= len(fast) < len(quads)
    assert [(q.tobytes(), s) for q, s in fast] == [(q.tobytes(), s) for q, s in plain]


def _plain_order_corners(quad: np.ndarray) -> np.ndarray:
    pts = quad.reshape(4, 2).astype(np.float32)
    centre = pts.mean(axis=0)
    angles = np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0])
    pts = pts[np.argsort(angles)]
    sides = side_lengths(pts)
    if sides[0] + sides[2] > sides[1] + sides[3]:
        pts = pts[[1, 2, 3, 0]]
    if pts[2].sum() < pts[0].sum():
        pts = pts[[2, 3, 0, 1]]
    return pts


def test_corner_order_on_python_numbers_is_numpys() -> None:
    rng = np.random.default_rng(10)
    for k in range(3000):
        if k % 2:
            _, quad = _outline(rng, 5)
        else:
            quad = (rng.random((4, 2)) * 640).astype(np.float32)
        fast, plain = order_corners(quad), _plain_order_corners(quad)
        assert fast.dtype == plain.dtype and np.array_equal(fast, plain)


def _plain_square_corners(poly: np.ndarray, sign: float) -> list[bool]:
    n = len(poly)
    square = []
    for i in range(n):
        prev, at, nxt = poly[i - 1], poly[i], poly[(i + 1) % n]
        cross = (at - prev)[0] * (nxt - at)[1] - (at - prev)[1] * (nxt - at)[0]
        a, b = prev - at, nxt - at
        cos = float(a @ b) / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-6)
        angle = float(np.degrees(np.arccos(np.clip(cos, -1.0, 1.0))))
        square.append(bool(cross * sign > 0 and 50 <= angle <= 130))
    return square


def test_square_corners_at_once_are_the_loops() -> None:
    rng = np.random.default_rng(11)
    for _ in range(2000):
        n = int(rng.integers(5, 17))
        turn = np.sort(rng.random(n)) * 2 * np.pi
        radius = rng.random(n) * 80 + 20
        poly = np.round(np.stack([np.cos(turn), np.sin(turn)], axis=1) * radius[:, None] + 200)
        poly = poly.astype(np.float32)
        for sign in (1.0, -1.0):
            assert _square_corners(poly, sign) == _plain_square_corners(poly, sign)


def test_median_is_numpys() -> None:
    rng = np.random.default_rng(12)
    for k in range(5000):
        v = np.abs(rng.normal(0, 3, int(rng.integers(1, 30))))
        if k % 4 == 0:
            v = np.round(v)  # ties
        assert _median(v) == float(np.median(v))


def test_snapped_line_is_polyfits_within_rounding() -> None:
    rng = np.random.default_rng(13)
    for _ in range(2000):
        t = np.sort(rng.random(int(rng.integers(8, 25)))).astype(np.float32)
        s = (rng.normal(0, 2, len(t)) + rng.normal() * t).astype(np.float32)
        slope, shift = _line(t, s)
        want = np.polyfit(t, s, 1)
        np.testing.assert_allclose([slope, shift], want, rtol=1e-4, atol=1e-4)


def test_outlines_compared_at_once_score_as_each_alone(recognizer: Recognizer,
                                                       fournier: dict[Card, Face]) -> None:
    rng = np.random.default_rng(17)
    cards = [cv2.resize(face.bgr, (CANON_W, CANON_H), interpolation=cv2.INTER_AREA)
             for face in list(fournier.values())[:12]]
    cards.append((rng.random((CANON_H, CANON_W, 3)) * 255).astype(np.uint8))  # no card at all
    together = recognizer.scores_of(cards)
    assert together.shape == (len(cards), len(recognizer.bank.cards))
    for card, row in zip(cards, together):
        alone = recognizer.scores(card)
        np.testing.assert_allclose(row, alone, atol=1e-5)
        assert recognizer.judge(row)[0] == recognizer.judge(alone)[0]


def test_percentile_from_the_histogram_is_numpys() -> None:
    rng = np.random.default_rng(19)
    for k in range(200):
        shape = [(480, 640), (360, 640), (37, 51), (1, 1), (2, 3)][k % 5]
        v = (rng.random(shape) ** rng.uniform(0.2, 5) * 255).astype(np.uint8)
        for q in (99, 50, 0, 100, 37.5, 99.9):
            assert _percentile(v, q) == float(np.percentile(v, q))


def test_paper_mask_in_whole_numbers_is_the_plain_one() -> None:
    rng = np.random.default_rng(23)
    for _ in range(20):
        small = (rng.random((120, 160, 3)) ** rng.uniform(0.3, 3) * 255).astype(np.uint8)
        hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
        s, v = hsv[:, :, 1], hsv[:, :, 2]
        local = cv2.dilate(v, np.ones((31, 31), np.uint8))
        plain = (s < 140) & (v > 0.6 * local) & (v > 0.4 * float(np.percentile(v, 99)))
        assert np.array_equal(_paper(small), plain.astype(np.uint8) * 255)
    levels = np.arange(256)
    v, local = np.meshgrid(levels, levels, indexing="ij")  # every pair of levels
    assert np.array_equal(v > THREE_FIFTHS[local], v > 0.6 * local)


def test_outlines_apart_neither_cover_nor_are_kept_otherwise() -> None:
    rng = np.random.default_rng(29)
    for _ in range(300):
        quads = [(rng.random(2) * 300 + rng.random((4, 2)) * rng.uniform(5, 120)).astype(np.float32)
                 for _ in range(int(rng.integers(1, 12)))]
        quads = [cv2.convexHull(q).reshape(-1, 2) for q in quads]
        quads = [q for q in quads if len(q) == 4]
        scores = rng.random(len(quads)).tolist()
        boxes = bounds(quads)
        for a, box_a in zip(quads, boxes):
            for b, box_b in zip(quads, boxes):
                if apart(box_a, box_b):
                    assert covered(a, b) == 0.0 and covered(b, a) == 0.0
        plain: list[int] = []
        for i in sorted(range(len(quads)), key=lambda j: -scores[j]):
            if not any(overlaps(quads[i], quads[k], 0.6) for k in plain):
                plain.append(i)
        assert keep_best(quads, scores) == plain


def test_dropping_the_shortest_side_turns_the_polygon_as_np_roll() -> None:
    rng = np.random.default_rng(31)
    for k in range(3000):
        poly = (rng.random((int(rng.integers(5, 9)), 2)) * 200).astype(np.float32)
        if k % 4 == 0:
            poly[2] = poly[1]  # a side of no length
        lengths = side_lengths(poly).tolist()
        p = np.roll(poly, 1 - int(np.argmin(lengths)), axis=0)
        meet = _intersect(p[0], p[1], p[3 % len(p)], p[2])
        if meet is None or np.linalg.norm(meet - p[1]) > 0.6 * max(lengths):
            assert _drop_shortest(poly) is None
        else:
            assert np.array_equal(_drop_shortest(poly), np.array([p[0], meet, *p[3:]], np.float32))


def test_no_outline_encloses_more_than_its_points_allow() -> None:
    rng = np.random.default_rng(37)
    masks = []
    for size in (41, 120, 301):  # the roundest and most diagonal outlines enclose the most
        disc, diamond = np.zeros((size, size), np.uint8), np.zeros((size, size), np.uint8)
        cv2.circle(disc, (size // 2, size // 2), size // 2 - 2, 255, cv2.FILLED)
        r = size // 2 - 2
        cv2.fillConvexPoly(diamond, np.array([[size // 2, 1], [size - 2, size // 2], [size // 2, size - 2],
                                              [1, size // 2]], np.int32), 255)
        masks += [disc, diamond, np.pad(np.full((r, r), 255, np.uint8), 1)]
    for _ in range(40):
        mask = np.zeros((240, 320), np.uint8)
        for _ in range(int(rng.integers(1, 8))):
            centre = rng.random(2) * [320, 240]
            axes = rng.uniform(2, 90, 2)
            cv2.ellipse(mask, (centre, axes, float(rng.uniform(0, 180))), 255, cv2.FILLED)
        mask[rng.random(mask.shape) < 0.02] ^= 255  # specks and holes
        masks.append(mask)
    slack = []
    for mask in masks:
        contours, _ = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE)
        for contour in contours:
            area = cv2.contourArea(contour)
            assert len(contour) >= fewest_points(area)
            if area > 100:
                slack.append(len(contour) / fewest_points(area))
    assert min(slack) < 1.2  # and is nearly reached (a diamond)


def test_cues_read_on_one_white_balance_are_the_plain_ones(wikimedia: dict[Card, Face],
                                                          fournier: dict[Card, Face]) -> None:
    """``read_cues`` white-balances the card once for its pinta, pips, coin and cup; each is what
    it reads on the card white-balanced for it alone."""
    rng = np.random.default_rng(5)
    for face in [*wikimedia.values(), *fournier.values()]:
        card = cv2.resize(face.bgr, PIP_SIZE, interpolation=cv2.INTER_AREA)
        for img in (card, cv2.GaussianBlur(card, (5, 5), 0),
                    np.clip(card * rng.uniform(0.6, 1.0, 3), 0, 255).astype(np.uint8)):
            ends = pintas_on(grey_paper(img))
            pinta = agreed(ends)
            plain = Cues(read_pips(img), pinta, pinta is not None and ends[0] == ends[1],
                         holds_coin(img), holds_cup(img))
            assert read_cues(img) == plain, face.card


def test_a_frames_cues_are_read_once_an_outline_and_forgotten_after(
        recognizer: Recognizer, fournier: dict[Card, Face],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """While a frame is read, the cues of an outline asked again are not read again (on this
    frame of the other deck they are asked five times, twice for one outline, and read four
    times).  They are let go when the frame is read: the next frame, even in the same buffer, is
    read as a new recognizer reads it."""
    first = random_scene(fournier, np.random.default_rng(12), SceneOptions(width=640, height=480)).image
    second = np.ascontiguousarray(first[:, :, ::-1])
    read: list[bytes] = []

    def counted(card: np.ndarray) -> Cues:
        read.append(card.tobytes())
        return read_cues(card)

    asked: list[int] = []
    ask = Recognizer.cues

    def asking(self: Recognizer, *args: object) -> Cues:
        asked.append(1)
        return ask(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(recognize, "read_cues", counted)
    monkeypatch.setattr(Recognizer, "cues", asking)
    frame = first.copy()
    recognizer.read(frame)
    assert len(read) >= 4 and len(set(read)) == len(read) and len(asked) > len(read)
    frame[:] = second
    again = recognizer.read(frame)
    fresh = Recognizer(recognizer.bank).read(second)
    assert [(r.card, r.confidence) for r in again] == [(r.card, r.confidence) for r in fresh]
    assert recognizer._frame.cues is None


def test_a_cards_far_end_is_the_near_end_of_the_card_turned_round(wikimedia: dict[Card, Face],
                                                                   fournier: dict[Card, Face]) -> None:
    """The pinta at a card's far end is read on that end's band alone (``pintas._far_end``), not
    on the whole card turned half round: the same pixels and the same grey levels, at every size
    a card is read at (odd ones too, where the band's rows are rounded); and the grey level is
    the channels' plain mean."""
    faces = [*wikimedia.values(), *fournier.values()]
    for k, face in enumerate(faces[::4]):
        size = (PIP_SIZE[0] + k % 3, PIP_SIZE[1] + k % 5)
        norm = grey_paper(cv2.resize(face.bgr, size, interpolation=cv2.INTER_AREA))
        turned = np.ascontiguousarray(norm[::-1, ::-1])
        far, plain = _far_end(norm), _near_end(turned)
        assert np.array_equal(far.region, plain.region), face.card
        assert np.array_equal(far.gray, plain.gray) and far.width == plain.width
        h, w = turned.shape[:2]
        band = turned[int(BAND[0] * h):int(BAND[1] * h), int(SPAN[0] * w):int(SPAN[1] * w)]
        assert np.array_equal(plain.gray, cv2.GaussianBlur(band.mean(axis=2).astype(np.float32),
                                                            (3, 1), 0))


def test_an_ink_colour_is_picked_by_one_look_up_as_by_its_ranges() -> None:
    """``pips.hue_mask`` looks each hue up in a table (``cv2.LUT``); every 8-bit hue, in a
    strided slice as the cues pass it, falls where the ranges' comparisons put it."""
    hue = np.tile(np.arange(256, dtype=np.uint8), (6, 1))
    hsv = np.dstack([hue, 255 - hue, hue])[1:5]
    for ranges in [*HUES.values(), (ORANGE,), ((0, 1), (179, 256))]:
        plain = np.zeros(hsv.shape[:2], bool)
        for lo, hi in ranges:
            plain |= (hsv[..., 0] >= lo) & (hsv[..., 0] < hi)
        fast = hue_mask(hsv[..., 0], ranges)
        assert fast.dtype == bool and np.array_equal(fast, plain), ranges


def test_blobs_are_labelled_measured_and_boxed_as_with_opencvs_statistics(
        wikimedia: dict[Card, Face], fournier: dict[Card, Face]) -> None:
    """``pips.components`` labels and measures a mask's blobs without
    ``cv2.connectedComponentsWithStats``, and ``pips.box`` boxes one: the same labels, areas and
    boxes, on the ink of every face of both decks (and its blobs closed as the pips are counted)
    and on scattered noise."""
    masks = []
    for face in [*wikimedia.values(), *fournier.values()]:
        hsv = cv2.cvtColor(cv2.resize(face.bgr, PIP_SIZE, interpolation=cv2.INTER_AREA),
                           cv2.COLOR_BGR2HSV)
        ink = (hsv[..., 1] > MIN_SATURATION * 255).astype(np.uint8)
        masks += [ink, cv2.morphologyEx(ink, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))]
    rng = np.random.default_rng(3)
    masks += [(rng.random((61, 47)) > p).astype(np.uint8) for p in (0.5, 0.8, 0.97, 1.0)]
    for mask in masks:
        count, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
        fast_count, fast_labels, areas = components(mask)
        assert fast_count == count and np.array_equal(fast_labels, labels)
        assert areas.tolist() == stats[:, cv2.CC_STAT_AREA].tolist()
        for i in range(1, count):
            assert box(labels == i) == tuple(stats[i, :4].tolist())


def test_four_sides_snapped_in_one_step_are_each_snapped_alone(fournier: dict[Card, Face]) -> None:
    """``snapping._snap_sides`` takes the colour profiles of a card's four sides in one step:
    each side comes out as it does snapped on its own, on cards of generated frames and on
    outlines moved off them."""
    rng = np.random.default_rng(21)
    checked = 0
    for _ in range(6):
        scene = random_scene(fournier, rng, SceneOptions(width=640, height=480))
        lab = cv2.cvtColor(cv2.GaussianBlur(scene.image, (3, 3), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
        for card in scene.cards:
            quad = card.corners + rng.normal(0, 3, (4, 2)).astype(np.float32)
            centre = quad.mean(axis=0)
            sides = []
            for i in range(4):
                a, b = quad[i], quad[(i + 1) % 4]
                u = (b - a) / float(np.linalg.norm(b - a))
                normal = np.array([u[1], -u[0]], np.float32)
                sides.append((a, b, normal if ((a + b) / 2 - centre) @ normal >= 0 else -normal))
            reach = float(rng.uniform(3, 12))
            for together, side in zip(_snap_sides(lab, sides, reach), sides):
                alone = _snap_sides(lab, [side], reach)[0]
                assert (together is None) == (alone is None)
                if together is not None and alone is not None:
                    assert all(np.array_equal(x, y) for x, y in zip(together, alone))
                    checked += 1
    assert checked >= 10


def _turned_box(rng: np.random.Generator) -> np.ndarray:
    """A rectangle of random size, place and turn (its corners clockwise)."""
    w, h = rng.uniform(10, 40, 2)
    t = rng.uniform(0, np.pi)
    turn = np.array([[np.cos(t), np.sin(t)], [-np.sin(t), np.cos(t)]])
    return (np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2 @ turn
            + rng.uniform(40, 60, 2)).astype(np.float32)


def test_no_outline_holds_one_at_least_as_large() -> None:
    """``outlines.drop_parts`` never asks whether an outline lies inside one no larger than
    itself: such a one never holds it (``outlines._holds``), however the two look."""
    rng = np.random.default_rng(17)
    asked = 0
    for _ in range(4000):
        whole, part = _turned_box(rng), _turned_box(rng)
        if rng.random() < 0.3:  # nearly the same outline
            part = whole * np.float32(rng.uniform(0.99, 1.01)) + rng.normal(0, 0.3, (4, 2)).astype(np.float32)
        if max(1.0, float(cv2.contourArea(part))) < max(1.0, float(cv2.contourArea(whole))):
            continue
        asked += 1
        for near, far in ((0.5, 0.5), (0.9, 0.2), (0.2, 0.9)):
            held = outlines._holds(Reading(None, 0.0, whole, similarity=near),
                                   Reading(None, 0.0, part, similarity=far))
            assert not held
    assert asked >= 1000


def test_a_pictures_measures_read_once_are_each_read_alone(wikimedia: dict[Card, Face],
                                                          fournier: dict[Card, Face]) -> None:
    """``figures._measures`` reads the card small once for its middle, its ends and its brown:
    what ``shape`` and ``brown_share`` read on it each on their own, on every face of both decks."""
    for face in [*wikimedia.values(), *fournier.values()]:
        card = cv2.resize(face.bgr, PIP_SIZE, interpolation=cv2.INTER_AREA)
        middle, end = shape(card)
        assert _measures(card) == (middle, end / max(middle, 1e-3), brown_share(card)), face.card
