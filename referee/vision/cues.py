"""What a Truco player reads on any Spanish deck, to confirm the bank's guess for a deck it has
never seen: the pip count, the ink colours and the pinta (the breaks in the frame line).

Rules for particular cards read these cues too: aces (``ace_cues``), a 4-7 by where its pips
lie (``layout_cues``) and figures (``figure_cues``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from engine.cards import Card, Suit
from referee.vision.emblems import coin_in, cup_on
from referee.vision.features import as_hsv, greyed, normalise
from referee.vision.pintas import BREAK_PINTAS, SURE_ALONE, agreed, pintas_on
from referee.vision.pips import Pips, pips_in
from referee.vision.suits import suits_seen


@dataclass(frozen=True)
class Cues:
    """The cues read on one flattened card."""

    pips: Pips
    pinta: Suit | None
    both_ends: bool = False  # the pinta was read at both ends of the card (and they agree)
    coin: bool = False  # a figure's coin is seen (oros)
    cup: bool = False  # a figure's cup is seen (copas)

    @property
    def sure(self) -> bool:
        """The pinta needs no other witness: read at both ends, or two or three breaks in their
        places at one end (one break or none can be chance: a drawing over the line, a faint line)."""
        return self.pinta is not None and (self.both_ends or self.pinta in SURE_ALONE)

    def reads(self, suit: Suit) -> bool:
        """A sure pinta (``sure``) reads ``suit``."""
        return self.sure and self.pinta == suit

    @property
    def ends(self) -> int:
        """At how many of the card's ends the pinta was read: both, one, or none agreed on."""
        return 0 if self.pinta is None else 2 if self.both_ends else 1


def read_cues(card: np.ndarray) -> Cues:
    """Cues of a flattened card image (best at ``pips.PIP_SIZE``).  The pinta and the cup are read
    on one card with its paper made grey (``features.grey_paper``); the pips and the coin on it
    white-balanced, in HSV (``features.normalised_hsv``): the card is white-balanced once."""
    norm = normalise(card)
    hsv = as_hsv(norm)
    grey = greyed(norm)
    ends = pintas_on(grey)
    pinta = agreed(ends)
    return Cues(pips_in(hsv), pinta, pinta is not None and ends[0] == ends[1], coin_in(hsv),
                cup_on(grey))


# Pips counted in one hue class rather than all the ink: a sword's hilt comes apart from its blade.
PIP_HUE: dict[Suit, str] = {Suit.ESPADAS: "blue"}


def pip_counts(card: Card, cues: Cues) -> set[int]:
    """The pips of a card, counted as ``PIP_HUE`` says (all the ink; swords in their blue) and,
    for a suit of one colour, in that colour alone: a hand or a shadow in another colour touching
    a pip, or a blob of it standing apart, changes one count and not the other."""
    counts = {cues.pips.counts[PIP_HUE.get(card.suit, "ink")]}
    if card.suit in SUIT_HUE:
        counts.add(cues.pips.counts[SUIT_HUE[card.suit]])
    return counts


def _pip_card(card: Card, cues: Cues) -> bool:
    """2-7: as many pips as the rank by either count (``pip_counts``), in colours the suit allows,
    and the middle of the card as the rank has it (``middle_fits``)."""
    return (card.rank in pip_counts(card, cues) and card.suit in suits_seen(cues.pips.shares)
            and middle_fits(card, cues))


def middle_fits(card: Card, cues: Cues) -> bool:
    """What lies in the middle of the card is what its rank lays there: a 5 of oros or copas its
    middle pip (``BARE_MIDDLE``; the red maker's name between the cups of the 1878 4 of copas is a
    fifth red blob), a 6 of espadas no sword (``SWORD_MIDDLE``; a 7 whose middle sword's hilt
    and blade run together counts six blobs of blue)."""
    if card.rank == 5 and card.suit in BARE_SUITS:
        return cues.pips.middle >= BARE_MIDDLE
    if card == SIX_OF_SWORDS:
        return cues.pips.middle < SWORD_MIDDLE
    return True


def pinta_confirms(guess: Card, cues: Cues) -> bool:
    """A 2-7 the bank guessed, of the suit a sure pinta of breaks reads (``BREAK_PINTAS``), with
    as many pips as its rank by every count (``pip_counts``) and its middle as the rank has it
    (``middle_fits``): three witnesses, the ink's colours not asked.  Their bounds
    (``suits.SUIT_COLOURS``) are loose for any deck, and still a cup's teal rim or a sword's
    yellow hilt may push a card out of its own suit's.  Every count must agree: the red maker's
    name on the 1878 4 of copas makes a fifth red blob, which the colours (too little red for
    copas) had kept from being named a 5."""
    return (2 <= guess.rank <= 7 and cues.reads(guess.suit) and guess.suit in BREAK_PINTAS
            and pip_counts(guess, cues) == {guess.rank} and middle_fits(guess, cues))


def _ace(card: Card, cues: Cues) -> bool:
    """1: one emblem (one blob of ink, or of the suit's colour: a sword's hilt may come apart
    from its blade), and the pinta tells the suit (the emblems' colours vary too much)."""
    hue = SUIT_HUE.get(card.suit)
    one = cues.pips.count == 1 or (hue is not None and cues.pips.counts.get(hue) == 1)
    return one and cues.pinta == card.suit


# rank -> what must agree; the figures (10-12) are checked apart (``figure_cues.figure_suit``,
# ``figures``).
RULES: dict[int, Callable[[Card, Cues], bool]] = {1: _ace, **{r: _pip_card for r in range(2, 8)}}


def pinta_card(guess: Card, cues: Cues, close: bool, narrow: bool = False) -> Card | None:
    """A 1-7 of the guessed rank in the suit the pinta reads, if the other cues agree with that card.

    Across decks the bank's rank is more often right than its suit.  A 2-7: when the pip count
    confirms the rank and the ink colours allow the pinta's suit, three cues that do not depend on
    the artwork outvote the bank's suit (and its low similarity).  An ace has nothing to count but
    its one emblem: the pinta must be sure on its own, and the bank close to the card or the
    picture ``narrow`` in the middle (``ace_cues.narrow_picture``)."""
    if guess.rank not in RULES or cues.pinta is None:
        return None
    if guess.rank == 1 and not (cues.sure and (close or narrow)):
        return None
    card = Card(guess.rank, cues.pinta)
    return card if cues_agree(card, cues) else None


def pinta_of_two(guess: Card, second: Card | None, cues: Cues) -> Card | None:
    """A 2-7 whose rank the bank's two best cards agree on (the same rank in two suits), named in
    whichever of those two suits a sure pinta of breaks reads (``BREAK_PINTAS``), with a blob
    in that suit's own colour where it has one (``SUIT_HUE``): the bank's rank twice, and the
    pinta for the suit the bank could not choose.  Oros, read by no break at all, is what a
    line hidden or not a card's shows: outlines over two cards or the table were named 2s and
    3s of oros so; and a 2 of espadas named so without a blade of blue was a 7 of bastos."""
    if second is None or second.rank != guess.rank or not 2 <= guess.rank <= 7:
        return None
    suit = cues.pinta
    if suit not in BREAK_PINTAS or suit not in (guess.suit, second.suit) or not cues.reads(suit):
        return None
    hue = SUIT_HUE.get(suit)
    return Card(guess.rank, suit) if hue is None or cues.pips.counts.get(hue, 0) > 0 else None


# A 4 has no pip in the middle of the card, a 5 has one there, on every Spanish deck; the cups
# and coins fill it (a 5 of copas shows at least 0.22 of ink there in the held-out scenes of
# seeds 2-4, a 4 at most 0.18, the 1878 4 printing its maker's name there).  Swords and clubs lie
# thin across a 5's middle, so they are left out.
BARE_MIDDLE = 0.2
BARE_SUITS = frozenset({Suit.OROS, Suit.COPAS})

# A 5 or a 7 of espadas has a sword across the middle of the card, on every Spanish deck; the 4
# and the 6 leave the middle bare.  Across decks the bank takes the naipes-libres 5 of espadas for
# a 7 or a 2, but a sure pinta reads espadas and its swords counted in blue (``PIP_HUE``) are
# five.  On the held-out scenes of seeds 2-4 nine in ten 4s and 6s of espadas held under 0.04 of
# ink in the middle (a 5: a median of 0.08-0.15, its sword is thin); among the readings left
# unnamed with a sure pinta of espadas and a 2-7 of espadas guessed, five blue swords and a middle
# of 0.10 or more were a 5 of espadas 20 times and nothing else (19 of them counting five or more
# in all the ink; ``layout_cues.five_of_swords``).  Three blue swords and such a middle were once
# a 5 with two swords lost: the 3 is not named that way.  A 6 is not named with so much in its
# middle.
SWORD_MIDDLE = 0.1
SIX_OF_SWORDS = Card(6, Suit.ESPADAS)


# The suits whose pips are all of one colour (``pips.HUES``); bastos are green or red.
SUIT_HUE: dict[Suit, str] = {Suit.OROS: "yellow", Suit.COPAS: "red", Suit.ESPADAS: "blue"}


# The counts that find each sword of a 4-7 of espadas: all its ink, the blue of its blades, the
# gold of its hilts.  Its swords are short and lie apart; a 2's or a 3's run the card's length,
# their blades and big hilts touching or broken (an 1878 3 read on seed 15 counted four, nine and
# four).  On the held-out scenes of seeds 2-14 (150 each, both ways) the bank named 184 4-7s of
# espadas right below ``sure_confidence``: one of the three counted the rank on every one (the
# ink or the blades alone on 179).
SWORD_COUNTS = ("ink", "blue", "yellow")
SHORT_SWORDS = range(4, 8)


def miscounted(card: Card, cues: Cues) -> bool:
    """A 2-7 whose pips in its suit's colour count a neighbouring rank, and all its ink not its
    own; or a 4-7 of espadas whose swords no count finds as many as its rank (``SWORD_COUNTS``).

    Across decks the bank mixes up neighbouring ranks of a suit whose layouts differ by one pip
    (a seven of swords whose middle sword lies across, taken for a six; a four of cups for a
    five): the pips of the suit's colour are counted apart from the rest of the ink (a hilt,
    a printer's name), so one pip more or less there is a witness against the bank's rank.  A
    sword is one long blade and one hilt, each counted on its own, so three counts missing the
    rank are a witness too: the Fournier bank took naipes-libres 5s of espadas, five blades and
    five hilts, for 7s."""
    hue = SUIT_HUE.get(card.suit)
    if hue is None or not 2 <= card.rank <= 7:
        return False
    if card.suit is Suit.ESPADAS and card.rank in SHORT_SWORDS and all(
            cues.pips.counts[k] != card.rank for k in SWORD_COUNTS):
        return True
    return abs(cues.pips.counts[hue] - card.rank) == 1 and cues.pips.count != card.rank


def has_rule(card: Card) -> bool:
    return card.rank in RULES


def cues_agree(card: Card, cues: Cues) -> bool:
    """The cues tell the same card."""
    rule = RULES.get(card.rank)
    return rule is not None and rule(card, cues)
