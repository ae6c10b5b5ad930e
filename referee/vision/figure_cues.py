"""A figure's suit, and its rank where its picture tells it, from the cues read on it.

A figure (10, 11, 12) has no rule for its rank, but the envido only needs its suit (figures count
0): ``figure_suit`` reads "a figure of <suit>" when the rank stays unsure, and ``figure_card``
names it when its picture tells the rank.  Besides the pinta, a figure's coin tells oros
(``emblems``)."""

from __future__ import annotations

from engine.cards import FIGURES, Card, Suit
from referee.vision.cues import Cues
from referee.vision.pintas import BREAK_PINTAS


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


def held_alone(suit: Suit, cues: Cues) -> bool:
    """The figure is seen holding this suit's emblem and no other, and no pinta reads another
    suit."""
    return held(cues) == [suit] and cues.pinta in (None, suit)


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
    every card, where the bank guessed a figure, or an ace or a two for a caballo
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
    if held_alone(named.suit, cues) and guess.rank not in PICTURED:
        return True
    if cues.pinta != named.suit:
        return False
    if cues.both_ends:
        return named.suit in BREAK_PINTAS or cues.coin
    return named.suit in FAR_ONE_END
