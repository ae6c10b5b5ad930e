"""A deck the bank has never seen: cards are named only when the cues agree, and never wrongly."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pytest

from engine.cards import Card, Suit
from referee.vision import second_look
from referee.vision.bank import Bank
from referee.vision.cues import Cues
from referee.vision.faces import Face
from referee.vision.figure_cues import far_figure
from referee.vision.geometry import flatten
from referee.vision.pips import Pips
from referee.vision.reading import Reading
from referee.vision.recognize import Recognizer, RecognizerSettings
from referee.vision.scenes import Scene, SceneOptions, random_scene, render
from referee.vision.second_look import (
    covered,
    far_again,
    far_witnessed,
    figure_again,
    rank_witnessed,
    read_again,
)
from tests.vision.test_detect import corner_error

EASY = SceneOptions(max_tilt=30, finger_rate=0.0, overlap_rate=0.0, empty_rate=0.0)


def pip_cards(deck: dict[Card, Face]) -> dict[Card, Face]:
    """The 2-7 of each suit: the cards whose pips can be counted."""
    return {card: face for card, face in deck.items() if 2 <= card.rank <= 7}


def named_on_scenes(recognizer: Recognizer, deck: dict[Card, Face], scenes: int,
                    seed: int) -> tuple[int, int, int, int]:
    """Cards shown, named right, named wrong and named by the cues, over generated easy scenes."""
    rng = np.random.default_rng(seed)
    shown = right = wrong = by_cues = 0
    for _ in range(scenes):
        scene = random_scene(deck, rng, EASY)
        truth = {c.card for c in scene.cards}
        named = [r for r in recognizer.read(scene.image) if r.card]
        shown += len(truth)
        right += sum(r.card in truth for r in named)
        wrong += sum(r.card not in truth for r in named)
        by_cues += sum(r.by_cues for r in named)
    return shown, right, wrong, by_cues


@pytest.mark.parametrize(("bank_name", "deck_name"), [("wikimedia_bank", "fournier"),
                                                      ("fournier_bank", "wikimedia")])
def test_held_out_deck_is_named_without_wrong_names(bank_name: str, deck_name: str,
                                                    request: pytest.FixtureRequest) -> None:
    bank: Bank = request.getfixturevalue(bank_name)
    deck: dict[Card, Face] = request.getfixturevalue(deck_name)
    shown, right, wrong, by_cues = named_on_scenes(Recognizer(bank), pip_cards(deck), 8, seed=33)
    assert wrong == 0
    assert by_cues >= 2, "the pip and colour check should name cards the bank is unsure of"
    assert right >= 0.7 * shown, f"{right}/{shown} named"


def test_without_cues_fewer_cards_are_named(wikimedia_bank: Bank,
                                            fournier: dict[Card, Face]) -> None:
    plain = Recognizer(wikimedia_bank, RecognizerSettings(use_cues=False))
    _, right_plain, _, by_cues = named_on_scenes(plain, pip_cards(fournier), 8, seed=33)
    _, right_cues, _, _ = named_on_scenes(Recognizer(wikimedia_bank), pip_cards(fournier), 8, seed=33)
    assert by_cues == 0
    assert right_cues > right_plain


def test_a_card_far_from_every_card_of_the_bank_is_read_when_its_cues_name_it(
        wikimedia_bank: Bank, fournier: dict[Card, Face]) -> None:
    """The 1878 rey de oros looks like no naipes-libres card (below ``not_a_card``), but the bank
    still guesses a rey, and his coin and his picture name him: read, where before he was dropped
    as no card at all."""
    rey = Card(12, Suit.OROS)
    opts = SceneOptions(max_tilt=20, finger_rate=0.0, overlap_rate=0.0, card_size=(0.5, 0.7))
    scene = render([fournier[rey]], np.random.default_rng(6), opts)
    never = Recognizer(wikimedia_bank, RecognizerSettings(far_card=RecognizerSettings.not_a_card))
    assert never.read(scene.image) == []
    (reading,) = Recognizer(wikimedia_bank).read(scene.image)
    assert reading.card == rey
    assert reading.similarity < RecognizerSettings.not_a_card


@pytest.mark.parametrize(("named", "guess", "kept"), [
    ("12o", "12e", True),   # a rey, as the bank guessed; the coin tells oros
    ("4e", "4b", True),     # a 4, as the bank guessed; its pinta and pips tell espadas
    ("11c", "1b", False),   # a caballo the bank took for an ace: one witness for the rank
    ("10e", "10b", False),  # a sota: the 1878 ace of espadas is as narrow in the middle
    ("1b", "1e", False),    # an ace: one club of an 1878 4 of bastos is one too
    (None, "12b", False),
])
def test_a_far_card_is_kept_only_with_two_witnesses_of_its_rank(named: str | None, guess: str,
                                                                kept: bool) -> None:
    card = Card.parse(named) if named else None
    reading = Reading(card, 0.0, np.zeros((4, 2)), Card.parse(guess), similarity=0.4, by_cues=True)
    assert rank_witnessed(reading) is kept


PICTURE = Pips({"ink": 1}, {"red": 0.3, "yellow": 0.4, "green": 0.0, "blue": 0.3})


@pytest.mark.parametrize(("named", "guess", "pinta", "both_ends", "coin", "kept"), [
    ("11b", "1b", Suit.BASTOS, False, False, True),   # bastos' three breaks, read at one end
    ("11c", "2e", Suit.COPAS, True, False, True),     # copas' one break, at both ends
    ("11o", "1c", Suit.OROS, True, True, True),       # an unbroken line and the coin
    ("11b", "12b", Suit.BASTOS, True, False, True),   # the bank took him for a rey
    ("12e", "10c", Suit.ESPADAS, True, False, True),  # a rey the bank took for a sota
    ("12o", "11e", Suit.OROS, True, True, True),      # a rey de oros, his coin in sight
    ("11o", "1o", Suit.OROS, True, False, False),     # an unbroken line alone: any edge of paper
    ("12o", "10o", Suit.OROS, True, False, False),
    ("11c", "1c", Suit.COPAS, False, False, False),   # one break at one end: not sure
    ("12c", "10c", Suit.COPAS, False, False, False),
    ("11e", "12o", Suit.ESPADAS, False, False, False),  # two breaks at one end: bastos with
                                                        # one hidden under the club reads so
    ("11e", "1e", Suit.BASTOS, True, False, False),   # the pinta tells another suit
    ("12e", "11e", Suit.BASTOS, True, False, False),
    ("12b", "1b", Suit.BASTOS, True, False, False),   # a rey: is_caballo names only caballos
    ("10e", "12e", Suit.ESPADAS, True, False, False),  # a sota: an ace's picture is as narrow
])
def test_a_far_figure_named_by_his_picture_needs_his_suit_told_twice(
        named: str, guess: str, pinta: Suit, both_ends: bool, coin: bool, kept: bool) -> None:
    cues = Cues(PICTURE, pinta, both_ends, coin)
    assert far_figure(Card.parse(named), Card.parse(guess), cues) is kept


@pytest.mark.parametrize(("named", "guess", "pinta", "coin", "cup", "kept"), [
    ("12o", "10o", None, True, False, True),          # his coin in sight, no pinta read
    ("11o", "1o", Suit.OROS, True, False, True),      # the coin, and an unbroken line at one end
    ("12c", "10b", None, False, True, True),          # his cup in sight
    ("11c", "2e", Suit.COPAS, False, True, True),     # the cup, and copas' one break at one end
    ("11o", "12b", None, True, False, False),         # the bank took him for a rey: a caballo's
    ("12o", "11o", Suit.OROS, True, False, False),    # picture and a rey's differ by the brown alone
    ("12o", "10o", Suit.COPAS, True, False, False),   # the coin, but the pinta reads copas
    ("12c", "10c", None, True, True, False),          # a coin and a cup: no suit told
    ("12o", "10c", None, False, True, False),         # the cup tells copas, not the oros named
    ("12o", "10o", None, False, False, False),        # nothing held, no pinta read
    ("12o", "5o", None, True, False, False),          # the bank took him for no figure
])
def test_a_far_figure_holding_the_emblem_of_his_suit_needs_no_pinta(
        named: str, guess: str, pinta: Suit | None, coin: bool, cup: bool, kept: bool) -> None:
    """The coin or the cup he holds tells his suit, as his picture tells his rank against a bank
    that took him for a narrow picture, unless a pinta reads another suit or he is seen holding
    both."""
    cues = Cues(PICTURE, pinta, False, coin, cup)
    assert far_figure(Card.parse(named), Card.parse(guess), cues) is kept


@pytest.mark.parametrize(("card", "guess", "kept"), [
    ("11b", "1b", True),    # the bank took him for an ace: his three breaks tell bastos
    ("11b", "12b", True),   # ... or for a rey
    ("11b", "5b", False),   # a 1-7 other than an ace or a two: is_caballo names none
    ("12e", "10e", True),   # a rey the bank took for a sota: his pinta tells espadas
    ("12e", "4e", False),
])
def test_a_far_figure_is_kept_where_his_pinta_is_read_surely(
        wikimedia_bank: Bank, fournier: dict[Card, Face], card: str, guess: str,
        kept: bool) -> None:
    """1878 figures read far from a naipes-libres bank that took them for another rank: the
    pinta tells their suit as their picture tells their rank."""
    recognizer = Recognizer(wikimedia_bank)
    figure = Card.parse(card)
    scene = one_card_scene(fournier[figure])
    reading = Reading(figure, 0.0, scene.cards[0].corners, Card.parse(guess), similarity=0.4,
                      by_cues=True)
    assert not rank_witnessed(reading)
    assert far_witnessed(recognizer, reading, scene.image) is kept
    other_suit = replace(reading, card=Card(figure.rank, Suit.OROS))
    assert not far_witnessed(recognizer, other_suit, scene.image)


def scores_with(recognizer: Recognizer, best: float, second: float) -> np.ndarray:
    """Similarities to the bank's cards: the first card ``best``, the next ``second``, the rest
    lower still."""
    scores = np.linspace(second - 0.05, 0.1, len(recognizer.bank.cards))
    scores[0], scores[1] = best, second
    return scores


@pytest.mark.parametrize(("best", "second", "named"), [
    (0.65, 0.45, True),    # far ahead of every other card: named, though only fairly close
    (0.68, 0.53, True),
    (0.65, 0.52, False),   # a lead of 0.13: too little
    (0.61, 0.30, False),   # ahead by far, but not close enough to the bank
])
def test_a_card_far_ahead_of_every_other_is_named(recognizer: Recognizer, best: float,
                                                  second: float, named: bool) -> None:
    card, confidence, similarity = recognizer.judge(scores_with(recognizer, best, second))
    assert card == recognizer.bank.cards[0] and similarity == pytest.approx(best)
    assert (confidence >= recognizer.settings.min_confidence) == named
    plain = replace(recognizer.settings, clear_lead=1.0)
    assert Recognizer(recognizer.bank, plain).judge(
        scores_with(recognizer, best, second))[1] < plain.min_confidence


def test_a_stricter_bar_is_not_lowered_by_a_clear_lead(recognizer: Recognizer) -> None:
    """``cards --min-confidence 0.9``: a clear lead gives the default bar's confidence, not the
    stricter one."""
    strict = Recognizer(recognizer.bank, replace(recognizer.settings, min_confidence=0.9))
    confidence = strict.judge(scores_with(strict, 0.65, 0.45))[1]
    assert confidence == pytest.approx(strict.settings.lead_confidence)
    assert confidence < strict.settings.min_confidence


def one_card_scene(face: Face) -> Scene:
    """One card, large and little tilted, on a generated table."""
    opts = SceneOptions(max_tilt=20, finger_rate=0.0, overlap_rate=0.0, card_size=(0.5, 0.7))
    return render([face], np.random.default_rng(3), opts)


@pytest.mark.parametrize("card", ["4b", "11b", "12o", "12c"])
def test_a_far_card_left_unnamed_is_read_on_another_of_its_outlines(
        wikimedia_bank: Bank, fournier: dict[Card, Face], card: str) -> None:
    """1878 cards far from a naipes-libres bank, left unnamed on an outline of part of them: on
    the whole card the 4 of bastos' four clubs, pinta and bare middle name it, and a rey's or a
    caballo's picture his rank, where the bank takes the outline for him, and his pinta or coin
    his suit.  None is read where a card is named already."""
    recognizer = Recognizer(wikimedia_bank)
    named = Card.parse(card)
    scene = one_card_scene(fournier[named])
    whole = scene.cards[0].corners
    part = whole.mean(axis=0) + 0.75 * (whole - whole.mean(axis=0))
    unnamed = Reading(None, 0.1, part, Card(5, Suit.BASTOS), similarity=0.36)
    other = Reading(None, 0.1, whole, Card(2, Suit.BASTOS), similarity=0.34)
    again = far_again(recognizer, [unnamed], [unnamed, other], [], scene.image)
    assert [r.card for r in again] == [named] and again[0].by_cues
    assert far_again(recognizer, [unnamed], [unnamed], [], scene.image) == []
    named_there = replace(other, card=named)
    assert far_again(recognizer, [unnamed], [unnamed, other], [named_there], scene.image) == []


@pytest.mark.parametrize(("guess", "kept"), [("11b", True), ("10b", True), ("12b", False)])
def test_a_far_caballo_on_another_outline_is_named_where_the_bank_took_him_for_himself_or_a_sota(
        wikimedia_bank: Bank, fournier: dict[Card, Face], guess: str, kept: bool) -> None:
    """A sota's narrow picture is told from a caballo's; a rey's only by the horse's brown, which
    the 1878 rey de oros' robe shows too: where the bank took the outline for a rey, the picture
    does not make him a caballo."""
    recognizer = Recognizer(wikimedia_bank)
    caballo = Card(11, Suit.BASTOS)
    scene = one_card_scene(fournier[caballo])
    reading = Reading(caballo, 0.0, scene.cards[0].corners, Card.parse(guess), similarity=0.4,
                      by_cues=True)
    assert figure_again(recognizer, reading, scene.image) is kept


@pytest.mark.parametrize(("named", "kept"), [("12o", True), ("12c", False)])
def test_a_far_rey_on_another_outline_is_named_only_in_the_suit_his_cues_tell(
        wikimedia_bank: Bank, fournier: dict[Card, Face], named: str, kept: bool) -> None:
    """The 1878 rey de oros on an outline a naipes-libres bank took for a rey de espadas: the
    bank's rank is no witness of his suit.  Named a rey de copas there (as on held-out scenes of
    seeds 5 and 20), his pinta, read as oros, and his coin say otherwise."""
    recognizer = Recognizer(wikimedia_bank)
    scene = one_card_scene(fournier[Card(12, Suit.OROS)])
    reading = Reading(Card.parse(named), 0.0, scene.cards[0].corners, Card(12, Suit.ESPADAS),
                      similarity=0.4, by_cues=True)
    assert figure_again(recognizer, reading, scene.image) is kept


def test_a_far_card_named_over_a_card_left_unnamed_stands_for_it() -> None:
    """A far card named where an outline the bank found a little like a card was left unnamed:
    the unnamed one goes; a card named there, or an outline elsewhere, stays."""
    square = np.array([[0, 0], [100, 0], [100, 150], [0, 150]], np.float32)
    far = Reading(Card(4, Suit.BASTOS), 0.0, square, Card(5, Suit.BASTOS), similarity=0.37)
    over = Reading(None, 0.1, square + np.float32([40, 60]), Card(3, Suit.BASTOS), similarity=0.55)
    elsewhere = Reading(None, 0.1, square + np.float32([300, 0]), Card(3, Suit.BASTOS), similarity=0.55)
    assert covered(over, [far])
    assert not covered(replace(over, card=Card(3, Suit.BASTOS)), [far])
    assert not covered(elsewhere, [far]) and not covered(over, [])


def bank_reading(recognizer: Recognizer, image: np.ndarray, quad: np.ndarray) -> Reading:
    quad = quad.astype(np.float32)
    return recognizer.classify(flatten(image, quad), quad)


def confirmed(recognizer: Recognizer, image: np.ndarray, reading: Reading) -> Reading:
    """The reading snapped and confirmed, as ``Recognizer.read`` does."""
    return recognizer.confirm(recognizer.snapped(reading, image), image)


@dataclass(frozen=True)
class Outlines:
    """One card of a generated scene and two outlines of it, read by the bank."""

    image: np.ndarray
    corners: np.ndarray  # the card's own outline
    off: Reading  # an outline off the card: a strip of table on one side, of the card cut off
    own: Reading  # on the other; and the card's own


def outlines(recognizer: Recognizer, face: Face) -> Outlines:
    scene = one_card_scene(face)
    image, whole = scene.image, scene.cards[0].corners
    centre = whole.mean(axis=0)
    off = centre + 1.15 * (whole - centre) + 0.1 * (whole[1] - whole[0])
    return Outlines(image, whole, bank_reading(recognizer, image, off),
                    bank_reading(recognizer, image, whole))


def test_a_card_left_unnamed_is_read_again_on_its_own_outline(wikimedia_bank: Bank,
                                                              fournier: dict[Card, Face]) -> None:
    """The 1878 sota de copas, read on an outline off the card: the bank guesses a sota de bastos
    and its pinta is not read.  On its own outline its pinta and its picture name it; with no
    other outline, so does the outline it was left unnamed on, moved onto the card's straight
    edges."""
    recognizer = Recognizer(wikimedia_bank)
    sota = Card(10, Suit.COPAS)
    seen = outlines(recognizer, fournier[sota])
    off, own = seen.off, seen.own
    unnamed = confirmed(recognizer, seen.image, off)
    assert unnamed.card is None
    again = read_again(recognizer, [off], [unnamed], [off, own], seen.image)
    assert [r.card for r in again] == [sota] and again[0].by_cues
    (moved,) = read_again(recognizer, [off], [unnamed], [off], seen.image)
    assert moved.card == sota and moved.by_cues
    assert corner_error(moved.outline, seen.corners) < 0.05
    named_there = replace(own, card=sota)
    assert read_again(recognizer, [off, own], [unnamed, named_there], [off, own],
                      seen.image)[0] is unnamed


def test_a_card_left_unnamed_is_not_read_again_on_a_part_of_it(wikimedia_bank: Bank,
                                                               fournier: dict[Card, Face]) -> None:
    """The top half of the 1878 caballo de copas, read alone, is a caballo de oros (the edges of
    half a card read as a line without breaks at both ends): a part of a card is not one of its
    outlines.  The card is named on the outline it was left unnamed on, moved onto its straight
    edges, never as the half reads."""
    recognizer = Recognizer(wikimedia_bank)
    caballo = Card(11, Suit.COPAS)
    seen = outlines(recognizer, fournier[caballo])
    q = seen.corners
    top = bank_reading(recognizer, seen.image, np.array([q[0], q[1], (q[1] + q[2]) / 2, (q[3] + q[0]) / 2]))
    assert confirmed(recognizer, seen.image, top).card == Card(11, Suit.OROS)
    unnamed = confirmed(recognizer, seen.image, seen.off)
    assert unnamed.card is None
    (again,) = read_again(recognizer, [seen.off], [unnamed], [seen.off, top], seen.image)
    assert again.card == caballo and corner_error(again.outline, q) < 0.05
    again = read_again(recognizer, [seen.off], [unnamed], [seen.off, top, seen.own], seen.image)
    assert [r.card for r in again] == [caballo]


@pytest.mark.parametrize(("card", "why"), [
    # An outline off the 6 of oros reads its pinta (a line without breaks) at both ends as well
    # as the card's own: the new outline is no witness of being the card's own.
    ("6o", "pinta read no better"),
    # On its own outline the ace of copas shows copas' one break at one end only, which a
    # drawing over the line can show too: not a sure witness.
    ("1c", "pinta not sure"),
])
def test_a_card_left_unnamed_is_not_named_on_an_outline_without_a_witness(
        wikimedia_bank: Bank, fournier: dict[Card, Face], card: str, why: str) -> None:
    """The 1878 card is named on its own outline, but nothing shows it is its own: it stays
    unnamed (the bank is sure of it there, 0.97 and 1.0, so that witness is taken away here:
    the next test)."""
    recognizer = Recognizer(wikimedia_bank, RecognizerSettings(sure_confidence=1.01))
    seen = outlines(recognizer, fournier[Card.parse(card)])
    unnamed = confirmed(recognizer, seen.image, seen.off)
    assert unnamed.card is None
    assert confirmed(recognizer, seen.image, seen.own).card == Card.parse(card)
    assert read_again(recognizer, [seen.off], [unnamed], [seen.off, seen.own], seen.image) == [unnamed], why


@pytest.mark.parametrize("card", ["6o", "1c"])
def test_a_card_left_unnamed_is_named_on_another_outline_the_bank_is_sure_of(
        wikimedia_bank: Bank, fournier: dict[Card, Face], card: str) -> None:
    """The cards above, with no pinta to witness their own outline: the bank, sure of them there
    (``sure_confidence``), is the witness."""
    recognizer = Recognizer(wikimedia_bank)
    seen = outlines(recognizer, fournier[Card.parse(card)])
    unnamed = confirmed(recognizer, seen.image, seen.off)
    assert unnamed.card is None
    (again,) = read_again(recognizer, [seen.off], [unnamed], [seen.off, seen.own], seen.image)
    assert again.card == Card.parse(card) and not again.by_cues
    assert again.confidence >= recognizer.settings.sure_confidence


@pytest.mark.parametrize(("card", "kept", "named"), [
    ("6b", 0.75, "6b"),   # cut short where a finger crosses it: grown back to a card's shape
    ("12c", 1.25, "12c"),  # run on past its end: cut back
    # Three quarters of the 4 of oros and a strip of table look like a 2 of oros to the bank,
    # surely; the bank guessed otherwise where the card was left unnamed, and an unbroken line
    # is no pinta to witness an outline placed by proportions.
    ("4o", 0.75, None),
])
def test_a_card_left_unnamed_is_read_on_its_outline_given_a_cards_proportions(
        wikimedia_bank: Bank, fournier: dict[Card, Face], monkeypatch: pytest.MonkeyPatch,
        card: str, kept: float, named: str | None) -> None:
    """An 1878 card outlined up to ``kept`` of its length, no straight edge of it found: read on
    its outline with one side moved to a card's proportions (``proportions.card_proportioned``),
    and named there only with its rank guessed and a pinta of breaks witnessing it."""
    monkeypatch.setattr(second_look, "frame_edges", lambda frame: np.zeros((0, 4), np.float32))
    recognizer = Recognizer(wikimedia_bank)
    scene = one_card_scene(fournier[Card.parse(card)])
    q = scene.cards[0].corners.astype(np.float32)
    near = q[[1, 0]]  # the near ends of the long sides
    off = bank_reading(recognizer, scene.image, np.concatenate([q[:2], near + kept * (q[2:] - near)]))
    unnamed = confirmed(recognizer, scene.image, off)
    assert unnamed.card is None
    (again,) = read_again(recognizer, [off], [unnamed], [off], scene.image)
    if named is None:
        assert again is unnamed
    else:
        assert again.card == Card.parse(named) and again.moved
        assert corner_error(again.outline, q) < 0.08


@pytest.mark.parametrize("card", ["11e", "11o", "4b"])
def test_a_card_far_from_the_bank_is_read_on_its_outline_snapped_to_a_cards_shape(
        wikimedia_bank: Bank, fournier: dict[Card, Face], card: str) -> None:
    """An 1878 card the bank finds a little far (below ``min_similarity``) on an outline found
    too wide, over a strip of the table: its cues are read on the outline snapped onto its
    edges, which has a card's shape, and name it (a caballo the bank took for an ace, a 4 for a
    5); snapped no better, it is left unnamed."""
    recognizer = Recognizer(wikimedia_bank)
    truth = Card.parse(card)
    scene = one_card_scene(fournier[truth])
    corners = scene.cards[0].corners
    wide = corners.copy()  # the short sides 0-1 and 3-2 a third longer
    wide[1] = corners[1] + 0.35 * (corners[1] - corners[0])
    wide[2] = corners[2] + 0.35 * (corners[2] - corners[3])
    guess = Card(1, Suit.OROS) if truth.rank == 11 else Card(5, truth.suit)
    reading = Reading(None, 0.0, wide, guess, similarity=0.5, edges=corners)
    assert recognizer.confirm(reading, scene.image).card == truth
    assert recognizer.confirm(replace(reading, edges=wide), scene.image).card is None
