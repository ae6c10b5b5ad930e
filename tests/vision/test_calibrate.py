"""Calibration to the players' own deck: each card asked for, captured when still, saved as a face."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.cards import Card
from models.decks import installed_decks
from referee.vision.bank import build_bank
from referee.vision.calibrate import Calibrator
from referee.vision.errors import VisionError
from referee.vision.faces import Face, face_files, load_deck
from referee.vision.recognize import Recognizer
from referee.vision.scenes import SceneOptions, finish, paint_card, project, render
from referee.vision.textures import table

ASKED = [Card.parse(t) for t in ("1e", "7o", "12b", "4c")]


def capture_session(deck: dict[Card, Face]) -> list[np.ndarray]:
    """What the camera sees: each card held still for a few frames, then the empty table."""
    base = table("felt", np.random.default_rng(1), 480, 640)
    empty = finish(base.copy(), np.random.default_rng(2))
    shots = [empty]
    for i, card in enumerate(ASKED):
        corners = project(np.array([320.0, 240.0]), (190.0, 292.0), 0.3 * i, np.radians(12), 1.0, 900.0)
        img, _ = paint_card(base.copy(), deck[card], corners)
        held = finish(img, np.random.default_rng(3))
        shots += [held] * 7 + [empty] * 3
    return shots


def test_calibration_saves_each_asked_card_and_recognizes_it_later(
        fournier_dir: Path, tmp_path: Path) -> None:
    deck = load_deck(fournier_dir)
    said: list[str] = []
    saved = Calibrator(tmp_path / "mi-mazo", say=said.append).run(capture_session(deck), ASKED)
    assert [p.name for p in saved] == ["01-espadas.png", "07-oros.png", "12-bastos.png", "04-copas.png"]
    assert set(face_files(tmp_path / "mi-mazo")) == set(ASKED)
    assert said[0].startswith("(1/4) Mostrá el 1 de espadas")

    recognizer = Recognizer(build_bank([load_deck(tmp_path / "mi-mazo")], augmented=3))
    opts = SceneOptions(max_tilt=20, finger_rate=0.0, overlap_rate=0.0, tables=("wood",))
    scene = render([deck[Card.parse("12b")]], np.random.default_rng(4), opts)
    assert [r.card for r in recognizer.read(scene.image)] == [Card.parse("12b")]


def test_calibration_stops_with_a_clear_error_when_frames_run_out(
        fournier_dir: Path, tmp_path: Path) -> None:
    deck = load_deck(fournier_dir)
    frames = capture_session(deck)[:12]  # the first card and half of the wait for the second
    with pytest.raises(VisionError, match="se cortaron las imágenes") as caught:
        Calibrator(tmp_path / "d", say=lambda _: None).run(frames, ASKED)
    assert caught.value.code == "camera-stopped"


def test_an_interrupted_calibration_leaves_no_deck_behind(fournier_dir: Path, tmp_path: Path) -> None:
    frames = capture_session(load_deck(fournier_dir))[:12]
    decks = tmp_path / "cards" / "decks"
    with pytest.raises(VisionError):
        Calibrator(decks / "mi-mazo", say=lambda _: None).run(frames, ASKED)
    assert not (decks / "mi-mazo").exists()
    assert installed_decks(tmp_path) == []
