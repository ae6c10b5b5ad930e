"""Aces named by their cues across decks: one emblem, or a middle filled as an ace's is."""

from __future__ import annotations

import numpy as np

from engine.cards import Card, Suit
from referee.vision.cues import Cues
from referee.vision.figures import PICTURES, shape

# The bank takes caballos and reyes for aces too, but their pictures are wide in the middle (a
# horse, a robe: ``figures.PICTURES``) where an ace's emblem is not.  On the held-out scenes of
# seeds 2-4 the aces named this way measured 0.12-0.48, the figures the bank guessed as aces with
# a sure pinta 0.66 or more.  A sota is narrow too, but the bank took none for an ace there.
NARROW = PICTURES[10][0][1]


def narrow_picture(card: np.ndarray) -> bool:
    """The picture of a flattened card is narrow in the middle, as an ace's is (``NARROW``)."""
    return shape(card)[0] < NARROW


# An ace is one emblem.  Across decks the bank takes the 1878 ace of espadas (a sword hung with
# ribbons) for a 3 of bastos, and the naipes-libres one for an ace of bastos or a 4; but its
# drawing holds most of the ink, runs most of the card's height and through its middle.  On the
# held-out scenes of seeds 1-4, among the readings left unnamed with a sure pinta and a narrow
# picture, an emblem of 0.70 of the ink or more was an ace of espadas 40 times and nothing else;
# the nearest other cards were 1878 5-7s of bastos whose clubs touch (0.61-0.67).  A coin or a
# cup fills an ace's middle, and a figure's too: the middle's ink share is bounded on both sides.
ACE_EMBLEM = 0.7             # share of the ink in the largest drawing
ACE_HEIGHT = 0.55            # its height, as a share of the inner card's
ACE_MIDDLE = (0.3, 0.5)      # ink share in the middle of the card (``pips.MIDDLE``)


def _ace_middle(cues: Cues, card: np.ndarray) -> bool:
    """The middle of the card holds ink as an ace's does (``ACE_MIDDLE``: a coin, a cup or a
    figure fills it, two or four pips leave it bare) and the picture is narrow there
    (``narrow_picture``)."""
    return ACE_MIDDLE[0] <= cues.pips.middle <= ACE_MIDDLE[1] and narrow_picture(card)


def one_emblem_ace(cues: Cues, card: np.ndarray) -> Card | None:
    """The ace of the suit a sure pinta reads, when the card's ink is one emblem through its
    middle and its picture is narrow there (``narrow_picture``): named whatever rank the bank
    guessed, since its guess for an ace of another deck is a card with several pips."""
    if not cues.sure or cues.pinta is None:
        return None
    share, height = cues.pips.emblem
    if share < ACE_EMBLEM or height < ACE_HEIGHT:
        return None
    return Card(1, cues.pinta) if _ace_middle(cues, card) else None


# The 1878 ace of espadas is a sabre hung with ribbons, which fall like clubs: across decks the
# bank takes it for a 3 (of bastos, mostly), and the ribbons break its drawing into several
# blobs, so ``one_emblem_ace`` misses it.  A 3 of espadas has a blade through the middle of the
# card, which fills it with blue (0.14 of it on the 1878 face, 0.27 on the naipes-libres one);
# the ace has its hilt and ribbons there, and its steel-grey blade is hardly ink (0.03-0.05 on
# its face).  On the held-out scenes of seeds 1-8 (both ways), the 3s of espadas whose middle
# held 0.25 or more of ink held 0.23 or more of it in blue (the naipes-libres 3 reaches 0.30, at
# ``ACE_MIDDLE``'s edge), and the 1878 aces with a sure pinta 0.035 at most; with a sure pinta
# of espadas, a middle filled as an ace's, less blue there than ``ACE_BLUE`` and a narrow
# picture, a 3 guessed was an ace of espadas 76 times (11 of them left unnamed) and nothing else.
ACE_GUESS = 3
ACE_BLUE = 0.1  # share of the middle of the card (``pips.MIDDLE``) in blue ink, at most


def ribboned_ace(guess: Card, cues: Cues, card: np.ndarray) -> Card | None:
    """The ace of espadas, when the bank guessed a 3 (``ACE_GUESS``), a sure pinta reads
    espadas, and the middle of the card is an ace's (``_ace_middle``) but holds no blade
    (``ACE_BLUE``)."""
    if guess.rank != ACE_GUESS or not cues.reads(Suit.ESPADAS):
        return None
    if cues.pips.middle_blue >= ACE_BLUE or not _ace_middle(cues, card):
        return None
    return Card(1, Suit.ESPADAS)
