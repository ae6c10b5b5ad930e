"""The Huber line of a side's points is kept (``geometry.huber_line``): OpenCV gives the same line
for the same points on every call, the kept line is OpenCV's bit for bit, and points met again
are not fitted again."""

from __future__ import annotations

import cv2
import numpy as np

from referee.vision.geometry import huber_line


def _side_points(rng: np.random.Generator) -> np.ndarray:
    """Points along a noisy straight edge, a few far off it (a finger, a corner)."""
    n = int(rng.integers(5, 120))
    t = rng.random(n) * 150
    pts = np.stack([t, 0.3 * t + rng.normal(0, 1, n)], axis=1) + rng.random(2) * 300
    pts[: n // 8] += rng.normal(0, 15, (n // 8, 2))
    return np.round(pts).astype(np.float32)


def _fit(points: np.ndarray) -> bytes:
    return cv2.fitLine(points, cv2.DIST_HUBER, 0, 0.01, 0.01).tobytes()


def test_opencv_gives_the_same_huber_line_on_every_call() -> None:
    rng = np.random.default_rng(5)
    sets = [_side_points(rng) for _ in range(300)]
    first = [_fit(p) for p in sets]
    assert [_fit(p.copy()) for p in reversed(sets)] == first[::-1]


def test_the_kept_line_is_opencvs() -> None:
    rng = np.random.default_rng(6)
    for _ in range(300):
        points = _side_points(rng)
        kept = np.array(huber_line(points.tobytes()), np.float32)
        assert kept.tobytes() == _fit(points)


def test_points_met_again_are_not_fitted_again() -> None:
    points = _side_points(np.random.default_rng(7))
    before = huber_line.cache_info()
    line = huber_line(points.tobytes())
    again = huber_line(points.copy().tobytes())
    after = huber_line.cache_info()
    assert again == line
    assert after.hits == before.hits + 1
