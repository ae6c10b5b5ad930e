"""A still table is not read again: any card put down is a change, the camera's noise is not."""

from __future__ import annotations

import numpy as np
import pytest

from engine.cards import Card
from engine.events import Play
from referee.vision.faces import Face
from referee.vision.reading import Reading
from referee.vision.recognize import Recognizer
from referee.vision.scenes import finish, paint_card, project
from referee.vision.stillness import MAX_STILL, Stillness
from referee.vision.textures import TABLES, table
from referee.vision.tracker import PlayTracker, SeatRegion

W, H = 640, 480


def put_down(deck: dict[Card, Face], kind: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The same table before and after a small card (0.8% of the frame) is put down on it."""
    rng = np.random.default_rng(seed)
    base = table(kind, rng, H, W)
    card = list(deck)[int(rng.integers(len(deck)))]
    height = np.sqrt(0.008 * W * H * 1.55)
    corners = project(rng.uniform([80, 80], [W - 80, H - 80]), (height / 1.55, height),
                      rng.uniform(0, np.pi), 0.0, 0.0, 1500.0)
    with_card, _ = paint_card(base.copy(), deck[card], corners)
    return (finish(base, np.random.default_rng(seed)),
            finish(with_card, np.random.default_rng(seed)))


@pytest.mark.parametrize("kind", TABLES)
def test_a_card_put_down_is_a_change_and_noise_is_not(
        kind: str, wikimedia: dict[Card, Face], fournier: dict[Card, Face]) -> None:
    for seed, deck in enumerate((wikimedia, fournier, wikimedia, fournier)):
        before, after = put_down(deck, kind, seed)
        gate = Stillness()
        noise = np.random.default_rng(seed).normal(0, 6, before.shape)
        assert gate.still(before) is False  # the first frame is read
        assert gate.still(np.clip(before + noise, 0, 255).astype(np.uint8))
        assert gate.still(after) is False, (kind, seed)
        assert gate.still(after)


def test_a_still_table_is_read_again_now_and_then() -> None:
    frame = np.full((H, W, 3), 90, np.uint8)
    gate = Stillness()
    read = [not gate.still(frame) for _ in range(2 * MAX_STILL + 2)]
    assert read == ([True] + [False] * MAX_STILL) * 2
    gate.forget()
    assert gate.still(frame) is False


class Counting:
    """A recognizer that counts the frames it reads."""

    def __init__(self, recognizer: Recognizer) -> None:
        self.recognizer, self.frames = recognizer, 0

    def read(self, frame: np.ndarray) -> list[Reading]:
        self.frames += 1
        return self.recognizer.read(frame)


def test_the_tracker_reads_a_still_table_only_while_a_card_is_on_its_way(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    corners = project(np.array([320.0, 360.0]), (118.0, 182.0), 0.2, 0.0, 0.0, 1500.0)
    img, _ = paint_card(table("felt", np.random.default_rng(5), H, W), wikimedia[Card.parse("7o")],
                        corners)
    frame = finish(img, np.random.default_rng(9))
    counting = Counting(recognizer)
    seats = (SeatRegion("B1", (0.0, 0.0, 1.0, 0.5)), SeatRegion("A1", (0.0, 0.5, 1.0, 1.0)))
    tracker = PlayTracker(counting, seats, steady_frames=3)  # type: ignore[arg-type]
    seen = [tracker.update(frame) for _ in range(8)]
    assert seen[2] == [Play("A1", Card.parse("7o"))] and sum(map(len, seen)) == 1
    assert counting.frames == 3  # a play is seen in three frames read; then the table is still
