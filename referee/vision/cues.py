"""What a Truco player reads on any Spanish deck, to confirm the bank's guess for a deck it has
never seen: the pip count, the ink colours and the pinta (the breaks in the frame line)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from engine.cards import Card, Suit
from referee.vision.pintas import pinta_suit
from referee.vision.pips import Pips, read_pips
from referee.vision.suits import suits_seen


@dataclass(frozen=True)
class Cues:
    """The cues read on one flattened card."""

    pips: Pips
    pinta: Suit | None


def read_cues(card: np.ndarray) -> Cues:
    """Cues of a flattened card image (best at ``pips.PIP_SIZE``)."""
    return Cues(read_pips(card), pinta_suit(card))


# Pips counted in one hue class rather than all the ink: a sword's hilt comes apart from its blade.
PIP_HUE: dict[Suit, str] = {Suit.ESPADAS: "blue"}


def _pip_card(card: Card, cues: Cues) -> bool:
    """2-7: as many pips as the rank, in colours the suit allows."""
    count = cues.pips.counts[PIP_HUE.get(card.suit, "ink")]
    return count == card.rank and card.suit in suits_seen(cues.pips.shares)


def _ace(card: Card, cues: Cues) -> bool:
    """1: one emblem, and the pinta tells the suit (the emblems' colours vary too much)."""
    return cues.pips.count == 1 and cues.pinta == card.suit


# rank -> what must agree; the figures (10-12) have no rule yet, so only the bank names them.
RULES: dict[int, Callable[[Card, Cues], bool]] = {1: _ace, **{r: _pip_card for r in range(2, 8)}}


def has_rule(card: Card) -> bool:
    return card.rank in RULES


def cues_agree(card: Card, cues: Cues) -> bool:
    """The cues tell the same card."""
    rule = RULES.get(card.rank)
    return rule is not None and rule(card, cues)
