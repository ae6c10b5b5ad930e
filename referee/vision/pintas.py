"""The pinta: breaks in the frame line near a card's short sides, which tell the suit on Spanish
decks (oros none, copas one, espadas two, bastos three), whatever the artwork."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import cv2
import numpy as np

from engine.cards import Suit
from referee.vision.features import gray_mean, grey_paper

BAND = (0.02, 0.14)     # rows searched for the line, as shares of the height from the card's end
SPAN = (0.08, 0.92)     # columns the line may run over, as shares of the width
STEPS = (2, 4)          # a line pixel is darker than the pixels this many rows above and below
                        # (a sharp line is thin; if none is read, a blurred one is wider) ...
RIDGE = 0.05            # ... by at least this (paper ≈ 1): edges and shadows are steps, not ridges
MIN_LINE = 0.3          # the line's row has at least this share of line pixels
MIN_BREAK = 0.07        # a break is at least this share of the card width ...
MAX_BREAK = 0.45        # ... and at most this share of the line's span (the widest, naipes-libres
                        # copas', is 0.32): a longer gap is a drawing's hem over the line
INK_SATURATION = 0.35   # colour inside a break means a drawing over the line: no reading ...
INK_ROWS = 2            # ... on the line's rows (a rey's crown just above the line is not over it)
# Where the breaks are, as shares of the line's span (the same on both decks' faces).
PINTAS: dict[Suit, tuple[float, ...]] = {
    Suit.OROS: (), Suit.COPAS: (0.5,), Suit.ESPADAS: (0.3, 0.7), Suit.BASTOS: (0.21, 0.5, 0.79)}
PLACE = 0.06            # a break lies at most this far from its place
SURE_ALONE = frozenset({Suit.ESPADAS, Suit.BASTOS})  # read at one end, never by chance
# The pintas of breaks: a line with no break (oros) read at both ends is also what the edges of
# half a card show (the top half of an 1878 6 of copas, outlined alone, read "oros" at both ends).
BREAK_PINTAS = frozenset({Suit.COPAS, Suit.ESPADAS, Suit.BASTOS})
# A faint line (a card seen small, blurred, washed out) is found on the rows' median profile
# rather than pixel by pixel: the median row dips below the rows this far above and below ...
FAINT_STEPS = (2, 3, 5)
MIN_DEPTH = 0.02        # ... by at least this (paper ≈ 1); a drawing over part of the row
                        # does not move the median ...
FAINT_SHARE = 0.5       # ... and a column is line where it dips at least this share of that


def _gaps(line: np.ndarray) -> Iterator[tuple[int, int]]:
    """The gaps between the first and last line pixel: first column, and the column after."""
    xs = np.nonzero(line)[0]
    x = int(xs[0])
    while x < xs[-1]:
        if line[x]:
            x += 1
            continue
        end = x + int(np.argmax(line[x:]))
        yield x, end
        x = end


def _breaks(line: np.ndarray, ink: np.ndarray, min_break: float) -> list[float] | None:
    """Middles of the breaks between the first and last line pixel, as shares of the line's
    length; None when colour fills one or one is too long to be a break."""
    found = []
    for x, end in _gaps(line):
        if end - x >= min_break:
            if end - x > MAX_BREAK * len(line) or ink[x + 2:end - 2].any():
                return None
            found.append((x + end) / 2 / len(line))
    return found


def _suit(breaks: list[float]) -> Suit | None:
    """The suit whose breaks lie where these are."""
    return next((suit for suit, places in PINTAS.items() if len(places) == len(breaks)
                 and all(abs(b - p) <= PLACE for b, p in zip(breaks, places))), None)


@dataclass(frozen=True)
class _End:
    """The band near one end of a card where its frame line runs (``BAND``, ``SPAN``): in colour,
    and as a grey level smoothed along the line; and the card's width.  Each end of a card is
    read up to six ways (two steps and a faint line, then again with ``covered``) on one band."""

    region: np.ndarray
    gray: np.ndarray
    width: int


def _near_end(norm: np.ndarray) -> _End:
    """The band at the top of a card image."""
    h, w = norm.shape[:2]
    return _band(norm[int(BAND[0] * h):int(BAND[1] * h), int(SPAN[0] * w):int(SPAN[1] * w)], w)


def _far_end(norm: np.ndarray) -> _End:
    """The band at the top of the card turned half round (its other end), the same pixels as
    ``_near_end(norm[::-1, ::-1])`` without turning all of the card."""
    h, w = norm.shape[:2]
    rows = slice(h - int(BAND[1] * h), h - int(BAND[0] * h))
    cols = slice(w - int(SPAN[1] * w), w - int(SPAN[0] * w))
    return _band(np.ascontiguousarray(norm[rows, cols][::-1, ::-1]), w)


def _band(region: np.ndarray, width: int) -> _End:
    """The band ``region`` of a card ``width`` pixels wide, with its smoothed grey level."""
    return _End(region, cv2.GaussianBlur(gray_mean(region).astype(np.float32), (3, 1), 0), width)


def _read_line(end: _End, covered: bool = False) -> Suit | None:
    """The suit from the frame line at one end of a normalised card image, if it can be read.

    A sharp line first; if none is read, a blurred (wider) one, then a faint one: those two may
    show breaks but not tell oros (no breaks), which any dark row would.  With ``covered``, a
    line a drawing crosses is also read from the part of it in sight (``_partly_covered``)."""
    suit = _read_end(end, STEPS[0], covered)
    if suit is None:
        suit = _read_end(end, STEPS[1], covered)
        if suit is None:
            suit = _read_faint(end, covered)
        return None if suit == Suit.OROS else suit
    return suit


def _read_end(end: _End, step: int, covered: bool) -> Suit | None:
    gray = end.gray
    ridge = np.minimum(gray[:-2 * step], gray[2 * step:]) - gray[step:-step]
    dark = ridge > RIDGE
    counts = dark.sum(axis=1)
    rows = np.nonzero(counts >= MIN_LINE * dark.shape[1])[0]
    if not len(rows):
        return None
    row = int(rows[-1])  # the innermost line: the card's own edge may show above it
    while row > 0 and counts[row - 1] > counts[row]:
        row -= 1
    line = dark[max(0, row - 1):row + 2].any(axis=0)
    return _suit_of_line(end.region, line, row + step, end.width, covered)


def _read_faint(end: _End, covered: bool) -> Suit | None:
    """The suit from a line too faint for the pixel ridge: the innermost row where the median
    profile dips, its columns line where they dip with it (narrowest dip first)."""
    gray = end.gray
    profile = np.median(gray, axis=1)
    for step in FAINT_STEPS:
        depth = np.full(len(profile), -1.0)
        depth[step:-step] = np.minimum(profile[:-2 * step], profile[2 * step:]) - profile[step:-step]
        peaks = [r for r in range(1, len(depth) - 1)
                 if depth[r] >= MIN_DEPTH and depth[r] >= max(depth[r - 1], depth[r + 1])]
        if not peaks:
            continue
        row = peaks[-1]
        below = np.minimum(gray[row - step], gray[min(len(gray) - 1, row + step)])
        line = below - gray[max(0, row - 1):row + 2].min(axis=0) > FAINT_SHARE * depth[row]
        if line.mean() >= MIN_LINE:
            return _suit_of_line(end.region, line, row, end.width, covered)
    return None


def _suit_of_line(region: np.ndarray, line: np.ndarray, row: int, width: int,
                  covered: bool = False) -> Suit | None:
    """The suit whose breaks this line shows, unless colour near ``row`` fills a break (then,
    with ``covered``, the one suit the part of the line in sight allows, ``_partly_covered``)."""
    near = region[max(0, row - INK_ROWS):row + INK_ROWS + 1]
    saturation = (near.max(axis=2) - near.min(axis=2)) / (near.max(axis=2) + 1e-3)
    ink = (saturation > INK_SATURATION).any(axis=0)
    breaks = _breaks(line, ink, MIN_BREAK * width)
    if breaks is not None:
        return _suit(breaks)
    return _partly_covered(line, ink, MIN_BREAK * width) if covered else None


def _partly_covered(line: np.ndarray, ink: np.ndarray, min_break: float) -> Suit | None:
    """The one suit of breaks whose places agree with the part of the line in sight: every break
    seen clear of colour lies at one of its places, and each of its places shows a break or lies
    under the drawing (a gap with colour in it, or too long to be a break) or past the line's
    ends.  Oros, no break at all, is never told: its line under a drawing is any suit's."""
    xs = np.nonzero(line)[0]
    n = len(line)
    clear, hidden = [], [(0.0, xs[0] / n), (xs[-1] / n, 1.0)]
    for x, end in _gaps(line):
        if ink[x:end].any() or end - x > MAX_BREAK * n:
            hidden.append((x / n, end / n))
        elif end - x >= min_break:
            clear.append((x + end) / 2 / n)
    if not clear:
        return None
    suits = [suit for suit in BREAK_PINTAS if _allows(PINTAS[suit], clear, hidden)]
    return suits[0] if len(suits) == 1 else None


def _allows(places: tuple[float, ...], clear: list[float],
            hidden: list[tuple[float, float]]) -> bool:
    """Breaks at these places could show as ``clear`` with the spans ``hidden`` out of sight."""
    def near(a: float, b: float) -> bool:
        return abs(a - b) <= PLACE
    return (all(any(near(b, p) for p in places) for b in clear)
            and all(any(near(b, p) for b in clear) or any(lo <= p <= hi for lo, hi in hidden)
                    for p in places))


def read_pintas(card: np.ndarray) -> tuple[Suit | None, Suit | None]:
    """The suit read at each end of a flattened card (best at ``pips.PIP_SIZE``)."""
    return pintas_on(grey_paper(card))


def pintas_on(norm: np.ndarray) -> tuple[Suit | None, Suit | None]:
    """``read_pintas`` on the card with its paper made grey (``features.grey_paper``).

    An end whose line a drawing crosses is read from the part in sight (``_partly_covered``)
    only where the other end then reads the same suit: alone, what is in sight of one line is
    too little a witness."""
    near, far = _near_end(norm), _far_end(norm)
    ends = _read_line(near), _read_line(far)
    if None not in ends:
        return ends
    partly = _read_line(near, covered=True), _read_line(far, covered=True)
    return partly if partly[0] is not None and partly[0] == partly[1] else ends


def ends_read(card: np.ndarray) -> int:
    """At how many ends of a flattened card a pinta is read (0-2; they may not agree)."""
    return sum(suit is not None for suit in read_pintas(card))


def agreed(ends: tuple[Suit | None, Suit | None]) -> Suit | None:
    """The suit if the ends that were read agree on one, else None."""
    suits = {s for s in ends if s is not None}
    return suits.pop() if len(suits) == 1 else None
