"""What a figure holds, which tells its suit on any Spanish deck without the frame line: the coin
of oros, a round yellow disc about a quarter of the card wide (sota, caballo and rey alike).

Measured on the faces of both decks, sharp and blurred: the figures' coins fill 0.87-0.96 of their
enclosing circle, any other yellow patch of that size at most 0.62; the 2-7 of oros show several
coins (``tests/vision/test_emblems.py``)."""

from __future__ import annotations

import cv2
import numpy as np

from referee.vision.features import inner, normalised_hsv
from referee.vision.pips import HUES, MIN_SATURATION

INNER = (0.06, 0.05)   # share of the width and height left out at each side (the card's edge)
RADIUS = (0.10, 0.18)  # a coin's radius, as a share of the inner width (the ace's is larger)
MIN_FILL = 0.8         # a coin fills at least this share of its enclosing circle


def holds_coin(card: np.ndarray) -> bool:
    """A figure's coin is on the flattened card (best at ``pips.PIP_SIZE``): one coin, alone (the
    4-7 of oros show four or more of that size, the 2 and 3 two or three)."""
    hsv = inner(normalised_hsv(card), INNER)
    (lo, hi), = HUES["yellow"]
    yellow = (hsv[..., 0] >= lo) & (hsv[..., 0] < hi) & (hsv[..., 1] > MIN_SATURATION * 255)
    mask = cv2.morphologyEx(yellow.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    width = mask.shape[1]
    circles = (cv2.minEnclosingCircle(contour)[1] for contour in contours)
    return sum(RADIUS[0] <= radius / width <= RADIUS[1]
               and cv2.contourArea(contour) >= MIN_FILL * np.pi * radius ** 2
               for contour, radius in zip(contours, circles)) == 1
