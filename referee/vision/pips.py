"""Pips of a flattened card: how many coloured blobs it shows and which colours its ink has.

Both are read the same way on any Spanish deck (the pip layouts and suit colours are shared), so
they can check a card named by a bank built from another deck."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from referee.vision.features import inner, normalised_hsv

PIP_SIZE = (192, 296)  # flattened card for pip reading: twice the canonical size
INNER = (0.10, 0.08)   # share of the width and height left out at each side (numerals, border)
MIN_SATURATION = 0.3   # ink: saturated pixels (the paper, numerals and frame lines are not)
MIN_BLOB = 0.25        # a pip is at least this share of the largest blob's area ...
MIN_TYPICAL = 0.4      # ... and of the median one's: the pips of a card are one emblem repeated,
                       # a maker's name or an ornament between them is smaller (the 1878 4 of
                       # copas prints "Heraclio Fournier" in red, a quarter of a cup's area)
MIDDLE = (0.35, 0.4)   # the middle of the card: the inner area without these shares of its
                       # width and height at each side, where a 5 has a pip and a 4 none
CORE = 0.3             # a blob's core: farther from its edge than this share of its thickest point
MIN_PART = 0.3         # a core part counts if at least this share of the largest part of the blob
EMBLEM_GAP = 7         # ink closer than this (pixels at ``PIP_SIZE``) is one emblem: an ace's
                       # ribbons, hilt and blade are one drawing

# Hue classes of the ink, OpenCV hue (0-180) ranges.
HUES: dict[str, tuple[tuple[int, int], ...]] = {
    "red": ((0, 10), (165, 180)),
    "yellow": ((14, 38),),
    "green": ((38, 85),),
    "blue": ((90, 135),),
}
# Hues between red and yellow, whose share alone is read: blurred, the red and the gold of the
# 1878 cups run together there (``suits.SUIT_COLOURS``).
ORANGE = (10, 14)


@dataclass(frozen=True)
class Pips:
    """Blob counts (of all the ink, ``"ink"``, and of each hue class), the share of the ink in
    each hue class (``HUES``) and in the orange between red and yellow (``"orange"``,
    ``ORANGE``), the share of ink in the middle of the card (``MIDDLE``), the
    largest emblem: its share of the ink and its height as a share of the inner card's
    (``emblem``), and the share of the middle in blue ink (a blade across it)."""

    counts: dict[str, int]
    shares: dict[str, float]
    middle: float = 0.0
    emblem: tuple[float, float] = (0.0, 0.0)
    middle_blue: float = 0.0

    @property
    def count(self) -> int:
        return self.counts["ink"]


def components(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """The blobs of an 8-bit mask as ``cv2.connectedComponentsWithStats`` finds them (8-connected,
    the background label 0): how many labels, the labels and each label's area.  Its other
    statistics took it most of its time (on a card's masks, five times what labelling takes):
    the same labels come from ``cv2.connectedComponents``, the areas are counted from them, and
    a blob's box is asked only where it is needed (``box``)."""
    count, labels = cv2.connectedComponents(mask)
    return count, labels, np.bincount(labels.ravel(), minlength=count)


def box(blob: np.ndarray) -> tuple[int, int, int, int]:
    """Left, top, width and height of a blob (a boolean mask), as ``cv2.CC_STAT_LEFT``,
    ``CC_STAT_TOP``, ``CC_STAT_WIDTH`` and ``CC_STAT_HEIGHT`` give them."""
    x, y, w, h = cv2.boundingRect(blob.view(np.uint8))
    return x, y, w, h


def _parts(blob: np.ndarray, distance: np.ndarray) -> int:
    """Pips in one blob: touching pips (the 7 of oros) meet at a neck, which the core drops."""
    core = (blob & (distance > CORE * distance[blob].max())).astype(np.uint8)
    areas = components(core)[2][1:]
    return max(1, int((areas > MIN_PART * areas.max()).sum())) if len(areas) else 1


def _count(ink: np.ndarray) -> int:
    """Pips: blobs of ink at least ``MIN_BLOB`` of the largest one and ``MIN_TYPICAL`` of the
    median one (small ornaments and text drop out), each split where its core comes apart."""
    if not ink.any():  # no ink of this colour (a third of the colours of a card): no pips
        return 0
    mask = cv2.morphologyEx(ink.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    _, labels, areas = components(mask)
    areas = areas[1:]
    if not len(areas):
        return 0
    big = areas > MIN_BLOB * areas.max()
    big &= areas >= MIN_TYPICAL * np.median(areas[big])
    distance = cv2.distanceTransform(mask, cv2.DIST_L2, 3)
    return sum(_parts(*_within_box(labels == i, distance)) for i in np.nonzero(big)[0] + 1)


def _within_box(blob: np.ndarray, distance: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A blob and the distances, cut to the blob's bounding box (all of the blob is there)."""
    x, y, w, h = box(blob)
    inside = (slice(y, y + h), slice(x, x + w))
    return blob[inside], distance[inside]


def emblem(ink: np.ndarray) -> tuple[float, float]:
    """The largest drawing on the card, its gaps under ``EMBLEM_GAP`` closed: its share of the
    ink and its height as a share of the image's.  An ace's one emblem holds most of the ink;
    the pips of a 2-7 share it out."""
    mask = cv2.morphologyEx(ink.astype(np.uint8), cv2.MORPH_CLOSE,
                            np.ones((EMBLEM_GAP, EMBLEM_GAP), np.uint8))
    count, labels, areas = components(mask)
    total = int(ink.sum())
    if count < 2 or not total:
        return 0.0, 0.0
    largest = labels == 1 + int(np.argmax(areas[1:]))
    share = float(ink[largest].sum()) / total
    return share, float(box(largest)[3]) / ink.shape[0]


def hue_mask(hue: np.ndarray, ranges: tuple[tuple[int, int], ...]) -> np.ndarray:
    """Where the hue (OpenCV, 0-180, 8-bit) lies in one of these ranges: one table look-up."""
    return cv2.LUT(hue, _hue_table(ranges)).view(bool)


@functools.cache
def _hue_table(ranges: tuple[tuple[int, int], ...]) -> np.ndarray:
    """For each 8-bit hue, 1 if it lies in one of the ranges (``lo <= hue < hi``), else 0."""
    table = np.zeros(256, np.uint8)
    for lo, hi in ranges:
        table[lo:hi] = 1
    return table


def read_pips(card: np.ndarray) -> Pips:
    """Pips of a flattened card image (best at ``PIP_SIZE``), white-balanced first."""
    return pips_in(normalised_hsv(card))


def pips_in(hsv: np.ndarray) -> Pips:
    """``read_pips`` of the card white-balanced, in HSV (``features.normalised_hsv``)."""
    hsv = inner(hsv, INNER)
    hue = np.ascontiguousarray(hsv[..., 0])  # looked up five times (``hue_mask``)
    ink = hsv[..., 1] > MIN_SATURATION * 255
    total = float(ink.sum()) + 1.0
    shares, counts, classes = {}, {"ink": _count(ink)}, {}
    for name, ranges in HUES.items():
        classes[name] = hue_mask(hue, ranges) & ink
        shares[name] = float(classes[name].sum()) / total
        counts[name] = _count(classes[name])
    shares["orange"] = float((hue_mask(hue, (ORANGE,)) & ink).sum()) / total
    return Pips(counts, shares, float(inner(ink, MIDDLE).mean()), emblem(ink),
                float(inner(classes["blue"], MIDDLE).mean()))
