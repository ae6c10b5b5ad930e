"""A second look at a card left unnamed or far from the bank: read on its other outlines."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from engine.cards import Suit
from referee.vision.cues import Cues
from referee.vision.figure_cues import FAR_ONE_END, PICTURED, far_figure, held_alone
from referee.vision.geometry import flatten
from referee.vision.layout_cues import far_four
from referee.vision.lines import frame_edges, onto_outer_edges
from referee.vision.outlines import best_of_overlapping, same_card
from referee.vision.overlap import overlaps
from referee.vision.pintas import BREAK_PINTAS, ends_read
from referee.vision.proportions import card_proportioned
from referee.vision.reading import Reading, cue_image

if TYPE_CHECKING:
    from referee.vision.recognize import Recognizer

ONE_WITNESS = frozenset({1, 10})  # ranks a far outline is not named (``rank_witnessed``)
FOUR = 4  # a far outline may be named a 4 of another rank than the bank's (``layout_cues.far_four``)
APART = 0.3  # a far outline goes if this much of it lies inside a card named, or of the card in it
UNNAMED_APART = 0.5  # ... or this much inside an outline left unnamed (``far_readings``)
FAR_TRIES = 3  # other outlines of a far card left unnamed, read again (``far_again``)
OTHER_TRIES = 3  # other outlines of a card left unnamed, read again (``read_again``)
SOTA = 10  # a far caballo or rey may be named on another outline the bank took for one (``figure_again``)
SAME_MOVED = 2.0  # pixels: outlines moved onto the same edges, their corners this close


def read_again(recognizer: Recognizer, best: list[Reading], found: list[Reading],
               readings: list[Reading], frame: np.ndarray) -> list[Reading]:
    """Each card left unnamed (``found``, read on the outlines ``best``) read again on up to
    ``OTHER_TRIES`` other outlines of the same card (``outlines.same_card``), most like the bank
    first, then on its outlines moved onto the straight edges outside them
    (``lines.onto_outer_edges``), then on the outline it was left unnamed on (before and
    after snapping) with one side moved to a card's proportions
    (``proportions.card_proportioned``, where the bank finds it like a card); named on the first
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
            reading = _on_other_outlines(recognizer, source, reading, readings, named, frame,
                                         edges) or reading
            if reading.card is not None:
                named.append(reading)
        result.append(reading)
    return result


def _on_other_outlines(recognizer: Recognizer, source: Reading, unnamed: Reading,
                       readings: list[Reading], named: list[Reading], frame: np.ndarray,
                       edges: Callable[[], np.ndarray]) -> Reading | None:
    """The card left unnamed on ``source`` (read as ``unnamed``) named on another of its
    outlines, as ``read_again`` says, or None."""
    others = sorted((r for r in readings if r is not source
                     and same_card(r.corners, source.corners)
                     and not any(overlaps(r.corners, n.corners, APART) for n in named)),
                    key=lambda r: -r.similarity)[:OTHER_TRIES]
    ends = None
    for again, both in _other_readings(recognizer, source, unnamed, others, named, frame, edges):
        if again.card is None:
            continue
        if (not again.by_cues and again.confidence >= recognizer.settings.sure_confidence
                and (not both or again.card == unnamed.guess)):
            return again
        cues = recognizer.cues(again, frame)
        if not cues.reads(again.card.suit):
            continue
        if both and not proportioned_witness(again, unnamed, cues):
            continue
        if ends is None:
            ends = ends_read(cue_image(unnamed, frame))
        if cues.ends > ends:
            return again
    return None


def _other_readings(recognizer: Recognizer, source: Reading, unnamed: Reading,
                    others: list[Reading], named: list[Reading],
                    frame: np.ndarray, edges: Callable[[], np.ndarray],
                    ) -> Iterator[tuple[Reading, bool]]:
    """The card read on each of its other outlines, then on each of its outlines (the one it
    was left unnamed on first) moved onto the straight edges outside it, then on the outline
    it was left unnamed on given a card's proportions, as they are asked for; a moved outline
    only once, and none lying over a card named already.  Each comes with whether it was
    placed by proportions (``proportioned_witness``)."""
    for other in others:
        yield recognizer.checked(other, frame), False
    moved: list[np.ndarray] = []
    for corners in [source.outline, *(other.corners for other in others)]:
        quad = onto_outer_edges(corners, edges())
        if quad is None or any(np.abs(quad - seen).max() < SAME_MOVED for seen in moved):
            continue
        moved.append(quad)
        if not any(overlaps(quad, n.corners, APART) for n in named):
            yield replace(recognizer.checked(recognizer.classify(flatten(frame, quad), quad),
                                             frame), moved=True), False
    shapes = [source.outline] + ([unnamed.outline] if unnamed.edges is not None else [])
    for quad in (q for corners in shapes for q in card_proportioned(corners)):
        if any(overlaps(quad, n.corners, APART) for n in named):
            continue
        judged = recognizer.classify(flatten(frame, quad), quad)
        if judged.similarity >= recognizer.settings.not_a_card:
            yield replace(recognizer.checked(judged, frame), moved=True), True


def far_readings(recognizer: Recognizer, far: list[Reading], found: list[Reading],
                 frame: np.ndarray) -> list[Reading]:
    """Card-shaped outlines the bank finds far from every card (below ``not_a_card``, at
    least ``far_card``), lying apart from the cards named (``APART``), kept only when their
    cues name them as a far card must be named (``far_witnessed``); one left unnamed on the
    outline most like the bank may be named so on another of its outlines, or be a 4 there
    (``far_again``).  A far outline may lie over part of an outline left unnamed, less than half
    of either (``UNNAMED_APART``), and then that outline goes if the far one is named
    (``covered``): an outline the bank found a little like a card may take in a corner of one it
    does not know (an 1878 4 of bastos, well outlined but far from a naipes-libres bank, lay
    under 0.3 of an outline of the table and another card, and was not read).  Where one holds
    most of the other, the one the bank found more like a card is the card's: far outlines
    round an ace of oros left unnamed, taking in the table or another card, were named reyes.

    Across decks some cards look like no card of the bank: the 1878 rey de oros and 4 of
    bastos (red ornaments between the clubs) to a naipes-libres bank, naipes-libres reyes
    and caballos to a Fournier one.  The bank still guesses their rank, and their coin,
    picture, pinta or pips confirm it.  With one witness of the rank such outlines named
    wrong cards: an 1878 ace of espadas, narrow as a sota, a sota de espadas; one club of
    an 1878 4 of bastos an ace of bastos."""
    if not recognizer.settings.use_cues or recognizer.colourless_frame(frame):
        return []  # every rule naming them reads colour (``Recognizer._confirm_grey``)
    apart = [r for r in far if not any(overlaps(r.corners, f.corners, apart_from(f))
                                       for f in found)]
    best = [recognizer.checked(r, frame) for r in best_of_overlapping(apart)]
    witnessed = [far_witnessed(recognizer, r, frame) for r in best]
    named = [r for r, w in zip(best, witnessed) if w]
    unnamed = [r for r, w in zip(best, witnessed) if not w]
    return named + far_again(recognizer, unnamed, apart, named, frame)


def far_witnessed(recognizer: Recognizer, reading: Reading, frame: np.ndarray) -> bool:
    """A far outline named with the rank the bank guessed or a 4 (``rank_witnessed``), or a
    caballo or rey his picture names where the bank guessed another rank, his suit told twice
    (``figure_cues.far_figure``)."""
    card, guess = reading.card, reading.guess
    if card is None or guess is None:
        return False
    if rank_witnessed(reading):
        return True
    return card.rank in PICTURED and far_figure(card, guess, recognizer.cues(reading, frame))


def far_again(recognizer: Recognizer, unnamed: list[Reading], far: list[Reading],
              named: list[Reading], frame: np.ndarray) -> list[Reading]:
    """A far card left unnamed on its outline most like the bank, named on another of its
    outlines (up to ``FAR_TRIES``, those it overlaps by 0.6, most like the bank first) as a
    caballo or a rey where the bank took that outline for him or for a sota (``figure_again``),
    or as a 4 by its pips alone (``layout_cues.far_four``: four pips by every count, a sure pinta of
    breaks, a bare middle).

    The outline most like the bank is not always the card's own: a strip of table or a corner
    cut off may look a little more like some card of the bank, and then the card's pinta and
    pips are not read.  The 1878 4 of bastos, red ornaments between its clubs, is found through
    many outlines far from a naipes-libres bank, and the one most like it is not always the one
    its pips are counted right on (a fifth blob of ornament, a pinta not read); 1878 reyes and
    caballos far from it were left unnamed on such an outline and named on their own, within 3%
    of a card's width.  Every far rule asked on the other outlines (seed 16, both ways) also named wrong cards:
    an 1878 4 of bastos a 5 by a fifth blob of ornament, and reyes de oros the bank took for a two
    caballos by their coin and picture.  One card may leave several far groups: none is read
    where a card is named already."""
    again: list[Reading] = []
    for reading in unnamed:
        others = sorted((r for r in far if r.corners is not reading.corners
                         and overlaps(r.corners, reading.corners, 0.6)),
                        key=lambda r: -r.similarity)
        for other in others[:FAR_TRIES]:
            if any(overlaps(other.corners, r.corners, APART) for r in named + again):
                break
            snapped = recognizer.snapped(other, frame)
            checked = recognizer.confirm(snapped, frame)
            if figure_again(recognizer, checked, frame):
                again.append(checked)
                break
            four = far_four(recognizer.cues(snapped, frame))
            if four is not None:
                again.append(replace(snapped, card=four, by_cues=True))
                break
    return again


def figure_again(recognizer: Recognizer, reading: Reading, frame: np.ndarray) -> bool:
    """A caballo or a rey (``PICTURED``) named on a far outline the bank took for him or for a
    sota (``SOTA``), his suit told without the bank: as where the bank guessed another figure
    (``figure_cues.far_figure``), by a sure pinta (``Cues.reads``), or by his coin where no pinta
    reads another suit.  The rank the bank guessed is no witness of his suit: taken for one on
    the held-out scenes of seeds 2-20 (both ways), it let 1878 reyes de oros be named reyes de
    copas by a cup seen in his coin (seed 5) or by copas read at one end, unsure (seed 20), and
    an 1878 caballo de espadas a caballo de copas by a cup (seed 13), while the cup or copas at
    one end named two reyes de copas right (seeds 6 and 17).  Espadas' two breaks read at one
    end, which ``far_figure`` does not take (a club over a break of bastos' pinta reads so),
    named 14 figures the bank took for sotas right and none wrong, and 11 it took for themselves
    right, but also an 1878 caballo de bastos, a fifth of him hidden, a caballo de espadas (seed
    10).  Figures named here on those scenes: 60 right and 1 wrong, where the bank's rank alone
    named 47 right and 4 wrong.  A sota's narrow picture is told from theirs, a caballo from a
    rey only by the horse's brown, which the 1878 rey de oros' robe shows too: of seven other
    outlines the bank took for reyes and the picture named caballos (seeds 2-20, both ways), two
    were 1878 reyes de oros (seeds 3 and 9)."""
    card, guess = reading.card, reading.guess
    if (card is None or guess is None or card.rank not in PICTURED
            or guess.rank not in (card.rank, SOTA)):
        return False
    cues = recognizer.cues(reading, frame)
    coin_alone = card.suit == Suit.OROS and held_alone(Suit.OROS, cues)
    return far_figure(card, guess, cues) or cues.reads(card.suit) or coin_alone


def rank_witnessed(reading: Reading) -> bool:
    """Named with the rank the bank guessed, or a 4 (every rule naming a 4 counts its four pips,
    and where the bank guessed another rank, also its bare middle: ``layout_cues.far_four``), and
    neither an ace (an outline far from the bank may hold one pip of a card) nor a sota (a
    narrow picture is an ace's too)."""
    card, guess = reading.card, reading.guess
    if card is None or guess is None:
        return False
    return (card.rank == guess.rank or card.rank == FOUR) and card.rank not in ONE_WITNESS


def proportioned_witness(again: Reading, unnamed: Reading, cues: Cues) -> bool:
    """A card named on an outline one side of which was placed by a card's proportions
    (``proportions.card_proportioned``) is of the rank the bank guessed there or where it was left
    unnamed (``unnamed``), and its pinta is one of breaks (``BREAK_PINTAS``: the unbroken line of
    oros is what the edge of any paper shows, and such an outline may take in the table) read at
    both ends, or bastos at one (``FAR_ONE_END``)."""
    assert again.card is not None
    ranks = {r.guess.rank for r in (again, unnamed) if r.guess is not None}
    return (again.card.rank in ranks and cues.pinta in BREAK_PINTAS
            and (cues.both_ends or cues.pinta in FAR_ONE_END))


def apart_from(found: Reading) -> float:
    """How much of a far outline may lie inside a card found, or of it in the far outline: less
    for a card named than for an outline left unnamed (``far_readings``)."""
    return APART if found.card is not None else UNNAMED_APART


def covered(reading: Reading, far_named: list[Reading]) -> bool:
    """A reading left unnamed that a far card named lies over (``APART``): the far card's
    witnesses stand for what is there."""
    return reading.card is None and any(overlaps(reading.corners, f.corners, APART)
                                        for f in far_named)
