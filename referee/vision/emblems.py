"""What a figure holds, which tells its suit on any Spanish deck without the frame line: the coin
of oros, a round yellow disc about a quarter of the card wide (sota, caballo and rey alike), and
the cup of copas, a small blob of red and gold up at one end, to one side.

Measured on the faces of both decks, sharp and blurred: the figures' coins fill 0.87-0.96 of their
enclosing circle, any other yellow patch of that size at most 0.62; the 2-7 of oros show several
coins.  The cup is seen on every copas figure but the 1878 caballo (his cup touches his horse's
tan head) and on no other card (``tests/vision/test_emblems.py``)."""

from __future__ import annotations

import cv2
import numpy as np

from referee.vision.features import grey_paper, inner, normalised_hsv
from referee.vision.pips import HUES, MIN_SATURATION, ORANGE, box, components, hue_mask

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
    return coin_in(normalised_hsv(card))


def coin_in(hsv: np.ndarray) -> bool:
    """``holds_coin`` of the card white-balanced, in HSV (``features.normalised_hsv``)."""
    hsv = inner(hsv, INNER)
    whole, cut = _coins(hsv, MIN_SATURATION)
    if not whole and not cut:
        whole, cut = _coins(hsv, COIN_SATURATION)
    return whole == 1 and not cut


def _coins(hsv: np.ndarray, saturation: float) -> tuple[int, int]:
    """How many coins the yellows at least this saturated show, whole and cut (``_coin``)."""
    yellow = hue_mask(hsv[..., 0], HUES["yellow"]) & (hsv[..., 1] > saturation * 255)
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


# The cup of copas, as a figure holds it: a small blob of red and gold ink, the only one on the
# card (a 2-7 of copas shows several cups), up at one end and to one side of the middle (a rey's
# crown is in the middle), standing alone on the paper.
CUP_AREA = (0.006, 0.035)  # its area, as a share of the inner card's (an ace's cup is larger)
CUP_RED = (0.25, 0.08)   # the share of its ink in red and orange, and in red alone, at least ...
CUP_GOLD = 0.3           # ... and in yellow: red and gold, not a coin's gold nor a feather's red
CUP_END = 0.25           # its centre within this share of the inner height of one end
CUP_SIDE = (0.2, 0.4)    # its centre this far from the middle, as a share of the inner width
CUP_WIDTH = 0.25         # its width at most this share of the inner width (a strip of ground is wider)
CUP_FILL = 0.5           # it fills at least this share of its bounding box (a sword's guard less)
CUP_ALONE = 0.1          # at most this share of its border ring is ink of another colour ...
CUP_DARK = 0.35          # ... not dark (a black outline around the cup has any hue)
RING = 9                 # the border ring's width, in pixels at ``pips.PIP_SIZE``


def holds_cup(card: np.ndarray) -> bool:
    """A figure's cup is on the flattened card (best at ``pips.PIP_SIZE``)."""
    return cup_on(grey_paper(card))


def cup_on(grey: np.ndarray) -> bool:
    """``holds_cup`` on the card with its paper made grey (``features.grey_paper``: around a cup,
    any tint the paper kept would be taken for ink): the one blob of red and gold ink of a cup's
    size (``CUP_AREA``, ``CUP_RED``, ``CUP_GOLD``), in a figure's hand (``_held``)."""
    bgr = (np.minimum(grey, 1) * 255).astype(np.uint8)
    hsv = inner(cv2.cvtColor(bgr, cv2.COLOR_BGR2HSV), INNER)
    hue, ink = np.ascontiguousarray(hsv[..., 0]), hsv[..., 1] > MIN_SATURATION * 255
    red, orange, gold = (hue_mask(hue, ranges) & ink for ranges in (HUES["red"], (ORANGE,), HUES["yellow"]))
    warm = red | orange | gold
    count, labels, areas = components(
        cv2.morphologyEx(warm.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)))
    size = labels.size
    cups = []
    for i in range(1, count):
        area = int(areas[i])
        if not CUP_AREA[0] <= area / size <= CUP_AREA[1]:
            continue
        blob = labels == i
        x, y, w, h = box(blob)
        inside = (slice(y, y + h), slice(x, x + w))  # all of the blob lies in its bounding box
        blob = blob[inside]
        reds, oranges, golds = (int((m[inside] & blob).sum()) / area for m in (red, orange, gold))
        if reds + oranges >= CUP_RED[0] and reds >= CUP_RED[1] and golds >= CUP_GOLD:
            cups.append(i)
    if len(cups) != 1:
        return False
    other_ink = ink & (hsv[..., 2] > CUP_DARK * 255) & ~warm
    cup = labels == cups[0]
    return _held(cup, (*box(cup), int(areas[cups[0]])), other_ink)


def _held(blob: np.ndarray, stat: tuple[int, int, int, int, int], other_ink: np.ndarray) -> bool:
    """The cup is where a figure holds it (``CUP_END``, ``CUP_SIDE``), no wider than a cup
    (``CUP_WIDTH``), filled like one (``CUP_FILL``), and alone on the paper (``CUP_ALONE``): its
    box and area (``stat``: left, top, width, height, area)."""
    height, width = blob.shape
    x, y, w, h, area = stat
    middle_x, middle_y = (x + w / 2) / width, (y + h / 2) / height
    if (min(middle_y, 1 - middle_y) > CUP_END or not CUP_SIDE[0] <= abs(middle_x - 0.5) <= CUP_SIDE[1]
            or w > CUP_WIDTH * width or area < CUP_FILL * w * h):
        return False
    ring = cv2.dilate(blob.astype(np.uint8), np.ones((RING, RING), np.uint8)).astype(bool) & ~blob
    return float((other_ink & ring).sum()) / max(1, int(ring.sum())) <= CUP_ALONE
