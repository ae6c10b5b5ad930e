"""Views of the table's deck learned while reading: they raise the bank's own guess, when they
tell it apart themselves and the card's kin have views too, or name a card they know well or see
again whatever the bank guesses; a recognizer learns them from the cards it names."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from engine.cards import RANKS, Card, Suit
from referee.vision.bank import Bank
from referee.vision.faces import Face
from referee.vision.features import describe
from referee.vision.learned import AGAIN, KNOWN, LearnedViews, kin
from referee.vision.reading import Reading
from referee.vision.recognize import Recognizer, RecognizerSettings
from referee.vision.scenes import SceneOptions, random_scene, render

FIVE, SIX, SEVEN = Card.parse("5e"), Card.parse("6e"), Card.parse("7e")
CARDS = [FIVE, SIX, SEVEN]


def picture(seed: int) -> np.ndarray:
    """A flattened 'card': any image the descriptor can read."""
    return np.random.default_rng(seed).integers(0, 256, (148, 96, 3), dtype=np.uint8)


def another_view(card: np.ndarray, spread: int = 40) -> np.ndarray:
    """The card seen otherwise, noise of up to ``spread`` on each value: about 0.85 like it
    (``AGAIN`` is 0.93), 0.61 with ``spread`` 100 (``KNOWN`` is 0.7)."""
    noise = np.random.default_rng(1).integers(-spread, spread + 1, card.shape)
    return np.clip(card.astype(int) + noise, 0, 255).astype(np.uint8)


def test_kin_are_the_neighbouring_pips_the_fellow_figures_and_the_same_rank() -> None:
    every = [Card(rank, suit) for rank in RANKS for suit in Suit]
    assert {str(c) for c in kin(Card.parse("5e"), every)} == {
        "3e", "4e", "5e", "6e", "7e", "5o", "5c", "5b"}
    assert {str(c) for c in kin(Card.parse("1b"), every)} == {"1b", "2b", "3b", "1e", "1o", "1c"}
    assert {str(c) for c in kin(Card.parse("11c"), every)} == {
        "10c", "11c", "12c", "11e", "11o", "11b"}


def test_nothing_learned_leaves_the_bank_alone() -> None:
    views = LearnedViews(CARDS)
    bank = np.array([[0.5, 0.55, 0.6]], np.float32)
    assert views.lifted(bank, describe(picture(1))[None]) is bank
    assert views.total == 0


def test_a_view_raises_the_banks_guess_only_once_its_kin_are_learned() -> None:
    views = LearnedViews(CARDS)
    seven = picture(7)
    views.add(SEVEN, seven)
    bank = np.array([[0.5, 0.55, 0.6]], np.float32)  # the bank guesses the 7, unsure
    outline = describe(another_view(seven))[None]
    assert np.array_equal(views.lifted(bank, outline), bank), "the 5 and 6 have no view yet"
    views.add(FIVE, picture(5))
    views.add(SIX, picture(6))
    lifted = views.lifted(bank, outline)
    assert 0.8 < lifted[0, 2] < AGAIN
    assert np.array_equal(lifted[0, :2], bank[0, :2]), "the other cards keep the bank's"


def test_one_picture_learned_as_two_cards_raises_neither() -> None:
    views = LearnedViews(CARDS)
    seven = picture(7)
    for card in CARDS:
        views.add(card, seven if card != FIVE else picture(5))
    bank = np.array([[0.5, 0.55, 0.6]], np.float32)
    assert np.array_equal(views.lifted(bank, describe(seven)[None]), bank)


def test_a_view_raises_a_card_the_bank_does_not_guess_only_when_it_is_close() -> None:
    views = LearnedViews(CARDS)
    for card, seed in zip(CARDS, (5, 6, 7)):
        views.add(card, picture(seed))
    bank = np.array([[0.5, 0.6, 0.55]], np.float32)  # the bank guesses the 6
    far = describe(another_view(picture(7), spread=100))[None]
    assert np.array_equal(views.lifted(bank, far), bank)
    lifted = views.lifted(bank, describe(another_view(picture(7)))[None])  # its kin learned
    assert KNOWN < lifted[0, 2] < AGAIN
    assert np.array_equal(lifted[0, :2], bank[0, :2]), "the other cards keep the bank's"
    lifted = views.lifted(bank, describe(picture(7))[None])  # the 7 seen again
    assert lifted[0, 2] == pytest.approx(1.0, abs=1e-5)


def test_a_card_seen_again_needs_no_kin_but_a_clear_margin() -> None:
    views = LearnedViews(CARDS)
    seven = picture(7)
    views.add(SEVEN, seven)
    bank = np.array([[0.5, 0.6, 0.55]], np.float32)  # the bank guesses the 6; the 5 and 6 unlearned
    assert views.lifted(bank, describe(seven)[None])[0, 2] == pytest.approx(1.0, abs=1e-5)
    assert np.array_equal(views.lifted(bank, describe(another_view(seven))[None]), bank)
    views.add(SIX, seven)  # the same picture learned as the 6 too: no card stands out
    assert np.array_equal(views.lifted(bank, describe(seven)[None]), bank)


def test_each_card_keeps_at_most_its_share_of_views() -> None:
    views = LearnedViews(CARDS, per_card=2)
    for seed in range(4):
        views.add(SEVEN, picture(seed))
    assert views.count(SEVEN) == 2 and not views.wants(SEVEN) and views.wants(SIX)
    assert views.scores(describe(picture(0))[None])[0, 0] == -1.0  # the 5 has none


def test_a_recognizer_learns_the_held_out_deck_from_the_cards_it_names(
        wikimedia_bank: Bank, fournier: dict[Card, Face]) -> None:
    """Every view learned is of the card it is learned as, and the learned views name cards the
    bank alone left unnamed, never wrongly (the 1-7, so that their kin are soon learned).  It
    takes a game's worth of scenes: over the first 60 the bank alone names as many."""
    opts = SceneOptions(max_tilt=30, finger_rate=0.0, overlap_rate=0.0, empty_rate=0.0)
    plain = Recognizer(wikimedia_bank)
    learner = Recognizer(wikimedia_bank, RecognizerSettings(learn=True))
    assert plain.learned is None and learner.learned is not None
    rng = np.random.default_rng(5)
    named = {"plain": 0, "learner": 0}
    shown: set[Card] = set()
    pips = {card: face for card, face in fournier.items() if card.rank <= 7}
    for _ in range(120):
        scene = random_scene(pips, rng, opts)
        truth = {c.card for c in scene.cards}
        shown |= truth
        for name, recognizer in (("plain", plain), ("learner", learner)):
            cards = [r.card for r in recognizer.read(scene.image) if r.card is not None]
            assert set(cards) <= truth, name
            named[name] += len(cards)
    assert learner.learned.total >= 10
    assert {c for c in learner.learned.cards if learner.learned.count(c)} <= shown
    assert named["learner"] > named["plain"]


def test_a_card_named_far_from_the_bank_is_learned_only_when_seen_again() -> None:
    views = LearnedViews(CARDS)
    seven = describe(picture(7))
    assert not views.seen_again(SEVEN, seven), "the first time it is only kept"
    assert not views.seen_again(SIX, seven), "as another card it is not seen again"
    assert not views.seen_again(SEVEN, describe(picture(8)))
    assert views.seen_again(SEVEN, seven.copy())


def test_a_card_named_on_an_outline_moved_onto_straight_edges_is_not_learned(
        wikimedia_bank: Bank, fournier: dict[Card, Face]) -> None:
    """Such an outline may take in the table or another card: the card keeps its name, and the
    view is not learned; named so on the card's own outline, it is."""
    opts = SceneOptions(max_tilt=20, finger_rate=0.0, overlap_rate=0.0, card_size=(0.5, 0.7))
    scene = render([fournier[SEVEN]], np.random.default_rng(3), opts)
    corners = scene.cards[0].corners.astype(np.float32)
    reading = Reading(SEVEN, 0.9, corners, SEVEN, similarity=0.8, by_cues=True)
    for moved, views in ((True, 0), (False, 1)):
        learner = Recognizer(wikimedia_bank, RecognizerSettings(learn=True))
        learner._learn([replace(reading, moved=moved)], scene.image)
        assert learner.learned is not None and learner.learned.total == views, moved
