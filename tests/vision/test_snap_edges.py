"""Snapping a card's outline onto its edges: corners within a few percent of the card, and the pinta
read where the finder's outline missed it."""

from __future__ import annotations

import numpy as np

from engine.cards import Card
from referee.vision.faces import Face
from referee.vision.geometry import flatten
from referee.vision.pintas import read_pintas
from referee.vision.pips import PIP_SIZE
from referee.vision.scenes import SceneOptions, random_scene
from referee.vision.snapping import snap_to_edges
from tests.vision.test_detect import corner_error

CLEAR = SceneOptions(max_tilt=30, finger_rate=0.0, overlap_rate=0.0, empty_rate=0.0)


def _shifted(corners: np.ndarray, share: float, rng: np.random.Generator) -> np.ndarray:
    """The outline moved in or out by up to ``share`` of the card's width at each corner."""
    width = float(np.linalg.norm(corners[1] - corners[0]))
    centre = corners.mean(axis=0)
    scale = 1 + rng.uniform(-share, share, (4, 1)) * width / np.linalg.norm(corners - centre, axis=1,
                                                                             keepdims=True)
    return (centre + (corners - centre) * scale).astype(np.float32)


def test_an_outline_off_by_a_tenth_of_the_card_lands_on_its_edges(wikimedia: dict[Card, Face]) -> None:
    rng = np.random.default_rng(5)
    before, after = [], []
    for _ in range(8):
        scene = random_scene(wikimedia, rng, CLEAR)
        for card in scene.cards:
            off = _shifted(card.corners, 0.1, rng)
            before.append(corner_error(off, card.corners))
            after.append(corner_error(snap_to_edges(scene.image, off), card.corners))
    assert len(after) >= 8
    assert np.median(before) > 0.04
    assert np.median(after) < 0.02, f"median corner error {np.median(after):.3f} of a card's width"


def test_the_pinta_is_read_at_both_ends_more_often_once_snapped(fournier: dict[Card, Face]) -> None:
    rng = np.random.default_rng(6)
    off_read = snapped_read = total = 0
    for _ in range(10):
        scene = random_scene(fournier, rng, CLEAR)
        for card in scene.cards:
            off = _shifted(card.corners, 0.08, rng)
            total += 1
            for corners, hit in ((off, "off"), (snap_to_edges(scene.image, off), "snapped")):
                ends = read_pintas(flatten(scene.image, corners, PIP_SIZE))
                both = ends == (card.card.suit, card.card.suit)
                off_read += both and hit == "off"
                snapped_read += both and hit == "snapped"
    assert total >= 10
    assert snapped_read >= off_read + 0.2 * total, (off_read, snapped_read, total)


def test_a_side_with_no_edge_near_it_stays_where_it_was() -> None:
    frame = np.full((240, 320, 3), 128, np.uint8)
    quad = np.array([[100, 60], [180, 60], [180, 184], [100, 184]], np.float32)
    assert np.allclose(snap_to_edges(frame, quad), quad, atol=1e-3)


def test_an_outline_outside_the_frame_is_left_alone() -> None:
    frame = np.full((120, 160, 3), 200, np.uint8)
    quad = np.array([[170, 10], [220, 10], [220, 90], [170, 90]], np.float32)
    assert np.allclose(snap_to_edges(frame, quad), quad)
