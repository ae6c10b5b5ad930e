"""Outlines guessed from a region's corners too small to be a card are left out before their sides
are refined (``geometry.corner_quads``, ``min_area``): no refined outline is larger than
``geometry.largest_refined_area`` says, and only outlines smaller than a card go."""

from __future__ import annotations

import cv2
import numpy as np

from referee.vision.geometry import corner_quads, largest_refined_area, order_corners, refine_quad
from tests.vision.test_fast_paths import _outline as card_outline


def _outline(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A noisy card outline and a rough guess of its corners, or points anywhere and corners that
    may fit nothing."""
    n = int(rng.integers(5, 600))
    if rng.random() < 0.3:
        return (rng.random((n, 2)) * 400).astype(np.float32), (rng.random((4, 2)) * 400).astype(np.float32)
    return card_outline(rng, n, spread=1.5, guess=6.0)


def test_no_refined_outline_is_larger_than_the_bound() -> None:
    rng = np.random.default_rng(11)
    for _ in range(3000):
        points, quad = _outline(rng)
        refined = refine_quad(points, quad)
        largest = largest_refined_area(quad)
        assert cv2.contourArea(refined) <= largest
        assert cv2.contourArea(order_corners(refined)) <= largest


def _merged_cards(rng: np.random.Generator) -> np.ndarray:
    """The outline of two or three overlapping card-shaped boxes, as the finder's masks give it."""
    mask = np.zeros((480, 640), np.uint8)
    for _ in range(int(rng.integers(2, 4))):
        centre = (float(rng.uniform(150, 490)), float(rng.uniform(120, 360)))
        size = float(rng.uniform(20, 140))
        box = cv2.boxPoints((centre, (size, size * 1.55), float(rng.uniform(0, 180))))
        cv2.fillPoly(mask, [np.round(box).astype(np.int32)], 255)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    return max(contours, key=cv2.contourArea)


def test_only_outlines_smaller_than_a_card_are_left_out() -> None:
    rng = np.random.default_rng(12)
    left_out = 0
    for _ in range(400):
        contour = _merged_cards(rng)
        min_area = float(rng.uniform(500, 6000))
        every = corner_quads(contour)
        kept = corner_quads(contour, min_area=min_area)
        kept_keys = [q.tobytes() for q in kept]
        dropped = [q for q in every if q.tobytes() not in kept_keys]
        assert kept_keys == [q.tobytes() for q in every if q.tobytes() in kept_keys]  # in order
        assert len(kept) + len(dropped) == len(every)
        assert all(cv2.contourArea(q) < min_area for q in dropped)
        left_out += len(dropped)
    assert left_out > 0
