"""Read the cards in a frame: find them, flatten them, compare with the bank, abstain when unsure."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace

import numpy as np

from engine.cards import FIGURES, Card, Suit
from referee.vision.ace_cues import narrow_picture, one_emblem_ace, ribboned_ace
from referee.vision.bank import Bank
from referee.vision.cues import (
    Cues,
    cues_agree,
    has_rule,
    miscounted,
    pinta_card,
    pinta_confirms,
    pinta_of_two,
    read_cues,
)
from referee.vision.detect import DetectorSettings, candidates
from referee.vision.features import describe
from referee.vision.figure_cues import (
    caballo_card,
    contradicts,
    figure_card,
    figure_suit,
    grey_figure_suit,
    is_caballo,
)
from referee.vision.figures import figure_rank, picture_fits
from referee.vision.geometry import flatten
from referee.vision.layout_cues import far_four, layout_card
from referee.vision.learned import LearnedViews
from referee.vision.outlines import best_of_overlapping, card_shaped, drop_parts, one_per_card
from referee.vision.reading import Reading, cue_image
from referee.vision.second_look import covered, far_readings, read_again
from referee.vision.snapping import snap_to_edges
from referee.vision.suits import colourless

TWICE_SLACK = 0.2  # how much wider or narrower in the middle than its rank's range a picture
                   # may be where the bank's two best name its rank (``bank_twice``)


@dataclass(frozen=True)
class RecognizerSettings:
    """When to answer.  The bank names a card only if its confidence reaches ``min_confidence``;
    below it, a card whose cues agree with the bank's guess is named by them (``use_cues``)."""

    min_confidence: float = 0.7
    margin_scale: float = 0.03    # best-vs-second similarity gap: confidence 1 - exp(-gap / scale)
    min_similarity: float = 0.55  # the best match must be at least this close ...
    full_similarity: float = 0.75  # ... and from here on closeness does not lower the confidence
    clear_lead: float = 0.15      # a card this far ahead of every other ...
    lead_similarity: float = 0.62  # ... and at least this close has at least this confidence,
    lead_confidence: float = 0.7   # however far from ``full_similarity`` (``judge``)
    not_a_card: float = 0.45      # below this the outline is dropped: not a card ...
    far_card: float = 0.3         # ... unless it has a card's sides, lies apart from the cards
                                  # read, reaches this, and its cues name it
                                  # (``second_look.far_readings``)
    max_candidates: int = 40      # outlines compared with the bank per frame, best shapes first
    use_cues: bool = True  # below ``min_confidence``, still name a 1-7 whose cues agree (``cues``)
    use_figures: bool = True  # ... and read "a figure of <suit>" when only the rank is unsure,
    figure_ranks: bool = True  # ... or name it if its picture tells the rank (``figure_cues.figure_card``)
    sure_confidence: float = 0.9  # a 2-7 named below this is dropped if its pips count a
                                  # neighbouring rank, or no count of a 4-7 of espadas' swords
                                  # finds its rank (``cues.miscounted``)
    snap_edges: bool = True  # move each card's sides onto its edge before reading it
    learn: bool = False  # learn views of the table's deck from the cards named (``learned``)


@dataclass
class Recognizer:
    """Frame → readings, with a reference bank."""

    bank: Bank
    settings: RecognizerSettings = field(default_factory=RecognizerSettings)
    detector: DetectorSettings = field(default_factory=DetectorSettings)

    def __post_init__(self) -> None:
        self._cards = self.bank.cards
        index = {card: i for i, card in enumerate(self._cards)}
        labels = np.array([index[c] for c in self.bank.labels])
        order = np.argsort(labels, kind="stable")
        self._vectors = np.ascontiguousarray(self.bank.vectors[order])
        self._starts = np.searchsorted(labels[order], np.arange(len(self._cards)))
        self.learned = LearnedViews(self._cards) if self.settings.learn else None
        self._frame = threading.local()  # the cues read while a frame is read (``cues``), in
                                          # each thread that reads one

    def scores(self, card_img: np.ndarray) -> np.ndarray:
        """Best similarity of a flattened card to each bank card (order of ``bank.cards``)."""
        return self.scores_of([card_img])[0]

    def scores_of(self, card_imgs: list[np.ndarray]) -> np.ndarray:
        """``scores`` of several flattened cards, one row each: the bank is read once for all of
        them (a frame's outlines), not once per outline.  With views learned of the table's deck,
        they are taken in where they may be (``LearnedViews.lifted``)."""
        described = np.stack([describe(img) for img in card_imgs])
        bank = self._bank_scores(described)
        return bank if self.learned is None else self.learned.lifted(bank, described)

    def _bank_scores(self, described: np.ndarray) -> np.ndarray:
        return np.maximum.reduceat(described @ self._vectors.T, self._starts, axis=1)

    def judge(self, scores: np.ndarray) -> tuple[Card, float, float]:
        """Best card, confidence in [0, 1] and best similarity, from per-card similarities.

        A card far ahead of every other (``clear_lead``) is named at the default bar
        (``lead_confidence``) even where the bank finds it only fairly close
        (``lead_similarity``): across decks an ace, a 3 or a 5 is often 0.62-0.7 like its own
        card and 0.2-0.3 less like any other, and nothing else reads so."""
        return self._judged(scores, np.argsort(scores)[::-1])

    def _judged(self, scores: np.ndarray, order: np.ndarray) -> tuple[Card, float, float]:
        """``judge`` with the cards already ranked, best first (``order``)."""
        s1 = float(scores[order[0]])
        s2 = float(scores[order[1]]) if len(order) > 1 else -1.0
        s = self.settings
        margin = 1.0 - np.exp(-max(0.0, s1 - s2) / s.margin_scale)
        closeness = np.clip((s1 - s.min_similarity) / (s.full_similarity - s.min_similarity), 0, 1)
        confidence = float(margin * closeness)
        if s1 >= s.lead_similarity and s1 - s2 >= s.clear_lead:
            confidence = max(confidence, s.lead_confidence)
        return self._cards[order[0]], confidence, s1

    def classify(self, card_img: np.ndarray, corners: np.ndarray) -> Reading:
        """Name the flattened card if the bank is sure of it."""
        return self._reading(self.scores(card_img), corners)

    def _reading(self, scores: np.ndarray, corners: np.ndarray) -> Reading:
        """The outline's reading from its similarities to the bank's cards (``scores``)."""
        order = np.argsort(scores)[::-1]
        guess, confidence, similarity = self._judged(scores, order)
        card = guess if confidence >= self.settings.min_confidence else None
        second = self._cards[order[1]] if len(scores) > 1 else None
        return Reading(card, confidence, corners, guess, similarity, second=second)

    def confirm(self, reading: Reading, frame: np.ndarray) -> Reading:
        """Name an abstained card anyway if the cues read on it agree with the bank's guess.

        The bank's best guess for a deck it has never seen is often right but not by a clear
        margin; the pip count, ink colours and pinta confirm it without the bank (and the pinta
        may correct the suit of a 1-7 whose other cues agree, ``cues.pinta_card``; an ace of another
        deck, which the bank guesses as a card of several pips, is named by its one emblem and a
        sure pinta, ``ace_cues.one_emblem_ace``, or the 1878 ace of espadas, taken for a 3, by its
        middle filled without a blade, ``ace_cues.ribboned_ace``; a 2-7 of the bank's suit and rank
        needs no ink colours when a sure pinta of breaks reads that suit, ``cues.pinta_confirms``;
        a 4-7 is named by where its pips lie, ``layout_cues.layout_card``: a 4 of copas or oros by its
        bare middle, a 5-7 of espadas by its swords; a 1-7 far from the bank with four pips, a
        sure pinta and a bare middle is a 4, ``layout_cues.far_four``).  A guessed figure is named from
        its suit (its pinta, coin or cup) and its picture's rank, or the bank's where the picture
        fits it (more loosely where the bank's two best agree on it, ``bank_twice``), or else may
        still be read as "a figure of <suit>" (``figure_of``).  A 1-7 the bank finds far from
        every card is named only on a card-shaped outline, as found or snapped
        (``outlines.card_shaped``).  A figure
        the bank named is read again as if abstained when its pinta reads another suit
        (``figure_cues.contradicts``), and a 2-7 it named without being sure is dropped when its pips
        count a neighbouring rank, or no count of a 4-7 of espadas' swords finds its rank (unless
        where they lie names it), and an ace when a sure pinta
        reads another suit (``_recount``).  On a frame with no colour only the cues that read
        none are asked (``_confirm_grey``)."""
        guess, s = reading.guess, self.settings
        if guess is None or not s.use_cues:
            return reading
        if self.colourless_frame(frame):
            return self._confirm_grey(reading, frame)
        figure = s.use_figures and guess.rank in FIGURES
        if not figure and reading.card is not None:
            return self._recount(reading, frame)
        if not figure and not (has_rule(guess) and self._may_name(reading)):
            return reading
        card_img = cue_image(reading, frame)
        cues = self.cues(reading, frame, card_img)
        if reading.card is not None:
            if not contradicts(reading.card, cues):
                return reading
            reading = replace(reading, card=None)
        if has_rule(guess):
            return self._confirm_pips(reading, guess, card_img, cues)
        suit = figure_suit(guess, cues)
        if suit is not None and s.figure_ranks:
            rank = figure_rank(card_img)
            slack = TWICE_SLACK if bank_twice(reading, suit) else 0.0
            fits = picture_fits(card_img, guess.rank, slack)
            card = figure_card(guess, cues, rank, fits)
            if card is not None:
                return replace(reading, card=card, by_cues=True)
        return replace(reading, figure_of=suit)

    def _confirm_grey(self, reading: Reading, frame: np.ndarray) -> Reading:
        """``confirm`` on a frame with no colour (``suits.colourless``: night mode, infrared, a
        grey webcam): no card is named by its cues, since every rule naming one reads the ink's
        colours (a 1-7's pips are its saturated ink) or a figure's (its picture is what is not
        white paper, his horse is brown, his coin gold).  Grey, the picture of a rey or a caballo
        is only his darkest ink, narrow as a sota's: a 12 de bastos the bank guessed was named a
        10 so.  The pinta reads no colour: a figure the bank named is still read as abstained
        when its pinta reads another suit, an ace when a sure one does (``_recount``), and a
        figure of unsure rank is still read as "a figure of <suit>" by a sure pinta
        (``figure_cues.grey_figure_suit``)."""
        guess = reading.guess
        assert guess is not None
        if not (self.settings.use_figures and guess.rank in FIGURES):
            return self._recount(reading, frame)
        cues = self.cues(reading, frame)
        if reading.card is not None:
            if not contradicts(reading.card, cues):
                return reading
            reading = replace(reading, card=None)
        return replace(reading, figure_of=grey_figure_suit(cues))

    def colourless_frame(self, frame: np.ndarray) -> bool:
        """The frame has no colour (``suits.colourless``): told once a frame while one is read."""
        known: bool | None = getattr(self._frame, "colourless", None)
        return colourless(frame) if known is None else known

    def _recount(self, reading: Reading, frame: np.ndarray) -> Reading:
        """Abstain on a 2-7 the bank named without being sure (``sure_confidence``) if its pips
        count a neighbouring rank, or no count of a 4-7 of espadas' swords finds its rank
        (``cues.miscounted``), unless where they lie names it
        (``layout_cues.layout_card``: the bank's 6 de espadas on a 7 whose hilts and blades count
        seven); or on such an ace, or a card named only by its clear lead, if a sure pinta reads
        another suit (across decks an ace far ahead of every other card, ``clear_lead``, may be
        an ace of another suit: one emblem, a sword or a club, and nothing to count; and the
        Fournier bank took naipes-libres 4s of bastos for 4s of espadas so, at the bar): a wrong
        card is worse than none.  A 2-7 so dropped is named in the pinta's suit where its pips
        and ink colours agree with that card (``cues.pinta_card``: the 4 of bastos); an ace is
        not, having nothing to count: aces of oros, no break in their line, read a suit of
        breaks where the bank named them (docs/camera.md, "Tried and dropped")."""
        card, s = reading.card, self.settings
        if card is None or reading.confidence >= s.sure_confidence:
            return reading
        cues = self.cues(reading, frame)
        by_lead = reading.confidence <= s.lead_confidence  # named at the bar: by its clear lead
        if (card.rank == 1 or by_lead) and cues.sure and cues.pinta != card.suit:
            again = None if card.rank == 1 else pinta_card(card, cues, close=True)
            return replace(reading, card=again, by_cues=again is not None)
        if miscounted(card, cues):
            again = layout_card(card, reading.second, cues)
            return replace(reading, card=again, by_cues=again is not None)
        return reading

    def _may_name(self, reading: Reading) -> bool:
        """A 1-7 left unnamed may be named by its cues: the bank finds it close to a card
        (``min_similarity``), or its outline is card-shaped (``outlines.card_shaped``), as found
        or snapped onto the card's edges, where the cues are read; else its cues are not read."""
        return (reading.similarity >= self.settings.min_similarity
                or card_shaped(reading.corners) or card_shaped(reading.outline))

    def _confirm_pips(self, reading: Reading, guess: Card, card_img: np.ndarray,
                      cues: Cues) -> Reading:
        """A guessed 1-7 named by its cues; or a caballo the bank took for an ace or a two, whose
        picture none of theirs looks like (``figure_cues.is_caballo``): then no 1-7 is named."""
        s = self.settings
        close = reading.similarity >= s.min_similarity
        if s.use_figures and s.figure_ranks and is_caballo(guess, cues, figure_rank(card_img)):
            card = caballo_card(cues)
        else:
            narrow = guess.rank == 1 and not close and narrow_picture(card_img)
            agrees = close and (cues_agree(guess, cues) or pinta_confirms(guess, cues))
            card = guess if agrees else (
                pinta_card(guess, cues, close, narrow) or layout_card(guess, reading.second, cues)
                or (pinta_of_two(guess, reading.second, cues) if reading.similarity >= s.not_a_card
                    and card_shaped(reading.outline) else None)
                or one_emblem_ace(cues, card_img) or ribboned_ace(guess, cues, card_img)
                or (None if close else far_four(cues)))
        return reading if card is None else replace(reading, card=card, by_cues=True)

    def read(self, frame: np.ndarray) -> list[Reading]:
        """Every card in the frame, named or abstained, skipping shapes that are not cards.

        Each candidate outline is compared with the bank; where outlines overlap, the one that
        looks most like a card of the bank wins (two cards taken as one look like neither).
        Only the cards that stay are checked with the cues, and a card left unnamed is read again
        on its other outlines (``second_look.read_again``); then the card-shaped outlines the
        bank finds far from every card are read where the cues name them
        (``second_look.far_readings``)."""
        self._frame.cues = {}
        self._frame.colourless = colourless(frame)
        try:
            return self._read_frame(frame)
        finally:
            self._frame.cues = None
            self._frame.colourless = None

    def _read_frame(self, frame: np.ndarray) -> list[Reading]:
        s = self.settings
        outlines = [corners for corners, _ in candidates(frame, self.detector)[:s.max_candidates]]
        readings, far = [], []
        if not outlines:
            return []
        scores = self.scores_of([flatten(frame, corners) for corners in outlines])
        for corners, card_scores in zip(outlines, scores):
            reading = self._reading(card_scores, corners)
            if reading.similarity >= s.not_a_card:
                readings.append(reading)
            elif reading.similarity >= s.far_card and card_shaped(corners):
                far.append(reading)
        best = best_of_overlapping(drop_parts(readings))
        found = one_per_card(read_again(self, best, [self.checked(r, frame) for r in best],
                                        readings, frame))
        far_named = far_readings(self, far, found, frame)
        result = [r for r in found if not covered(r, far_named)] + far_named
        if self.learned is not None:
            self._learn(result, frame)
        return result

    def cues(self, reading: Reading, frame: np.ndarray,
             card_img: np.ndarray | None = None) -> Cues:
        """The cues read on the card (``cue_image``, or ``card_img`` when it is flattened
        already); while a frame is read, once for each outline: a card read again on another
        outline, or kept as named by its cues, is often asked again."""
        read: dict[bytes, Cues] | None = getattr(self._frame, "cues", None)
        key = reading.outline.tobytes()
        if read is not None and key in read:
            return read[key]
        cues = read_cues(cue_image(reading, frame) if card_img is None else card_img)
        if read is not None:
            read[key] = cues
        return cues

    def _learn(self, readings: list[Reading], frame: np.ndarray) -> None:
        """Learn each card named without the learned views (by its cues, or by the bank alone on
        the outline it was read on) as a view of itself, from a card-shaped outline.  One less
        than ``min_similarity`` like the bank is learned only when the card was named before on
        a view much like it (``LearnedViews.seen_again``): such outlines, named by their cues,
        were where wrong views came from (a naipes-libres caballo de bastos read as a rey,
        learned, then named every caballo de bastos a rey).  A card named on an outline moved
        onto straight edges (``Reading.moved``) is not learned: the outline may take in the table
        or another card (learned, such views led 5s and 6s of espadas to be named 7s: 15 cards
        named wrongly instead of 3 on seed 4, Fournier → naipes libres)."""
        assert self.learned is not None
        for reading in readings:
            card = reading.card
            if (card is None or reading.moved or not self.learned.wants(card)
                    or not card_shaped(reading.outline)):
                continue
            flattened = flatten(frame, reading.outline)
            described = describe(flattened)
            far = reading.similarity < self.settings.min_similarity
            if far and not self.learned.seen_again(card, described):
                continue
            if not reading.by_cues:
                guess, confidence, _ = self.judge(self._bank_scores(described[None])[0])
                if guess != card or confidence < self.settings.min_confidence:
                    continue
            self.learned.add(card, flattened, described)

    def checked(self, reading: Reading, frame: np.ndarray) -> Reading:
        """The outline snapped onto the card's edges and its reading confirmed by the cues."""
        return self.confirm(self.snapped(reading, frame), frame)

    def snapped(self, reading: Reading, frame: np.ndarray) -> Reading:
        """The card with its sides snapped onto its edges (``snapping.snap_to_edges``), where its
        cues are read; compared with the bank again there, and the closer of the two readings kept.

        On the held-out benchmark scenes the outlines' corners were 7-9% of a card's width off
        (median) and the snapped ones 1-2%, and the pinta was read at both ends of twice as many
        cards.  The bank's reading is not always closer on the snapped outline: across decks the
        similarity is noisy, and a side may snap onto another card."""
        if not self.settings.snap_edges:
            return reading
        edges = snap_to_edges(frame, reading.corners)
        again = self.classify(flatten(frame, edges), edges)
        return replace(again if again.similarity >= reading.similarity else reading, edges=edges)


def bank_twice(reading: Reading, suit: Suit) -> bool:
    """The bank's two best cards are figures of one rank, one of them of this suit (told by the
    cues): the bank's rank stands where the picture tells none and is a little wider or narrower
    in the middle than the rank's (``TWICE_SLACK``).  Across decks the bank takes the 1878 sota
    de copas, wide in the middle, for a sota de oros or a sota de copas before any rey; a
    caballo or a rey it takes for sotas is seldom one of them."""
    guess, second = reading.guess, reading.second
    return (guess is not None and second is not None and second.rank == guess.rank
            and suit in (guess.suit, second.suit))

