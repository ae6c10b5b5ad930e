"""A deck the bank has never seen: cards are named only when the cues agree, and never wrongly."""

from __future__ import annotations

import numpy as np
import pytest

from engine.cards import Card
from referee.vision.bank import Bank
from referee.vision.faces import Face
from referee.vision.recognize import Recognizer, RecognizerSettings
from referee.vision.scenes import SceneOptions, random_scene

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
