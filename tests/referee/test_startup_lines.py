"""What serve says about its recognizer at start: what runs, and how to make it hear better."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from referee.asr.find import ModelChoice
from referee.commands.serve import event_line
from referee.startup import _recognizer_part


def line(choice: ModelChoice, low_accuracy: bool = False) -> str:
    return _recognizer_part(choice, SimpleNamespace(low_accuracy=low_accuracy)).detail


def test_an_uncalibrated_spanish_model_suggests_calibrating_to_the_table() -> None:
    text = line(ModelChoice("sphinx", Path("/m/sphinx")))
    assert "voices calibrate" in text and "models fetch" in text


def test_a_calibrated_model_says_so_and_does_not_ask_again() -> None:
    text = line(ModelChoice("sphinx", Path("/m/sphinx"), calibration=Path("/m/voice-calibration/mllr")))
    assert "calibración de voces" in text and "voices calibrate" not in text


def test_the_english_fallback_says_it_is_low_accuracy_and_how_to_leave_it() -> None:
    text = line(ModelChoice("sphinx", Path("/wheel/en-us"), english=True), low_accuracy=True)
    assert "baja precisión" in text and "models fetch" in text and "voices calibrate" not in text


def test_vosk_asks_for_nothing() -> None:
    text = line(ModelChoice("vosk", Path("/m/vosk")))
    assert "models fetch" not in text and "voices calibrate" not in text


@pytest.mark.parametrize(("origin", "said"), [
    ("page", "tablet"), ("confirm", "tablet"), ("voice", "voz"), ("camera", "cámara")])
def test_each_stored_event_says_who_made_it(origin: str, said: str) -> None:
    assert f"({said})" in event_line("apply", "A1: truco", origin, {"A": 0, "B": 0})
