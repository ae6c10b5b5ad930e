"""Card outlines from a mask's regions: each region fitted with four corners, card outlines
guessed from its corners, and the checks that an outline is card-shaped."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import cv2
import numpy as np

from referee.vision.geometry import (
    corner_guesses,
    fit_quads,
    order_corners,
    refine_quads,
    side_lengths,
)

if TYPE_CHECKING:
    from referee.vision.detect import DetectorSettings

HOLE_WEIGHT = 0.85


def _trimmed(contour: np.ndarray, area: float) -> np.ndarray | None:
    """The region opened with a disc ~45% of a card wide: fingers and thin overlaps fall off.

    Done on a shrunken copy (the disc is then 9 px): only the rough shape is needed here."""
    x, y, w, h = cv2.boundingRect(contour)
    k = 0.45 * np.sqrt(area / 1.55)
    f = min(1.0, 9.0 / k)
    pad = 6
    roi = np.zeros((int(h * f) + 2 * pad, int(w * f) + 2 * pad), np.uint8)
    small = ((contour - [x, y]) * f + pad).astype(np.int32)
    cv2.drawContours(roi, [small], -1, 255, cv2.FILLED)
    disc = max(3, int(k * f)) | 1
    disc_shape = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (disc, disc))
    opened = cv2.morphologyEx(roi, cv2.MORPH_OPEN, disc_shape)
    found, _ = cv2.findContours(opened, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not found:
        return None
    return ((max(found, key=cv2.contourArea) - pad) / f + [x, y]).astype(np.float32)


def region_quads(mask: np.ndarray, settings: DetectorSettings) -> list[tuple[np.ndarray, float]]:
    """Candidate quads from the outer outlines of a mask's regions, scored by fill² × √area.

    Each region is fitted with four corners twice (its outline trimmed of fingers, and as it is),
    and where neither fills it well, card outlines are guessed from its corners too
    (``corner_guesses``); the sides of all the regions' fits, and then of all the guesses, are
    refined at once (``refine_quads``), the outlines kept in each region's order."""
    h, w = mask.shape
    frame_area = float(h * w)
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE)
    parents = hierarchy[0][:, 3].tolist() if hierarchy is not None else []
    shortest = fewest_points(settings.min_area * frame_area)
    regions = []  # (contour, area, weight, its outlines to fit)
    for contour, parent in zip(contours, parents):
        if len(contour) < shortest:  # too small for a card, its area not even asked
            continue
        # A hole's outline runs just outside a card's edge (and its shadow): trusted a bit less.
        weight = HOLE_WEIGHT if parent >= 0 else 1.0
        area = cv2.contourArea(contour)
        if not settings.min_area * frame_area <= area <= settings.max_area * frame_area:
            continue
        if _square_cell(contour, area, settings):
            continue
        region = _trimmed(contour, area)
        outlines = ([(region, contour)] if region is not None else []) + [(contour, contour)]
        regions.append((contour, area, weight, outlines))
    fits = iter(fit_quads([outline for *_, outlines in regions for outline in outlines]))
    found: list[list[tuple[np.ndarray, float]]] = []
    guessed: list[list[np.ndarray]] = []
    for contour, area, weight, outlines in regions:
        found.append([])
        best_fill = 0.0
        for quad in (next(fits) for _ in outlines):
            if quad is None or not _plausible(quad, area, settings, (w, h)):
                continue
            fill = min(1.0, area / cv2.contourArea(quad))
            best_fill = max(best_fill, fill)
            found[-1].append((quad, weight * fill ** 2 * np.sqrt(cv2.contourArea(quad))))
        # maybe several cards in one region
        guessed.append(corner_guesses(contour, min_area=settings.min_area * frame_area)
                       if best_fill < 0.9 else [])
    refined = iter(refine_quads([(contour.reshape(-1, 2).astype(np.float32), quad)
                                 for (contour, *_), guesses in zip(regions, guessed)
                                 for quad in guesses]))
    for (_, _, weight, _), quads, guesses in zip(regions, found, guessed):
        corner = [order_corners(next(refined)) for _ in guesses]
        quads += [(q, 0.5 * weight * np.sqrt(cv2.contourArea(q))) for q in corner
                  if _plausible(q, cv2.contourArea(q), settings, (w, h))]
    return [quad for quads in found for quad in quads]


def fewest_points(area: float) -> float:
    """The fewest points an outline (``cv2.CHAIN_APPROX_NONE``) needs to enclose ``area``: each
    step goes to a neighbouring pixel, at most √2 long, and no outline encloses more than a circle
    of its length, (√2 n)² / 4π.  Of the 630 or so outlines of a latency frame, some 50 are
    long enough to be asked their area."""
    return math.sqrt(2 * math.pi * area)


def _square_cell(contour: np.ndarray, area: float, settings: DetectorSettings) -> bool:
    """A solid square region: a check of a tablecloth, a tile.  A card, even tilted 40°, is
    longer than wide.  On the latency benchmark's frames squares were 235 of the 607 card-sized
    regions the edges enclose (checks of the cloth); leaving them out changed 5 of the 6,767 easy
    cards of seeds 1-8 (three more left unnamed, two fewer: docs/camera.md)."""
    (_, _), (w, h), _ = cv2.minAreaRect(contour)
    return max(w, h) < settings.square_cell * min(w, h) and area > settings.square_fill * w * h


def _plausible(quad: np.ndarray, area: float, settings: DetectorSettings,
               size: tuple[int, int]) -> bool:
    """A region's quad: mostly filled by the region, and card-shaped."""
    quad_area = cv2.contourArea(quad)
    if quad_area <= 0 or area / quad_area < settings.min_fill:
        return False
    return shape_ok(quad, settings, (size[1], size[0]))


def shape_ok(quad: np.ndarray, settings: DetectorSettings, shape: tuple[int, ...]) -> bool:
    """Card-shaped: not too small nor too big (an outline guessed from a region's corner or from
    straight edges may be smaller than the region it came from: one check of a cloth), long/short
    sides in range, opposite sides alike."""
    quad_area = cv2.contourArea(quad)
    frame_area = shape[0] * shape[1]
    smallest, largest = settings.min_area * frame_area, settings.max_area * frame_area
    if quad_area <= 0 or not smallest <= quad_area <= largest:
        return False
    sides = side_lengths(quad)
    short, long = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
    if min(sides) < 8 or not settings.min_aspect <= long / short <= settings.max_aspect:
        return False
    return bool(max(sides[0], sides[2]) / min(sides[0], sides[2]) < 1.8
                and max(sides[1], sides[3]) / min(sides[1], sides[3]) < 1.8)
