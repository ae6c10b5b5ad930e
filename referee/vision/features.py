"""Descriptors of a flattened card: a colour thumbnail and a gradient histogram, both illumination-normalised."""

from __future__ import annotations

import cv2
import numpy as np

THUMB = (12, 18)
HOG_SIZE = (32, 48)
_HOG = cv2.HOGDescriptor(HOG_SIZE, (16, 16), (8, 8), (8, 8), 9)
COLOUR_WEIGHT = 0.55


def normalise(card: np.ndarray) -> np.ndarray:
    """White-balance and flatten the lighting of a canonical card image (float32, paper ≈ 1).

    The image is divided as h rows of w × 3 values, the per-pixel and per-channel factors spread
    over whole rows: numpy divides row by row far faster than it broadcasts over a last axis of
    three channels."""
    img = np.add(card, 1.0, dtype=np.float32)
    h, w = img.shape[:2]
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    small = cv2.resize(gray, (w // 4, h // 4), interpolation=cv2.INTER_AREA)
    paper = cv2.GaussianBlur(cv2.dilate(small, np.ones((3, 3), np.uint8)), (0, 0), 3)
    lit = cv2.resize(paper, (w, h), interpolation=cv2.INTER_LINEAR)
    rows = img.reshape(h, -1) / cv2.merge((lit, lit, lit)).reshape(h, -1)  # each value thrice
    white = _whites(rows.reshape(h, w, 3)[::3, ::3])
    rows /= np.tile(np.maximum(white, 1e-3), w)
    return np.minimum(rows, 1.2, out=rows).reshape(h, w, 3)  # every value is above 0 already


def _whites(sample: np.ndarray) -> np.ndarray:
    """Each channel's value at 0.9 of its sorted values (the paper's white) in pixels of three
    channels (n × 3, or rows of them), the channels taken apart first: a partition along a row
    of one channel is faster than down a column of three, and picks the same values."""
    channels = np.ascontiguousarray(sample.T).reshape(3, -1)  # pixels in any order: the same values
    k = int(0.9 * channels.shape[1])
    return np.partition(channels, k, axis=1)[:, k]


def gray_mean(img: np.ndarray) -> np.ndarray:
    """The mean of the three channels, summed in the order ``img.mean(axis=2)`` sums them, without
    its slow reduction over a last axis of three."""
    return (img[..., 0] + img[..., 1] + img[..., 2]) / 3


def neutral_paper(norm: np.ndarray) -> np.ndarray:
    """A normalised card with its paper made grey again (in place).  ``normalise`` balances each
    channel on its own: where a robe fills a third of a rey's card (the naipes-libres rey de
    copas), the robe's channel sets that channel's white and the paper comes out tinted (its red
    at 0.4).  The paper is told by its darkest channel, bright on paper and dark on any strong
    colour."""
    sample = norm[::3, ::3].reshape(-1, 3)
    darkest = np.minimum(np.minimum(sample[:, 0], sample[:, 1]), sample[:, 2])
    white = _whites(sample[darkest >= np.partition(darkest, len(darkest) // 2)[len(darkest) // 2]])
    return np.multiply(norm, white.max() / np.maximum(white, 1e-3), out=norm)


def grey_paper(card: np.ndarray) -> np.ndarray:
    """The card white-balanced (``normalise``) with its paper made grey (``neutral_paper``), values
    0-1.2: what the pinta and a figure's cup are read on."""
    return greyed(normalise(card))


def greyed(norm: np.ndarray) -> np.ndarray:
    """``grey_paper`` of a card already white-balanced (``norm``, changed in place)."""
    return np.clip(neutral_paper(norm), 0, 1.2)


def normalised_hsv(card: np.ndarray) -> np.ndarray:
    """The card white-balanced (``normalise``, paper white) in OpenCV's 8-bit HSV."""
    return as_hsv(normalise(card))


def as_hsv(norm: np.ndarray) -> np.ndarray:
    """``normalised_hsv`` of a card already white-balanced (``norm``, left as it is)."""
    return cv2.cvtColor((np.clip(norm, 0, 1) * 255).astype(np.uint8), cv2.COLOR_BGR2HSV)


def inner(img: np.ndarray, margins: tuple[float, float]) -> np.ndarray:
    """The image without ``margins`` (shares of the width and of the height) at each side."""
    h, w = img.shape[:2]
    mx, my = int(margins[0] * w), int(margins[1] * h)
    return img[my:h - my, mx:w - mx]


def _unit(v: np.ndarray) -> np.ndarray:
    v = v - v.mean()
    return v / (np.linalg.norm(v) + 1e-6)


def describe(card: np.ndarray) -> np.ndarray:
    """One unit-length descriptor for a canonical (CANON_W × CANON_H) BGR card image."""
    norm = normalise(card)
    thumb = cv2.resize(norm, THUMB, interpolation=cv2.INTER_AREA)
    gray = cv2.resize(gray_mean(norm), HOG_SIZE, interpolation=cv2.INTER_AREA)
    hog = np.asarray(_HOG.compute(np.clip(gray * 200, 0, 255).astype(np.uint8))).ravel()
    vec = np.concatenate([COLOUR_WEIGHT * _unit(thumb.ravel()), (1 - COLOUR_WEIGHT) * _unit(hog)])
    return (vec / (np.linalg.norm(vec) + 1e-6)).astype(np.float32)
