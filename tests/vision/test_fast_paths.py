"""The per-frame arithmetic written for speed gives the values of its plain form: the lighting
division done row by row, all sides' lengths at once, and the straight-edge corners found
without a loop over segment pairs."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from referee.vision.features import gray_mean, normalise
from referee.vision.geometry import side_lengths
from referee.vision.lines import _corners


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
