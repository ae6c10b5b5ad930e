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
MIN_FILL = 0.8         # a coin fills at least this share of its enclosing circle (of the part
                       # of it inside the card's inner area: a coin near the top is cut there) ...
MIN_INSIDE = 0.75      # ... and at least this share of the circle is inside (the bowl of an 1878
                       # cup cut at the bottom, 0.71 inside, filled its part like a coin)
GOLD = (22, 0.6)       # a coin's median hue (OpenCV) and saturation are at least these: gold, not
                       # a fingertip over the card's edge (hue 16-21, saturation 0.36-0.5)


def holds_coin(card: np.ndarray) -> bool:
    """A figure's coin is on the flattened card (best at ``pips.PIP_SIZE``): one coin, alone (the
    4-7 of oros show four or more of that size, the 2 and 3 two or three)."""
    hsv = inner(normalised_hsv(card), INNER)
    (lo, hi), = HUES["yellow"]
    yellow = (hsv[..., 0] >= lo) & (hsv[..., 0] < hi) & (hsv[..., 1] > MIN_SATURATION * 255)
    mask = cv2.morphologyEx(yellow.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return sum(_coin(contour, hsv) for contour in contours) == 1


def _coin(contour: np.ndarray, hsv: np.ndarray) -> bool:
    """A coin-sized gold blob that fills its enclosing circle, counting only the part of the
    circle inside the inner area (the NL rey de oros holds his coin close to the top, where the
    margin left out cuts it: whole, it would fill its circle; cut, 0.72-0.76 of it).  Most of the
    circle must be inside (``MIN_INSIDE``): a coin cut nearly in half is no longer told from a
    cup's bowl.  And it is gold (``GOLD``): a fingertip is yellowish too, and as round."""
    (x, y), radius = cv2.minEnclosingCircle(contour)
    if not RADIUS[0] <= radius / hsv.shape[1] <= RADIUS[1]:
        return False
    disc = np.zeros(hsv.shape[:2], np.uint8)
    cv2.circle(disc, (round(x), round(y)), round(radius), 1, -1)
    blob = np.zeros(hsv.shape[:2], np.uint8)
    cv2.drawContours(blob, [contour], -1, 1, -1)
    inside = int(disc.sum())
    if inside < MIN_INSIDE * np.pi * radius ** 2 or int(blob.sum()) < MIN_FILL * inside:
        return False
    pixels = hsv[blob > 0]
    return bool(np.median(pixels[:, 0]) >= GOLD[0] and np.median(pixels[:, 1]) >= GOLD[1] * 255)
