"""A camera with no colour (night mode, infrared, a grey webcam): the frame is told grey, and the
cues that read colour neither name nor re-rank a card on it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from engine.cards import Card, Suit
from referee.vision.cues import Cues
from referee.vision.faces import Face
from referee.vision.figure_cues import grey_figure_suit
from referee.vision.pips import Pips
from referee.vision.recognize import Recognizer
from referee.vision.scenes import Scene, SceneOptions, random_scene
from referee.vision.suits import colourless


def grey(img: np.ndarray) -> np.ndarray:
    """A monochrome camera's frame: three equal channels."""
    return cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)


def scene(deck: dict[Card, Face], seed: int) -> Scene:
    return random_scene(deck, np.random.default_rng(seed), SceneOptions(empty_rate=0))


def test_colour_frames_with_cards_have_colour(wikimedia: dict[Card, Face],
                                              fournier: dict[Card, Face]) -> None:
    for deck in (wikimedia, fournier):
        for seed in range(8):
            assert not colourless(scene(deck, seed).image)


def test_a_grey_frame_is_colourless_tinted_compressed_or_in_one_channel(
        wikimedia: dict[Card, Face]) -> None:
    frame = grey(scene(wikimedia, 4).image)
    tinted = np.clip(frame * np.array([1.1, 0.92, 1.05]), 0, 255).astype(np.uint8)
    _, jpeg = cv2.imencode(".jpg", tinted, [cv2.IMWRITE_JPEG_QUALITY, 60])
    noisy = np.clip(cv2.imdecode(jpeg, cv2.IMREAD_COLOR)
                    + np.random.default_rng(1).normal(0, 3, frame.shape), 0, 255).astype(np.uint8)
    for img in (frame, tinted, noisy, frame[..., 0]):
        assert colourless(img)


@pytest.mark.parametrize(("pinta", "both_ends", "suit"), [
    (Suit.COPAS, False, None),       # one break at one end: a drawing over the line, grey
    (Suit.OROS, False, None),
    (Suit.COPAS, True, Suit.COPAS),
    (Suit.BASTOS, False, Suit.BASTOS),  # three breaks in their places: sure at one end
    (None, False, None),
])
def test_a_grey_figure_has_the_suit_of_a_sure_pinta_only(pinta: Suit | None, both_ends: bool,
                                                        suit: Suit | None) -> None:
    cues = Cues(Pips({"ink": 0}, {}), pinta, both_ends, coin=True)  # a coin counts for nothing
    assert grey_figure_suit(cues) == suit


def test_a_grey_rey_is_not_named_a_sota_by_his_picture(wikimedia: dict[Card, Face],
                                                       recognizer: Recognizer) -> None:
    """Scene 4: a rey de bastos the bank guessed a rey de espadas.  Grey, his picture is only his
    darkest ink, narrow as a sota's, and the pinta named him a sota de bastos."""
    shown = scene(wikimedia, 4)
    rey = next(p for p in shown.cards if p.card == Card.parse("12b"))
    readings = recognizer.read(grey(shown.image))
    for reading in readings:
        centre = reading.outline.mean(axis=0)
        truth = min(shown.cards, key=lambda p: float(np.linalg.norm(p.corners.mean(axis=0) - centre)))
        assert reading.card in (None, truth.card)
    on_rey = [r for r in readings
              if np.linalg.norm(r.outline.mean(axis=0) - rey.corners.mean(axis=0)) < 20]
    assert on_rey and all(r.card in (None, rey.card) for r in on_rey)
