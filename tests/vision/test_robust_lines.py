"""A side's line through its outline's points (``geometry.robust_lines``): exact on points in a
line, hardly moved by a few points far off, as close to OpenCV's Huber line (used before it) as
OpenCV's own line is when the same points come in another order, and each group's line the same
whether fitted with others or alone."""

from __future__ import annotations

import cv2
import numpy as np

from referee.vision.geometry import robust_lines


def _side_points(rng: np.random.Generator) -> np.ndarray:
    """Points along a noisy straight edge, a few far off it (a finger, a corner)."""
    n = int(rng.integers(5, 120))
    t = rng.random(n) * 150
    pts = np.stack([t, 0.3 * t + rng.normal(0, 1, n)], axis=1) + rng.random(2) * 300
    pts[: n // 8] += rng.normal(0, 15, (n // 8, 2))
    return np.round(pts).astype(np.float32)


def _one(points: np.ndarray) -> np.ndarray:
    return robust_lines(points.astype(np.float64), np.array([0]))[0]


def _gap(line: np.ndarray, other: np.ndarray, points: np.ndarray) -> float:
    """How far ``other`` lies from ``line`` at the two ends of the points along ``line``."""
    vx, vy, x0, y0 = (float(v) for v in line)
    t = (points[:, 0] - x0) * vx + (points[:, 1] - y0) * vy
    ends = np.array([[x0 + vx * t.min(), y0 + vy * t.min()], [x0 + vx * t.max(), y0 + vy * t.max()]])
    ux, uy, x1, y1 = (float(v) for v in other)
    return float(np.abs((ends[:, 1] - y1) * ux - (ends[:, 0] - x1) * uy).max())


def test_points_in_a_line_give_that_line() -> None:
    t = np.arange(40, dtype=np.float64)
    points = np.stack([10 + 3 * t, 20 + 4 * t], axis=1)
    vx, vy, x0, y0 = _one(points)
    assert abs(abs(vx) - 0.6) < 1e-9 and abs(abs(vy) - 0.8) < 1e-9 and vx * vy > 0
    assert abs((y0 - 20) * 0.6 - (x0 - 10) * 0.8) < 1e-9  # the point lies on it


def test_a_few_points_far_off_hardly_move_it() -> None:
    t = np.arange(60, dtype=np.float64)
    points = np.stack([t, np.full(60, 100.0)], axis=1)
    points[:6, 1] += 25  # a finger over one end of the side
    line = _one(points)
    plain = cv2.fitLine(points.astype(np.float32), cv2.DIST_L2, 0, 0.01, 0.01).ravel()
    straight = np.array([1.0, 0.0, 0.0, 100.0])
    pulled = _gap(straight, plain, points)  # least squares is pulled 2.5 px away
    assert pulled > 2
    assert _gap(straight, line, points) < 0.1 * pulled


def test_as_close_to_opencvs_huber_line_as_opencv_to_itself() -> None:
    rng = np.random.default_rng(6)
    ours, theirs = [], []
    for _ in range(400):
        points = _side_points(rng)
        huber = cv2.fitLine(points, cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        reordered = cv2.fitLine(points[rng.permutation(len(points))], cv2.DIST_HUBER, 0, 0.01,
                                0.01).ravel()
        ours.append(_gap(huber, _one(points), points))
        theirs.append(_gap(huber, reordered, points))
    assert np.median(ours) <= 1.5 * np.median(theirs) + 0.02
    assert np.percentile(ours, 90) <= 1.5 * np.percentile(theirs, 90) + 0.02


def test_groups_at_once_are_each_alone() -> None:
    rng = np.random.default_rng(7)
    groups = [_side_points(rng) for _ in range(50)]
    first = np.cumsum([0] + [len(g) for g in groups[:-1]])
    together = robust_lines(np.concatenate(groups).astype(np.float64), first)
    for line, points in zip(together, groups):
        np.testing.assert_allclose(line, _one(points), rtol=1e-9, atol=1e-9)
