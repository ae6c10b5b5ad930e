"""The card finder on generated scenes: outlines close to the true corners, nothing on bare tables."""

from __future__ import annotations

import numpy as np
import pytest

from engine.cards import Card
from referee.vision.detect import find_cards
from referee.vision.faces import Face
from referee.vision.recognize import Recognizer
from referee.vision.scenes import SceneOptions, random_scene, render

CLEAR = SceneOptions(max_tilt=30, finger_rate=0.0, overlap_rate=0.0, empty_rate=0.0)


def corner_error(found: np.ndarray, truth: np.ndarray) -> float:
    """Largest corner distance, in card widths, for the best corner order."""
    width = float(np.linalg.norm(truth[1] - truth[0]))
    return min(float(np.linalg.norm(np.roll(found, r, axis=0) - truth, axis=1).max())
               for r in range(4)) / width


@pytest.mark.parametrize("kind", ["felt", "wood", "white", "cloth"])
def test_cards_are_outlined_on_every_table(wikimedia: dict[Card, Face], kind: str) -> None:
    rng = np.random.default_rng(21)
    opts = SceneOptions(max_tilt=30, finger_rate=0.0, overlap_rate=0.0, tables=(kind,))
    outlined = total = 0
    for _ in range(4):
        scene = random_scene(wikimedia, rng, opts)
        quads = find_cards(scene.image)
        for card in scene.cards:
            total += 1
            outlined += any(corner_error(q, card.corners) < 0.15 for q in quads)
    assert total >= 6
    assert outlined >= 0.75 * total, f"{outlined}/{total} cards outlined on {kind}"


def test_bare_tables_give_no_named_card(recognizer: Recognizer) -> None:
    rng = np.random.default_rng(22)
    for kind in ("felt", "wood", "white", "cloth"):
        scene = render([], rng, CLEAR, table_kind=kind)
        assert [r for r in recognizer.read(scene.image) if r.card] == [], kind


def test_frames_must_be_colour_images() -> None:
    with pytest.raises(ValueError, match="BGR colour frame"):
        find_cards(np.zeros((48, 64), np.uint8))
