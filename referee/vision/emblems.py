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
CUT_INSIDE = 0.5       # less inside, but at least this, is a coin cut by the card's edge: the coin
                       # of an oros card under the card read, which it does not hold
GOLD = (22, 0.6)       # a coin's median hue (OpenCV) and saturation are at least these: gold, not
                       # a fingertip over the card's edge (hue 16-21, saturation 0.36-0.5)
# Where no coin stands out among the ink's yellows, the yellows at least this saturated: blurred,
# the 1878 caballo de oros' coin (saturation about 0.9) runs into his horse's tan coat (0.4-0.6)
# and the two make one blob, which fills no circle.
COIN_SATURATION = 0.55
WHOLE, CUT = "whole", "cut"  # a coin seen with most of its circle inside, or cut by the edge


def holds_coin(card: np.ndarray) -> bool:
    """A figure's coin is on the flattened card (best at ``pips.PIP_SIZE``): one coin, alone (the
    4-7 of oros show four or more of that size, the 2 and 3 two or three; a card lying over
    another may show one of its coins whole and another cut by the card's edge)."""
    hsv = inner(normalised_hsv(card), INNER)
    whole, cut = _coins(hsv, MIN_SATURATION)
    if not whole and not cut:
        whole, cut = _coins(hsv, COIN_SATURATION)
    return whole == 1 and not cut


def _coins(hsv: np.ndarray, saturation: float) -> tuple[int, int]:
    """How many coins the yellows at least this saturated show, whole and cut (``_coin``)."""
    (lo, hi), = HUES["yellow"]
    yellow = (hsv[..., 0] >= lo) & (hsv[..., 0] < hi) & (hsv[..., 1] > saturation * 255)
    mask = cv2.morphologyEx(yellow.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    seen = [_coin(contour, hsv) for contour in contours]
    return seen.count(WHOLE), seen.count(CUT)


def _coin(contour: np.ndarray, hsv: np.ndarray) -> str | None:
    """A coin-sized gold blob that fills its enclosing circle, counting only the part of the
    circle inside the inner area (the NL rey de oros holds his coin close to the top, where the
    margin left out cuts it: whole, it would fill its circle; cut, 0.72-0.76 of it).  Whole when
    most of the circle is inside (``MIN_INSIDE``): a coin cut nearly in half is no longer told
    from a cup's bowl; cut when less, down to ``CUT_INSIDE``.  And it is gold (``GOLD``): a
    fingertip is yellowish too, and as round."""
    (x, y), radius = cv2.minEnclosingCircle(contour)
    if not RADIUS[0] <= radius / hsv.shape[1] <= RADIUS[1]:
        return None
    disc = np.zeros(hsv.shape[:2], np.uint8)
    cv2.circle(disc, (round(x), round(y)), round(radius), 1, -1)
    blob = np.zeros(hsv.shape[:2], np.uint8)
    cv2.drawContours(blob, [contour], -1, 1, -1)
    inside = int(disc.sum())
    if inside < CUT_INSIDE * np.pi * radius ** 2 or int(blob.sum()) < MIN_FILL * inside:
        return None
    pixels = hsv[blob > 0]
    if np.median(pixels[:, 0]) < GOLD[0] or np.median(pixels[:, 1]) < GOLD[1] * 255:
        return None
    return WHOLE if inside >= MIN_INSIDE * np.pi * radius ** 2 else CUT
