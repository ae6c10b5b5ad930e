"""``benchmarks.cards --learn``: the second half of the scenes is counted apart as well."""

from __future__ import annotations

import numpy as np

from benchmarks.cards import Tally, run_scenes
from engine.cards import Card
from referee.vision.bank import Bank
from referee.vision.faces import Face
from referee.vision.recognize import Recognizer, RecognizerSettings
from referee.vision.scenes import SceneOptions, random_scene


def test_the_late_tally_counts_the_second_half_of_the_scenes(
        wikimedia_bank: Bank, fournier: dict[Card, Face]) -> None:
    opts = SceneOptions(empty_rate=0.0)
    rng = np.random.default_rng(4)
    shown = [len(random_scene(fournier, rng, opts).cards) for _ in range(6)]
    late = Tally()
    tally = run_scenes(Recognizer(wikimedia_bank, RecognizerSettings(learn=True)), fournier, 6, 4,
                       opts, late)
    assert tally.cards == sum(shown)
    assert late.cards == sum(shown[3:])
    assert late.correct <= tally.correct
