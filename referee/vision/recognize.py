"""Read the cards in a frame: find them, flatten them, compare with the bank, abstain when unsure."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from functools import cache

import cv2
import numpy as np

from engine.cards import FIGURES, Card, Suit
from referee.vision.bank import Bank
from referee.vision.cues import (
    FAR_ONE_END,
    PICTURED,
    Cues,
    caballo_card,
    contradicts,
    cues_agree,
    far_figure,
    far_four,
    figure_card,
    figure_suit,
    grey_figure_suit,
    has_rule,
    is_caballo,
    layout_card,
    miscounted,
    narrow_picture,
    one_emblem_ace,
    pinta_card,
    pinta_confirms,
    pinta_of_two,
    read_cues,
    ribboned_ace,
)
from referee.vision.detect import (
    DetectorSettings,
    apart,
    bounds,
    candidates,
    keep_best,
    overlaps,
    shares,
)
from referee.vision.features import describe
from referee.vision.figures import figure_rank, picture_fits
from referee.vision.geometry import (
    card_proportioned,
    flatten,
    has_card_proportions,
    snap_to_edges,
)
from referee.vision.learned import LearnedViews
from referee.vision.lines import frame_edges, onto_outer_edges
from referee.vision.pintas import BREAK_PINTAS, ends_read
from referee.vision.pips import PIP_SIZE
from referee.vision.suits import colourless

PART_MARGIN = 0.2  # a part goes if the whole looks at most this much less like a card ...
PART_AREA = 0.5    # ... or, however the whole looks, if it is less than this share of a whole
                   # with a card's sides
ONE_WITNESS = frozenset({1, 10})  # ranks a far outline is not named (``rank_witnessed``)
FOUR = 4  # a far outline may be named a 4 of another rank than the bank's (``cues.far_four``)
APART = 0.3  # a far outline goes if this much of it lies inside a card found, or of the card in it
SHAPE_TOLERANCE = 0.15  # a far-from-the-bank 1-7 is named by its cues only on a card-shaped outline
FAR_TRIES = 3  # other outlines of a far card left unnamed, read for a 4 by its pips (``far_fours``)
SAME_CARD = 0.7  # two outlines each covering this much of the other are one card's (``same_card``)
TWICE_SLACK = 0.2  # how much wider or narrower in the middle than its rank's range a picture
                   # may be where the bank's two best name its rank (``bank_twice``)
OTHER_TRIES = 3  # other outlines of a card left unnamed, read again (``read_again``)
SAME_MOVED = 2.0  # pixels: outlines moved onto the same edges, their corners this close


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
                                  # read, reaches this, and its cues name it (``far_readings``)
    max_candidates: int = 40      # outlines compared with the bank per frame, best shapes first
    use_cues: bool = True  # below ``min_confidence``, still name a 1-7 whose cues agree (``cues``)
    use_figures: bool = True  # ... and read "a figure of <suit>" when only the rank is unsure,
    figure_ranks: bool = True  # ... or name it if its picture tells the rank (``cues.figure_card``)
    sure_confidence: float = 0.9  # a 2-7 named below this is dropped if its pips count a
                                  # neighbouring rank (``cues.miscounted``)
    snap_edges: bool = True  # move each card's sides onto its edge before reading it
    learn: bool = False  # learn views of the table's deck from the cards named (``learned``)


@dataclass(frozen=True, eq=False)
class Reading:
    """One card found in a frame.  ``card`` is None when abstaining ("no la veo")."""

    card: Card | None
    confidence: float
    corners: np.ndarray
    guess: Card | None = None
    similarity: float = 0.0
    by_cues: bool = False  # named because the cues (pips, colours, pinta) agree with the guess
    figure_of: Suit | None = None  # abstained, but surely a figure (10-12) of this suit
    edges: np.ndarray | None = None  # the outline snapped onto the card's edges: the cues are
                                     # read there (``geometry.snap_to_edges``)
    second: Card | None = None  # the bank's second best card (``bank_twice``)
    moved: bool = False  # read on an outline moved onto straight edges (``read_again``): named,
                         # but not learned from (``_learn``)

    @property
    def outline(self) -> np.ndarray:
        """The card's corners as best known: snapped onto its edges when they were, else the
        finder's outline."""
        return self.corners if self.edges is None else self.edges

    @property
    def named_by(self) -> str | None:
        """What named the card: the bank, at ``confidence``, or its cues (pips, colours, pinta)
        agreeing with the bank's guess below the bar, whatever ``confidence`` the bank gave it."""
        if self.card is None:
            return None
        return "cues" if self.by_cues else "bank"

    def moved_by(self, shift: np.ndarray) -> Reading:
        """The reading with its outlines moved by ``shift`` (x, y pixels)."""
        return replace(self, corners=self.corners + shift,
                       edges=None if self.edges is None else self.edges + shift)

    def as_json(self) -> dict[str, object]:
        return {"card": str(self.card) if self.card else None,
                "figure_of": self.figure_of.nombre if self.figure_of else None,
                "confidence": round(float(self.confidence), 3),
                "named_by": self.named_by,
                "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.outline],
                "guess": str(self.guess) if self.guess else None}


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
        self._frame = threading.local()  # the cues read while a frame is read (``_cues``), in
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
        sure pinta, ``cues.one_emblem_ace``, or the 1878 ace of espadas, taken for a 3, by its
        middle filled without a blade, ``cues.ribboned_ace``; a 2-7 of the bank's suit and rank
        needs no ink colours when a sure pinta of breaks reads that suit, ``cues.pinta_confirms``;
        a 4-7 is named by where its pips lie, ``cues.layout_card``: a 4 of copas or oros by its
        bare middle, a 5-7 of espadas by its swords; a 1-7 far from the bank with four pips, a
        sure pinta and a bare middle is a 4, ``cues.far_four``).  A guessed figure is named from
        its suit (its pinta, coin or cup) and its picture's rank, or the bank's where the picture
        fits it (more loosely where the bank's two best agree on it, ``bank_twice``), or else may
        still be read as "a figure of <suit>" (``figure_of``).  A 1-7 the bank finds far from
        every card is named only on a card-shaped outline (``card_shaped``).  A figure the bank
        named is read again as if abstained when its pinta reads another suit
        (``cues.contradicts``), and a 2-7 it named without being sure is dropped when its pips
        count a neighbouring rank (unless where they lie names it), and an ace when a sure pinta
        reads another suit (``_recount``).  On a frame with no colour only the cues that read
        none are asked (``_confirm_grey``)."""
        guess, s = reading.guess, self.settings
        if guess is None or not s.use_cues:
            return reading
        if self._colourless(frame):
            return self._confirm_grey(reading, frame)
        figure = s.use_figures and guess.rank in FIGURES
        if not figure and reading.card is not None:
            return self._recount(reading, frame)
        if not figure and not (has_rule(guess) and self._may_name(reading)):
            return reading
        card_img = cue_image(reading, frame)
        cues = self._cues(reading, frame, card_img)
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
        (``cues.grey_figure_suit``)."""
        guess = reading.guess
        assert guess is not None
        if not (self.settings.use_figures and guess.rank in FIGURES):
            return self._recount(reading, frame)
        cues = self._cues(reading, frame)
        if reading.card is not None:
            if not contradicts(reading.card, cues):
                return reading
            reading = replace(reading, card=None)
        return replace(reading, figure_of=grey_figure_suit(cues))

    def _colourless(self, frame: np.ndarray) -> bool:
        """The frame has no colour (``suits.colourless``): told once a frame while one is read."""
        known: bool | None = getattr(self._frame, "colourless", None)
        return colourless(frame) if known is None else known

    def _recount(self, reading: Reading, frame: np.ndarray) -> Reading:
        """Abstain on a 2-7 the bank named without being sure (``sure_confidence``) if its pips
        count a neighbouring rank (``cues.miscounted``), unless where they lie names it
        (``cues.layout_card``: the bank's 6 de espadas on a 7 whose hilts and blades count
        seven); or on such an ace if a sure pinta reads another suit (across decks an ace far
        ahead of every other card, ``clear_lead``, may be an ace of another suit: one emblem, a
        sword or a club, and nothing to count): a wrong card is worse than none.  That ace is
        not named by the pinta's suit instead: aces of oros, no break in their line, read a suit
        of breaks where the bank named them (docs/camera.md, "Tried and dropped")."""
        card = reading.card
        if card is None or reading.confidence >= self.settings.sure_confidence:
            return reading
        cues = self._cues(reading, frame)
        if card.rank == 1 and cues.sure and cues.pinta != card.suit:
            return replace(reading, card=None)
        if miscounted(card, cues):
            again = layout_card(card, reading.second, cues)
            return replace(reading, card=again, by_cues=again is not None)
        return reading

    def _may_name(self, reading: Reading) -> bool:
        """A 1-7 left unnamed may be named by its cues: the bank finds it close to a card
        (``min_similarity``), or its outline is card-shaped (``card_shaped``); else its cues are
        not read."""
        return reading.similarity >= self.settings.min_similarity or card_shaped(reading.corners)

    def _confirm_pips(self, reading: Reading, guess: Card, card_img: np.ndarray,
                      cues: Cues) -> Reading:
        """A guessed 1-7 named by its cues; or a caballo the bank took for an ace or a two, whose
        picture none of theirs looks like (``cues.is_caballo``): then no 1-7 is named."""
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
        on its other outlines (``read_again``); then the card-shaped outlines the bank finds far
        from every card are read where the cues name them (``far_readings``)."""
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
        best = self._best(_drop_parts(readings))
        found = one_per_card(self.read_again(best, [self._read(r, frame) for r in best],
                                             readings, frame))
        result = found + self.far_readings(far, found, frame)
        if self.learned is not None:
            self._learn(result, frame)
        return result

    def _cues(self, reading: Reading, frame: np.ndarray,
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

    def _best(self, readings: list[Reading]) -> list[Reading]:
        """The best of each group of overlapping outlines (``keep_best``)."""
        keep = keep_best([r.corners for r in readings], [r.similarity for r in readings])
        return [readings[i] for i in sorted(keep)]

    def _read(self, reading: Reading, frame: np.ndarray) -> Reading:
        """The outline snapped onto the card's edges and its reading confirmed by the cues."""
        return self.confirm(self.snapped(reading, frame), frame)

    def _read_best(self, readings: list[Reading], frame: np.ndarray) -> list[Reading]:
        """The best of each group of overlapping outlines, snapped and confirmed."""
        return [self._read(r, frame) for r in self._best(readings)]

    def read_again(self, best: list[Reading], found: list[Reading], readings: list[Reading],
                   frame: np.ndarray) -> list[Reading]:
        """Each card left unnamed (``found``, read on the outlines ``best``) read again on up to
        ``OTHER_TRIES`` other outlines of the same card (``same_card``), most like the bank
        first, then on its outlines moved onto the straight edges outside them
        (``lines.onto_outer_edges``), then on the outline it was left unnamed on (before and
        after snapping) with one side moved to a card's proportions
        (``geometry.card_proportioned``, where the bank finds it like a card); named on the first
        of them where it is named, a sure pinta (``Cues.sure``) reads the suit named, and the
        pinta is read at more of the card's ends than on the outline it was left unnamed on, or
        where the bank alone names it surely (``sure_confidence``); never on an outline lying over
        a card named already (``APART``).  On an outline placed by proportions, which may take in
        the table or leave part of the card out, the witness is stricter
        (``proportioned_witness``), and the bank's sureness counts only for the card it guessed
        on the outline the card was left unnamed on (three quarters of a 4 of oros and a strip
        of table look like a 2 of oros, surely).

        The outline most like the bank is not always the card's own: across decks a strip of
        table or a corner cut off may look a little more like some card of the bank, and then
        the card's sides do not snap onto its edges and its pinta and pips are not read.  On the
        held-out scenes of seed 2, two in three easy cards left unnamed were read on an outline
        off by a tenth of a card's width or more; on the true outline, most of them were named
        right.  Where none of its outlines is the card's own (its outline follows the frame line
        printed inside a pale card, or stops where a finger or another card crosses it), the
        card's straight edges often still run outside them.  Another outline is only another
        chance to misread the card unless something shows it is the card's own: its pinta, read
        at more ends and surely, or the bank's sureness (docs/camera.md, "A card left unnamed
        read again on its other outlines", "A card left unnamed read on its outlines moved onto
        its edges" and "A card left unnamed read on its outline given a card's proportions")."""
        named = [r for r in found if r.card is not None]
        edges = cache(lambda: frame_edges(frame))  # found once a frame, and only if needed
        result = []
        for source, reading in zip(best, found):
            if reading.card is None:
                reading = self._on_other_outlines(source, reading, readings, named, frame,
                                                  edges) or reading
                if reading.card is not None:
                    named.append(reading)
            result.append(reading)
        return result

    def _on_other_outlines(self, source: Reading, unnamed: Reading, readings: list[Reading],
                           named: list[Reading], frame: np.ndarray,
                           edges: Callable[[], np.ndarray]) -> Reading | None:
        """The card left unnamed on ``source`` (read as ``unnamed``) named on another of its
        outlines, as ``read_again`` says, or None."""
        others = sorted((r for r in readings if r is not source
                         and same_card(r.corners, source.corners)
                         and not any(overlaps(r.corners, n.corners, APART) for n in named)),
                        key=lambda r: -r.similarity)[:OTHER_TRIES]
        ends = None
        for again, both in self._other_readings(source, unnamed, others, named, frame, edges):
            if again.card is None:
                continue
            if (not again.by_cues and again.confidence >= self.settings.sure_confidence
                    and (not both or again.card == unnamed.guess)):
                return again
            cues = self._cues(again, frame)
            if not cues.reads(again.card.suit):
                continue
            if both and not proportioned_witness(again, unnamed, cues):
                continue
            if ends is None:
                ends = ends_read(cue_image(unnamed, frame))
            if cues.ends > ends:
                return again
        return None

    def _other_readings(self, source: Reading, unnamed: Reading, others: list[Reading],
                        named: list[Reading],
                        frame: np.ndarray, edges: Callable[[], np.ndarray],
                        ) -> Iterator[tuple[Reading, bool]]:
        """The card read on each of its other outlines, then on each of its outlines (the one it
        was left unnamed on first) moved onto the straight edges outside it, then on the outline
        it was left unnamed on given a card's proportions, as they are asked for; a moved outline
        only once, and none lying over a card named already.  Each comes with whether it was
        placed by proportions (``proportioned_witness``)."""
        for other in others:
            yield self._read(other, frame), False
        moved: list[np.ndarray] = []
        for corners in [source.outline, *(other.corners for other in others)]:
            quad = onto_outer_edges(corners, edges())
            if quad is None or any(np.abs(quad - seen).max() < SAME_MOVED for seen in moved):
                continue
            moved.append(quad)
            if not any(overlaps(quad, n.corners, APART) for n in named):
                yield replace(self._read(self.classify(flatten(frame, quad), quad), frame),
                              moved=True), False
        shapes = [source.outline] + ([unnamed.outline] if unnamed.edges is not None else [])
        for quad in (q for corners in shapes for q in card_proportioned(corners)):
            if any(overlaps(quad, n.corners, APART) for n in named):
                continue
            judged = self.classify(flatten(frame, quad), quad)
            if judged.similarity >= self.settings.not_a_card:
                yield replace(self._read(judged, frame), moved=True), True

    def far_readings(self, far: list[Reading], found: list[Reading],
                     frame: np.ndarray) -> list[Reading]:
        """Card-shaped outlines the bank finds far from every card (below ``not_a_card``, at
        least ``far_card``), lying apart from the cards found (``APART``), kept only when their
        cues name them with the rank the bank guessed, or a 4 by its pips (``rank_witnessed``),
        or a caballo or rey his picture names where the bank guessed another rank, his suit told
        twice (``cues.far_figure``); one left unnamed may still be a 4 on another of its
        outlines (``far_fours``).

        Across decks some cards look like no card of the bank: the 1878 rey de oros and 4 of
        bastos (red ornaments between the clubs) to a naipes-libres bank, naipes-libres reyes
        and caballos to a Fournier one.  The bank still guesses their rank, and their coin,
        picture, pinta or pips confirm it.  With one witness of the rank such outlines named
        wrong cards: an 1878 ace of espadas, narrow as a sota, a sota de espadas; one club of
        an 1878 4 of bastos an ace of bastos."""
        if not self.settings.use_cues or self._colourless(frame):
            return []  # every rule naming them reads colour (``_confirm_grey``)
        apart = [r for r in far if not any(overlaps(r.corners, f.corners, APART) for f in found)]
        best = self._read_best(apart, frame)
        witnessed = [rank_witnessed(r) or self._figure_witnessed(r, frame) for r in best]
        named = [r for r, w in zip(best, witnessed) if w]
        unnamed = [r for r, w in zip(best, witnessed) if not w]
        return named + self.far_fours(unnamed, apart, named, frame)

    def _figure_witnessed(self, reading: Reading, frame: np.ndarray) -> bool:
        """A far caballo or rey named by his picture where the bank guessed another rank, his
        suit witnessed twice (``cues.far_figure``)."""
        card, guess = reading.card, reading.guess
        if card is None or guess is None or card.rank not in PICTURED:
            return False
        return far_figure(card, guess, self._cues(reading, frame))

    def far_fours(self, unnamed: list[Reading], far: list[Reading], named: list[Reading],
                  frame: np.ndarray) -> list[Reading]:
        """A far card left unnamed on its outline most like the bank, named a 4 on another of its
        outlines (up to ``FAR_TRIES``, most like the bank first) by its pips alone
        (``cues.far_four``: four pips by every count, a sure pinta of breaks, a bare middle).

        The 1878 4 of bastos, red ornaments between its clubs, is found through many outlines
        far from a naipes-libres bank; the one most like it is not always the one its pips are
        counted right on (a fifth blob of ornament, a pinta not read).  One card may leave
        several far groups: none is read where a card is named already."""
        fours: list[Reading] = []
        for reading in unnamed:
            others = sorted((r for r in far if r.corners is not reading.corners
                             and overlaps(r.corners, reading.corners, 0.6)),
                            key=lambda r: -r.similarity)
            for other in others[:FAR_TRIES]:
                if any(overlaps(other.corners, r.corners, APART) for r in named + fours):
                    break
                snapped = self.snapped(other, frame)
                four = far_four(self._cues(snapped, frame))
                if four is not None:
                    fours.append(replace(snapped, card=four, by_cues=True))
                    break
        return fours

    def snapped(self, reading: Reading, frame: np.ndarray) -> Reading:
        """The card with its sides snapped onto its edges (``geometry.snap_to_edges``), where its
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


def rank_witnessed(reading: Reading) -> bool:
    """Named with the rank the bank guessed, or a 4 (every rule naming a 4 counts its four pips,
    and where the bank guessed another rank, also its bare middle: ``cues.far_four``), and
    neither an ace (an outline far from the bank may hold one pip of a card) nor a sota (a
    narrow picture is an ace's too)."""
    card, guess = reading.card, reading.guess
    if card is None or guess is None:
        return False
    return (card.rank == guess.rank or card.rank == FOUR) and card.rank not in ONE_WITNESS


def proportioned_witness(again: Reading, unnamed: Reading, cues: Cues) -> bool:
    """A card named on an outline one side of which was placed by a card's proportions
    (``geometry.card_proportioned``) is of the rank the bank guessed there or where it was left
    unnamed (``unnamed``), and its pinta is one of breaks (``BREAK_PINTAS``: the unbroken line of
    oros is what the edge of any paper shows, and such an outline may take in the table) read at
    both ends, or bastos at one (``FAR_ONE_END``)."""
    assert again.card is not None
    ranks = {r.guess.rank for r in (again, unnamed) if r.guess is not None}
    return (again.card.rank in ranks and cues.pinta in BREAK_PINTAS
            and (cues.both_ends or cues.pinta in FAR_ONE_END))


def cue_image(reading: Reading, frame: np.ndarray) -> np.ndarray:
    """The card flattened for its cues, on its snapped outline when there is one."""
    return flatten(frame, reading.outline, PIP_SIZE)


def one_per_card(readings: list[Reading]) -> list[Reading]:
    """The readings, one per card: of two whose outlines, as best known, are one card's
    (``same_card``), the named one, or the surer, stays.  Two outlines the finder kept apart
    may be snapped onto the same card's edges, and the card was then read twice: a 2 of
    espadas named twice counted as one card named where there was none."""
    kept: list[Reading] = []
    for reading in sorted(readings, key=lambda r: (r.card is None, -r.confidence, -r.similarity)):
        if not any(same_card(reading.outline, other.outline) for other in kept):
            kept.append(reading)
    chosen = {id(r) for r in kept}
    return [r for r in readings if id(r) in chosen]


def same_card(a: np.ndarray, b: np.ndarray) -> bool:
    """Two outlines of one card: each covers at least ``SAME_CARD`` of the other (a part of a
    card, two coins of a 4 read as a 2, is covered by the card but does not cover it)."""
    return min(shares(a, b)) >= SAME_CARD


def card_shaped(corners: np.ndarray) -> bool:
    """The outline, its perspective undone, has a card's sides (within ``SHAPE_TOLERANCE``).

    An outline the bank finds far from every card may hold part of a card, or a card and a strip
    of table: the pips counted on it are then the wrong ones (a check of the cloth as a 7th sword)."""
    return has_card_proportions(corners, SHAPE_TOLERANCE)


def _drop_parts(readings: list[Reading]) -> list[Reading]:
    """Drop outlines lying inside a larger card-like outline that looks nearly as much like a
    card, or inside a card-shaped one (``card_shaped``) at least twice their area, however it
    looks: part of a card can look like another card (two coins of the 5 of oros look like the
    2; the two coins at one end of an 1878 4 of oros looked like another deck's 2 with full
    confidence, while the whole 4 looked like no card of that deck), but a card never holds a
    card.  The larger one stays, read or abstained.

    An outline is never asked whether it lies in one no larger than itself: ``shares`` divides
    what the two have in common by each one's area (at least 1), so its share would be at most
    the other's, and a part's share is above 0.8 only where the whole's is under it (``_holds``)."""
    boxes = bounds([r.corners for r in readings])
    areas = [max(1.0, float(cv2.contourArea(r.corners))) for r in readings]
    return [r for r, box, area in zip(readings, boxes, areas)
            if not any(w is not r and area < warea and not apart(box, wbox) and _holds(w, r)
                       for w, wbox, warea in zip(readings, boxes, areas))]


def _holds(whole: Reading, part: Reading) -> bool:
    """``part`` lies inside ``whole`` and is a part of it (``_drop_parts``)."""
    inside, around = shares(part.corners, whole.corners)
    if inside <= 0.8 or around >= 0.8:
        return False
    if whole.similarity >= part.similarity - PART_MARGIN:
        return True
    small = cv2.contourArea(part.corners.astype(np.float32)) < PART_AREA * cv2.contourArea(
        whole.corners.astype(np.float32))
    return small and card_shaped(whole.corners)
