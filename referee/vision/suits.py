"""Which suits a card's ink colours allow: oros yellow coins, copas red and yellow cups, espadas
blue blades, bastos green (or red) clubs.  A check, not a classifier: it may allow none or several.
And whether a frame has colour at all (``colourless``): a grey camera's frame allows no suit."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from engine.cards import Suit

Shares = dict[str, float]

# suit -> test on the ink's hue shares (see ``pips.HUES``); loose enough for old and new decks.
# A cup's red counts with the orange (``pips.ORANGE``) that its red and gold make blurred.
SUIT_COLOURS: dict[Suit, Callable[[Shares], bool]] = {
    Suit.ESPADAS: lambda s: s["blue"] >= 0.15,
    Suit.OROS: lambda s: s["yellow"] >= 0.8 and s["blue"] < 0.08 and s["green"] < 0.08,
    Suit.COPAS: lambda s: s["red"] + s.get("orange", 0.0) >= 0.08 and s["blue"] < 0.1 and s["green"] < 0.1,
    Suit.BASTOS: lambda s: (s["green"] >= 0.2 or s["red"] >= 0.22) and s["blue"] < 0.1,
}


def suits_seen(shares: Shares) -> frozenset[Suit]:
    """The suits whose colours match the ink's hue shares."""
    return frozenset(suit for suit, test in SUIT_COLOURS.items() if test(shares))


# A frame with no colour to speak of: a camera in night mode, infrared or a grey webcam sends
# three equal channels (give or take JPEG and a uniform tint).  Measured on 200 generated scenes
# of both decks: every frame with a card had at least 0.9% of its sampled pixels spread this far
# across the channels once the frame's cast was taken out (a card's ink alone does it), the same
# frames made grey, tinted, JPEG-compressed and noisy 0.1% at most.
SAMPLES = 5000          # pixels looked at, about: the frame is read on a sparse grid
COLOUR_SPREAD = 40      # a coloured pixel: its channels (0-255) this far apart, the cast taken out
COLOUR_SHARE = 0.003    # a frame with colour: at least this share of the pixels looked at


def colourless(frame: np.ndarray) -> bool:
    """The frame (BGR, or one channel) has no colour to speak of (``COLOUR_SHARE``): its
    colour cues (ink colours, a horse's brown, a coin's gold, the ink over a pinta's break) would
    read nothing, or read its absence as a witness."""
    if frame.ndim < 3 or frame.shape[2] < 3:
        return True
    h, w = frame.shape[:2]
    step = max(1, int(np.sqrt(h * w / SAMPLES)))
    grid = frame[::step, ::step]
    if not grid.size:
        return True
    channels = [grid[..., c].astype(np.float32) for c in range(3)]  # apart: numpy is slow
    means = [float(c.mean()) for c in channels]                      # over a last axis of 3
    for channel, mean in zip(channels, means):
        channel *= sum(means) / 3 / max(mean, 1.0)  # a uniform tint is no colour
    spread = np.maximum(np.maximum(*channels[:2]), channels[2]) - np.minimum(
        np.minimum(*channels[:2]), channels[2])
    return float(np.count_nonzero(spread > COLOUR_SPREAD)) < COLOUR_SHARE * spread.size
