"""The card finder on generated scenes: outlines close to the true corners, nothing on bare tables."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from engine.cards import Card
from referee.vision import detect, overlap
from referee.vision.detect import (
    DetectorSettings,
    _edges,
    _margin_share,
    _paper,
    _where_none,
    candidates,
    find_cards,
)
from referee.vision.faces import Face
from referee.vision.geometry import CARD_ASPECT, shared_area
from referee.vision.lines import frame_edges, line_quads, onto_outer_edges, segments
from referee.vision.recognize import Recognizer
from referee.vision.regions import _square_cell
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


@pytest.mark.parametrize("shape", [(1, 640, 3), (640, 1, 3), (15, 900, 3)])
def test_a_frame_too_thin_for_a_card_has_none(recognizer: Recognizer,
                                              shape: tuple[int, int, int]) -> None:
    assert recognizer.read(np.full(shape, 128, np.uint8)) == []


def test_straight_edges_outline_cards_on_a_busy_checked_cloth(wikimedia: dict[Card, Face]) -> None:
    """A checked cloth shows hundreds of long straight edges; the cards' own are still proposed."""
    rng = np.random.default_rng(21)
    opts = SceneOptions(max_tilt=30, finger_rate=0.0, overlap_rate=0.0, empty_rate=0.0,
                        tables=("cloth",))
    settings = DetectorSettings()
    busy = near = 0
    for _ in range(6):
        scene = random_scene(wikimedia, rng, opts)
        gray = cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY)
        min_side = np.sqrt(settings.min_area * gray.size / CARD_ASPECT)
        if len(segments(gray, 0.8 * min_side)) <= 150:
            continue
        busy += 1
        quads = line_quads(gray, min_side)
        near += any(min(corner_error(q, card.corners) for q in quads) < 0.15 for card in scene.cards)
    assert busy >= 3
    assert near == busy


def box(x: float, y: float, w: float, h: float) -> np.ndarray:
    return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32)


def test_later_straight_edge_outlines_only_where_no_other_outline_lies() -> None:
    """Past the first ``LINE_FIRST``, an outline from straight edges is kept where no outline of a
    card's size lies over it; a pip box or part of a drawing under it does not count."""
    found = [(box(100, 100, 100, 155), 50.0), (box(400, 120, 20, 30), 10.0)]
    alone = (box(250, 300, 100, 155), 40.0)
    spanning = (box(150, 100, 100, 155), 60.0)   # half over the card found, half over the table
    over_a_pip = (box(380, 100, 100, 155), 40.0)
    kept = _where_none([alone, spanning, over_a_pip], found)
    assert [score for _, score in kept] == [40.0, 40.0]
    assert kept[0][0] is alone[0] and kept[1][0] is over_a_pip[0]
    assert _where_none([alone], []) == [alone]


def test_a_card_cut_off_from_a_white_table_by_a_finger_is_outlined_by_its_later_edges(
        fournier: dict[Card, Face], monkeypatch: pytest.MonkeyPatch) -> None:
    """Three cards on a white table and two fingers: the 5 de oros, its paper run into the table
    and a finger across it, has straight sides only among the later outlines."""
    opts = SceneOptions(max_tilt=30, empty_rate=0.0, finger_rate=0.7,
                        tables=("white", "cloth", "felt", "wood"))
    scene = random_scene(fournier, np.random.default_rng(85), opts)
    oros = next(c for c in scene.cards if c.card == Card.parse("5o"))

    def outlined() -> bool:
        return min(corner_error(q, oros.corners) for q in find_cards(scene.image)) < 0.15

    assert outlined()
    monkeypatch.setattr(detect, "_where_none", lambda more, quads: [])
    assert not outlined()


def test_a_cards_margin_is_paper_and_a_checked_cloths_outlines_seldom_are(
        wikimedia: dict[Card, Face], fournier: dict[Card, Face]) -> None:
    """The later outlines from straight edges are taken only with a margin of paper: a card's own
    outline has one on every table, the outlines a checked cloth's edges make seldom do."""
    rng = np.random.default_rng(23)
    shares = []
    for deck in (wikimedia, fournier):
        for _ in range(8):
            scene = random_scene(deck, rng, SceneOptions(max_tilt=30, empty_rate=0.0))
            paper = _paper(scene.image)
            shares += _margin_share([c.corners for c in scene.cards if c.occlusion <= 0.15],
                                    paper).tolist()
    assert len(shares) >= 25
    assert np.mean(np.array(shares) >= detect.PAPER_MARGIN) >= 0.9
    settings = DetectorSettings()
    proposed = kept = 0
    for seed in range(30, 40):
        scene = render([], np.random.default_rng(seed), CLEAR, table_kind="cloth")
        gray = cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY)
        later = line_quads(gray, np.sqrt(settings.min_area * gray.size / CARD_ASPECT))[detect.LINE_FIRST:]
        proposed += len(later)
        kept += int((_margin_share(later, _paper(scene.image)) >= detect.PAPER_MARGIN).sum())
    assert proposed > 1000
    assert kept < 0.1 * proposed


def test_checks_of_the_cloth_are_skipped_and_cards_never(wikimedia: dict[Card, Face]) -> None:
    """The solid squares a checked cloth's edges enclose are left out before any outline is
    fitted to them; a card's own region, tilted up to 40°, is never taken for one."""
    settings = DetectorSettings()
    rng = np.random.default_rng(35)  # a cloth of large checks
    scene = render([], rng, CLEAR, table_kind="cloth")
    assert scene.image.shape[1] == settings.work_width
    mask = cv2.bitwise_not(_edges(scene.image))
    contours, _ = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE)
    sized = [(c, cv2.contourArea(c)) for c in contours
             if cv2.contourArea(c) >= settings.min_area * mask.size]
    assert sum(_square_cell(c, area, settings) for c, area in sized) >= 0.5 * len(sized) > 10
    opts = SceneOptions(max_tilt=40, finger_rate=0.0, overlap_rate=0.0, empty_rate=0.0)
    for _ in range(20):
        for card in random_scene(wikimedia, rng, opts).cards:
            outline = card.corners.astype(np.int32).reshape(-1, 1, 2)
            assert not _square_cell(outline, cv2.contourArea(outline), settings)


def test_no_outline_is_smaller_than_the_smallest_card_looked_for() -> None:
    """An outline guessed from one corner of a region, or from two straight edges, can be far
    smaller than the region: on a checked cloth, one check, which the bank once named an ace of
    oros on a frame with no card.  Every candidate is at least ``min_area`` of the frame."""
    settings = DetectorSettings()
    found = 0
    for seed in range(30, 40):
        scene = render([], np.random.default_rng(seed), CLEAR, table_kind="cloth")
        areas = [cv2.contourArea(quad) for quad, _ in candidates(scene.image, settings)]
        found += len(areas)
        assert min(areas, default=np.inf) >= settings.min_area * scene.image[..., 0].size
    assert found > 20  # the cloths still give outlines to judge


def test_outlines_sharing_a_corner_cover_each_other_as_much_as_they_do() -> None:
    """Two outlines of one card proposed from the same corner of straight edges share that corner
    exactly; OpenCV's convex intersection took them for 28% covered, and both were kept."""
    a = np.array([[162.04166, 142.41544], [208.89383, 51.35303], [359.79276, 164.73907],
                  [295.19537, 251.97533]], np.float32)
    b = np.array([[165.11446, 136.44312], [208.89383, 51.353027], [366.8475, 170.04004],
                  [304.45642, 250.47284]], np.float32)
    assert overlap.covered(a, b) > 0.9 and overlap.covered(b, a) > 0.9
    assert overlap.keep_best([a, b], [0.7, 0.69]) == [0]


def test_the_area_two_quads_share_is_the_area_of_the_pixels_they_share() -> None:
    rng = np.random.default_rng(3)
    for _ in range(40):
        a = box(*rng.uniform(20, 60, 2), *rng.uniform(30, 80, 2))
        turn = cv2.getRotationMatrix2D(tuple(float(v) for v in a.mean(axis=0)), rng.uniform(0, 90), 1)
        b = (cv2.transform(a[None], turn)[0] + rng.uniform(-25, 25, 2)).astype(np.float32)
        if rng.uniform() < 0.5:
            b = b[::-1].copy()  # either way round
        if rng.uniform() < 0.3:
            b += a[0] - b[0]  # a corner in common
        masks = []
        for q in (a, b):
            mask = np.zeros((2400, 2400), np.uint8)  # 8× finer than the quads' pixels
            cv2.fillConvexPoly(mask, ((q + 100) * 8).round().astype(np.int32), 1)
            masks.append(mask)
        pixels = float((masks[0] & masks[1]).sum()) / 64
        assert abs(shared_area(a, b) - pixels) <= 0.02 * pixels + 5, (a, b)


def pale_card(frame_line: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A cream card on a slightly paler table, its frame line printed a tenth of its width inside
    its edges: the image, the card's corners and the frame line's."""
    image = np.full((480, 640, 3), (215, 225, 230), np.uint8)
    card = np.array([[200, 100], [380, 120], [360, 400], [180, 380]], np.float32)
    cv2.fillConvexPoly(image, card.astype(np.int32), (170, 200, 215))
    centre = card.mean(axis=0)
    line = centre + 0.82 * (card - centre)
    if frame_line:
        cv2.polylines(image, [line.astype(np.int32)], True, (60, 70, 90), 3)
    return cv2.GaussianBlur(image, (3, 3), 0), card, line


def test_an_outline_on_the_frame_line_is_moved_onto_the_cards_edges() -> None:
    image, card, line = pale_card()
    moved = onto_outer_edges(line, frame_edges(image))
    assert moved is not None
    assert corner_error(moved, card) < 0.03 < corner_error(line, card)


def test_an_outline_on_the_cards_edges_or_with_no_edge_along_it_stays() -> None:
    image, card, line = pale_card()
    assert onto_outer_edges(card, frame_edges(image)) is None  # nothing lies outside the card
    bare, _, _ = pale_card(frame_line=False)
    table = np.full_like(bare, (215, 225, 230))
    assert onto_outer_edges(line, frame_edges(table)) is None  # no edge at all
    far = line.mean(axis=0) + 0.5 * (line - line.mean(axis=0))
    assert onto_outer_edges(far, frame_edges(image)) is None  # the edges are out of reach


def test_an_outline_cut_short_by_a_finger_is_moved_out_to_the_cards_far_edge() -> None:
    image, card, _ = pale_card(frame_line=False)
    near = card[[1, 0]]  # the near ends of the long sides, and the far side cut off
    short = np.concatenate([card[:2], near + 0.85 * (card[2:] - near)])
    assert corner_error(short, card) > 0.1
    moved = onto_outer_edges(short, frame_edges(image))
    assert moved is not None and corner_error(moved, card) < 0.03
