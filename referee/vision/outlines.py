"""Which outlines are cards: card-shaped, the best of those overlapping, no parts, one per card."""

from __future__ import annotations

import cv2
import numpy as np

from referee.vision.overlap import apart, bounds, keep_best, shares
from referee.vision.proportions import has_card_proportions
from referee.vision.reading import Reading

PART_MARGIN = 0.2  # a part goes if the whole looks at most this much less like a card ...
PART_AREA = 0.5    # ... or, however the whole looks, if it is less than this share of a whole
                   # with a card's sides
SHAPE_TOLERANCE = 0.15  # a far-from-the-bank 1-7 is named by its cues only on a card-shaped outline
SAME_CARD = 0.7  # two outlines each covering this much of the other are one card's (``same_card``)


def best_of_overlapping(readings: list[Reading]) -> list[Reading]:
    """The best of each group of overlapping outlines (``keep_best``)."""
    keep = keep_best([r.corners for r in readings], [r.similarity for r in readings])
    return [readings[i] for i in sorted(keep)]


def one_per_card(readings: list[Reading]) -> list[Reading]:
    """The readings, one per card: of two read twice (``read_twice``), the named one, or the
    surer, stays.  Two outlines the finder kept apart may be snapped onto the same card's
    edges, and the card was then read twice: a 2 of espadas named twice counted as one card
    named where there was none."""
    kept: list[Reading] = []
    for reading in sorted(readings, key=lambda r: (r.card is None, -r.confidence, -r.similarity)):
        if not any(read_twice(reading, other) for other in kept):
            kept.append(reading)
    chosen = {id(r) for r in kept}
    return [r for r in readings if id(r) in chosen]


def read_twice(a: Reading, b: Reading) -> bool:
    """Two readings of one card: their outlines, as best known, are one card's (``same_card``),
    or they name the same card and one lies inside the other (``SAME_CARD`` of it).  A deck
    holds each card once: the middle of an 1878 ace of bastos, read on its own, was named the
    ace of bastos again, as well as the whole card."""
    if a.card is not None and a.card == b.card:
        return max(shares(a.outline, b.outline)) >= SAME_CARD
    return same_card(a.outline, b.outline)


def same_card(a: np.ndarray, b: np.ndarray) -> bool:
    """Two outlines of one card: each covers at least ``SAME_CARD`` of the other (a part of a
    card, two coins of a 4 read as a 2, is covered by the card but does not cover it)."""
    return min(shares(a, b)) >= SAME_CARD


def card_shaped(corners: np.ndarray) -> bool:
    """The outline, its perspective undone, has a card's sides (within ``SHAPE_TOLERANCE``).

    An outline the bank finds far from every card may hold part of a card, or a card and a strip
    of table: the pips counted on it are then the wrong ones (a check of the cloth as a 7th sword)."""
    return has_card_proportions(corners, SHAPE_TOLERANCE)


def drop_parts(readings: list[Reading]) -> list[Reading]:
    """Drop outlines lying inside a larger card-like outline that looks nearly as much like a
    card, or inside a card-shaped one (``card_shaped``) at least twice their area, however it
    looks: part of a card can look like another card (two coins of the 5 of oros look like the
    2; the two coins at one end of an 1878 4 of oros looked like another deck's 2 with full
    confidence, while the whole 4 looked like no card of that deck), but a card never holds a
    card.  The larger one stays, read or abstained.

    An outline is never asked whether it lies in one no larger than itself: ``shares`` divides
    what the two have in common by each one's area (at least 1), so its share would be at most
    the other's, and a part's share is above 0.8 only where the whole's is under it (``_holds``)."""
    boxes = bounds([r.corners for r in readings])
    areas = [max(1.0, float(cv2.contourArea(r.corners))) for r in readings]
    return [r for r, box, area in zip(readings, boxes, areas)
            if not any(w is not r and area < warea and not apart(box, wbox) and _holds(w, r)
                       for w, wbox, warea in zip(readings, boxes, areas))]


def _holds(whole: Reading, part: Reading) -> bool:
    """``part`` lies inside ``whole`` and is a part of it (``drop_parts``)."""
    inside, around = shares(part.corners, whole.corners)
    if inside <= 0.8 or around >= 0.8:
        return False
    if whole.similarity >= part.similarity - PART_MARGIN:
        return True
    small = cv2.contourArea(part.corners.astype(np.float32)) < PART_AREA * cv2.contourArea(
        whole.corners.astype(np.float32))
    return small and card_shaped(whole.corners)
