"""Views of the table's own deck, learned from the cards the recognizer names while it reads.

A bank built from another deck's faces names the table's cards less often than one calibrated to
them (README: held-out against calibrated).  While the game goes on every card is shown again and
again, so each card named without these views (by the bank alone, or by its cues) lends its
flattened image as a view of that card, up to ``PER_CARD`` views (``Recognizer._learn``); one
named far from the bank only when it was named so before on a view much like it (``seen_again``).

Views of one deck are alike in everything but the card (paper, ink, drawing hand), so a learned
view draws the deck's other cards to it: with only the 7 de espadas learned, a 5 or a 6 of the
same deck looks more like that view than like any card of the bank.  So a learned view raises
a card's similarity (``lifted``) only

- once the card's kin (``kin``: the cards its picture is most often mistaken for) are learned
  too, so that the right one among them has a view of its own to win with; and
- when the learned views find that card the closest: by ``MARGIN`` over every other where the
  bank guesses it too, by ``KNOWN_MARGIN`` (and at least ``KNOWN`` like it) whatever the bank
  guesses (across decks the bank often guesses another figure, or the same figure of another
  suit, for a card already learned).

The one exception is a card seen again: an outline at least ``AGAIN`` like a view learned of one
card, and ``AGAIN_MARGIN`` more like it than like any other card's views, is that card whatever
the bank guesses, its kin learned or not.  Another card of the same deck has not come that close
to a view: a 6 de bastos was 0.90 like a 7 de bastos learned, a card shown again 0.94-0.98 like
its own view.

Learned views never leave the recognizer: each session starts from the bank."""

from __future__ import annotations

import cv2
import numpy as np

from engine.cards import FIGURES, Card
from referee.vision.features import describe

PER_CARD = 6    # views learned per card, each in both orientations
MARGIN = 0.04   # the learned views' best card must beat their second by this much (their own
                # margin: two views of one picture learned as two cards cancel out)
SEEN_AGAIN = 0.85  # a card named far from the bank (below ``min_similarity``) is learned only
                   # when a view of it named the same before is at least this like it
AGAIN = 0.93    # an outline this like a view of one card is that card seen again ...
AGAIN_MARGIN = 0.2  # ... when it is this much less like any other card's views
KNOWN = 0.7     # an outline this like a card's views, its kin learned, is that card ...
KNOWN_MARGIN = 0.15  # ... when it is this much less like any other card's views
PIP_KIN = 2     # a 1-7's kin: its suit's 1-7 within this many ranks (one or two pips more or
                # less: a 5 and a 7 of espadas differ by the middle sword), and its rank in the
                # other suits


def kin(card: Card, cards: list[Card]) -> list[Card]:
    """The cards a view of ``card`` is most often mistaken for, ``card`` among them: a 1-7's
    neighbours in its suit (``PIP_KIN``), a figure's fellow figures, and the same rank in
    every suit."""
    def near(other: Card) -> bool:
        if other.rank == card.rank:
            return True
        if other.suit != card.suit:
            return False
        if card.rank in FIGURES:
            return other.rank in FIGURES
        return other.rank not in FIGURES and abs(other.rank - card.rank) <= PIP_KIN
    return [other for other in cards if near(other)]


class LearnedViews:
    """Descriptors learned for the bank's cards (``cards``, in the order of the bank's scores)."""

    def __init__(self, cards: list[Card], per_card: int = PER_CARD) -> None:
        self.cards = cards
        self.per_card = per_card
        self._index = {card: i for i, card in enumerate(cards)}
        self._views: list[list[np.ndarray]] = [[] for _ in cards]
        self._kin = [[self._index[k] for k in kin(card, cards)] for card in cards]
        self._matrix = np.zeros((0, 0), np.float32)
        self._owners = np.zeros(0, np.intp)  # the cards with views, and where their rows start
        self._starts = np.zeros(0, np.intp)
        self._kin_learned = np.zeros(len(cards), bool)  # each card's kin all have views
        self._candidates: dict[Card, list[np.ndarray]] = {}

    def count(self, card: Card) -> int:
        """Views learned of this card (each in both orientations)."""
        return len(self._views[self._index[card]]) // 2

    @property
    def total(self) -> int:
        return sum(len(views) for views in self._views) // 2

    def wants(self, card: Card) -> bool:
        """The card has fewer than ``per_card`` views."""
        return self.count(card) < self.per_card

    def add(self, card: Card, flattened: np.ndarray, described: np.ndarray | None = None) -> None:
        """Learn a flattened card (the bank's canonical size) as a view of ``card``, both ways up
        (``described``: its descriptor, when the caller has it already)."""
        if not self.wants(card):
            return
        upright = describe(flattened) if described is None else described
        views = self._views[self._index[card]]
        views += [upright, describe(cv2.rotate(flattened, cv2.ROTATE_180))]
        rows = [(i, v) for i, vs in enumerate(self._views) for v in vs]  # by card, in order
        self._matrix = np.stack([v for _, v in rows])
        self._owners, self._starts = np.unique([i for i, _ in rows], return_index=True)
        self._kin_learned = np.array([all(self._views[k] for k in kin) for kin in self._kin])

    def seen_again(self, card: Card, described: np.ndarray) -> bool:
        """This card was named before on a view ``SEEN_AGAIN`` like this one (``described``: its
        descriptor); if not, the view is kept for the next time.  (One wrong name far from the
        bank, learned, was met again and again; the same wrong name twice on views that alike
        has not been seen.)"""
        before = self._candidates.setdefault(card, [])
        if any(float(described @ other) >= SEEN_AGAIN for other in before):
            return True
        before.append(described)
        return False

    def scores(self, described: np.ndarray) -> np.ndarray:
        """Best similarity of each described outline (rows) to each card's learned views;
        -1 (below any similarity) where a card has none."""
        out = np.full((len(described), len(self.cards)), -1.0, np.float32)
        if len(self._owners):
            out[:, self._owners] = np.maximum.reduceat(described @ self._matrix.T, self._starts, axis=1)
        return out

    def lifted(self, bank: np.ndarray, described: np.ndarray) -> np.ndarray:
        """The bank's similarities (``bank``: one row per outline) with one card of each row
        raised to its learned views' similarity where those are closer than the bank's: the
        card the learned views find the closest, its kin learned, by ``MARGIN`` where the bank
        guesses it too, by ``KNOWN_MARGIN`` (and ``KNOWN`` like it) where it does not; or a card
        seen again (``AGAIN``, ``AGAIN_MARGIN``), its kin learned or not.  Every other
        similarity stays the bank's: learning can make the bank surer of its own guess or name
        a card it knows, never make the bank less sure."""
        if not len(self._owners):
            return bank
        seen = self.scores(described)
        rows = np.arange(len(bank))
        best = seen.argmax(axis=1)
        closest = seen[rows, best]
        ahead = closest - np.partition(seen, -2, axis=1)[:, -2]  # over the learned views' second
        again = (closest >= AGAIN) & (ahead >= AGAIN_MARGIN)
        kin = self._kin_learned[best]
        guessed = (best == bank.argmax(axis=1)) & kin & (ahead >= MARGIN)
        known = (closest >= KNOWN) & kin & (ahead >= KNOWN_MARGIN)
        lift = (again | guessed | known) & (closest > bank[rows, best])
        out = bank.copy()
        out[rows[lift], best[lift]] = closest[lift]
        return out
