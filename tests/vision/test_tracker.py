"""Played cards from a fixed camera: a card placed in front of a seat becomes a play, once."""

from __future__ import annotations

import numpy as np
import pytest

from engine import Game, NewHand, Play, Settings
from engine.cards import Card
from referee.vision.faces import Face
from referee.vision.recognize import Recognizer
from referee.vision.scenes import finish, paint_card, project
from referee.vision.textures import table
from referee.vision.tracker import PlayTracker, SeatRegion

SEATS = (SeatRegion("B1", (0.0, 0.0, 1.0, 0.5)), SeatRegion("A1", (0.0, 0.5, 1.0, 1.0)))
W, H = 640, 480


def spot(x: float, y: float, turn: float) -> np.ndarray:
    """Corners of a card resting at (x, y), slightly turned, seen from straight above."""
    return project(np.array([x, y]), (118.0, 182.0), turn, np.radians(8), 0.3, 600.0)


def frames(deck: dict[Card, Face], timeline: list[list[tuple[str, np.ndarray]]]) -> list[np.ndarray]:
    """One frame per step of the timeline, each listing the cards on the table (fixed camera)."""
    base = table("wood", np.random.default_rng(5), H, W)
    out = []
    for on_table in timeline:
        img = base.copy()
        for text, corners in on_table:
            img, _ = paint_card(img, deck[Card.parse(text)], corners)
        out.append(finish(img, np.random.default_rng(9)))
    return out


def test_card_placed_in_front_of_a_seat_becomes_a_play(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    a_card = ("7o", spot(220, 360, 0.2))
    b_card = ("3e", spot(420, 125, -0.3))
    timeline = [[], [], [a_card], [a_card], [a_card], [a_card],
                [a_card, b_card], [a_card, b_card], [a_card, b_card], [a_card, b_card]]
    tracker = PlayTracker(recognizer, SEATS, steady_frames=3)
    seen = [tracker.update(f) for f in frames(wikimedia, timeline)]
    assert seen[4] == [Play("A1", Card.parse("7o"))]
    assert seen[8] == [Play("B1", Card.parse("3e"))]
    assert sum(len(s) for s in seen) == 2, seen

    game = Game(Settings())
    game.apply(NewHand())
    for play in (p for s in seen for p in s):
        assert game.is_legal(play), play
        game.apply(play)


def test_a_card_passing_through_is_not_a_play(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    card = ("5c", spot(300, 350, 0.1))
    tracker = PlayTracker(recognizer, SEATS, steady_frames=3)
    seen = [tracker.update(f) for f in frames(wikimedia, [[], [card], [card], [], [], []])]
    assert all(s == [] for s in seen)


def test_the_last_hands_cards_are_played_again_only_after_leaving_the_table(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    card = ("1e", spot(320, 360, 0.4))
    lying, gone = frames(wikimedia, [[card], []])
    tracker = PlayTracker(recognizer, SEATS, steady_frames=3)
    assert [tracker.update(f) for f in [lying] * 3][-1] == [Play("A1", Card.parse("1e"))]
    assert [tracker.update(f) for f in [lying] * 3] == [[], [], []]
    tracker.new_hand()  # the card still lies there: not a play of the new hand
    assert [tracker.update(f) for f in [lying, lying, lying, gone, gone, lying, lying, lying]] == [[]] * 8
    # out of sight for three frames: gathered, dealt, and put down again
    seen = [tracker.update(f) for f in [gone, gone, gone, lying, lying, lying]]
    assert seen == [[]] * 5 + [[Play("A1", Card.parse("1e"))]]


def test_a_card_left_on_the_table_for_a_whole_hand_is_not_played_in_the_next(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    card = ("4o", spot(320, 360, 0.2))
    [lying] = frames(wikimedia, [[card]])
    tracker = PlayTracker(recognizer, SEATS, steady_frames=3)
    assert [tracker.update(f) for f in [lying] * 3][-1] == [Play("A1", Card.parse("4o"))]
    tracker.new_hand()  # nobody gathered it
    assert [tracker.update(f) for f in [lying] * 6] == [[]] * 6
    tracker.new_hand()  # still there two hands later
    assert [tracker.update(f) for f in [lying] * 6] == [[]] * 6


def test_cards_shown_after_the_last_hand_are_not_plays(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    shown = ("4c", spot(320, 360, 0.1))
    played = ("6b", spot(320, 125, -0.2))
    tracker = PlayTracker(recognizer, SEATS, steady_frames=3)
    tracker.new_hand(shown=[Card.parse("4c")])
    seen = [tracker.update(f) for f in frames(wikimedia, [[shown, played]] * 4)]
    assert [p for s in seen for p in s] == [Play("B1", Card.parse("6b"))]


def test_a_card_read_in_two_places_at_once_is_not_played(
        wikimedia: dict[Card, Face], recognizer: Recognizer) -> None:
    here = ("7e", spot(220, 360, 0.2))
    there = ("7e", spot(420, 125, -0.3))  # the same name in front of B1: one of them is misread
    both, one = frames(wikimedia, [[here, there], [here]])
    tracker = PlayTracker(recognizer, SEATS, steady_frames=3)
    assert [tracker.update(f) for f in [both] * 4] == [[]] * 4
    assert not tracker.in_sight
    # the other card taken away: the one left is played
    assert [tracker.update(f) for f in [one] * 3] == [[], [], [Play("A1", Card.parse("7e"))]]


def test_seat_regions_are_checked() -> None:
    with pytest.raises(ValueError, match="invalid region for seat A1"):
        SeatRegion("A1", (0.5, 0.0, 0.4, 1.0))
