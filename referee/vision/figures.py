"""Which figure a card is, from its picture, on any Spanish deck: the sota stands alone (narrow
all along), the caballo is a rider on a horse (wide in the middle, narrow at both ends, and much
of the picture in the horse's dull brown), the rey wears a long robe (wide in the middle and down
to one end, and hardly any brown).

The card may lie either way up, so only the middle band and the fuller of the two end bands count.
A check of the bank's guessed rank, not a classifier: in between it tells nothing."""

from __future__ import annotations

import cv2
import numpy as np

from referee.vision.features import inner, normalised_hsv

SIZE = (96, 148)        # the card is read small: the shape of the picture, not its details
INNER = (0.12, 0.10)    # share of the width and height left out at each side (numerals, border)
MIN_SATURATION = 0.3    # picture: saturated pixels ...
MAX_VALUE = 0.45        # ... or dark ones (outlines, hair)
MIDDLE = (0.35, 0.65)   # the middle band, as shares of the inner height
END = 0.25              # each end band, as a share of the inner height
NARROW = 0.48           # sota: middle band filled less than this ...
SOTA_END = 0.55         # ... and neither end more than this
WIDE = 0.55             # caballo and rey: middle band filled more than this
CABALLO_END = 0.85      # caballo: fuller end below this share of the middle
REY_END = 0.8           # rey: fuller end above this share of the middle

PAPER = (0.15, 0.8)     # paper: saturation below the first and value above the second
BROWN_HUE = (8, 20)     # a horse's coat: dull orange-brown (OpenCV hue) ...
BROWN_SATURATION = (0.15, 0.8)  # ... neither grey nor a bright orange ...
BROWN_VALUE = 0.2       # ... nor black
HORSE = 0.3             # caballo: at least this share of the non-paper pixels is brown; rey: less


def shape(card: np.ndarray) -> tuple[float, float]:
    """Share of picture pixels in the middle band and in the fuller end band."""
    hsv = inner(normalised_hsv(cv2.resize(card, SIZE, interpolation=cv2.INTER_AREA)), INNER)
    picture = (hsv[..., 1] > MIN_SATURATION * 255) | (hsv[..., 2] < MAX_VALUE * 255)
    n = picture.shape[0]
    middle = float(picture[int(MIDDLE[0] * n):int(MIDDLE[1] * n)].mean())
    end = max(float(picture[:int(END * n)].mean()), float(picture[n - int(END * n):].mean()))
    return middle, end


def brown_share(card: np.ndarray) -> float:
    """Share of the picture (the pixels that are not paper) in a horse's dull brown."""
    hsv = inner(normalised_hsv(cv2.resize(card, SIZE, interpolation=cv2.INTER_AREA)), INNER)
    hue, sat, val = hsv[..., 0], hsv[..., 1] / 255.0, hsv[..., 2] / 255.0
    paper = (sat < PAPER[0]) & (val > PAPER[1])
    brown = ((hue >= BROWN_HUE[0]) & (hue <= BROWN_HUE[1]) & (sat > BROWN_SATURATION[0])
             & (sat < BROWN_SATURATION[1]) & (val > BROWN_VALUE))
    return float(brown.sum()) / max(1, int((~paper).sum()))


def figure_rank(card: np.ndarray) -> int | None:
    """10 (sota), 11 (caballo) or 12 (rey) if the picture is clearly one, else None."""
    middle, end = shape(card)
    if middle < NARROW and end < SOTA_END:
        return 10
    if middle <= WIDE:
        return None
    horse = brown_share(card) >= HORSE
    if horse and end < CABALLO_END * middle:
        return 11
    if not horse and end > REY_END * middle:
        return 12
    return None
