"""Which suits a card's ink colours allow: oros yellow coins, copas red and yellow cups, espadas
blue blades, bastos green (or red) clubs.  A check, not a classifier: it may allow none or several."""

from __future__ import annotations

from collections.abc import Callable

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
