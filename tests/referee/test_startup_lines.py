"""What serve says at start about its recognizer, its microphone and its learning: what runs, what
does not and why, and how to make it hear better."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from referee import startup
from referee.asr.find import ModelChoice
from referee.commands.serve import event_line
from referee.startup import _recognizer_part
from tests.referee.test_voices_command import FakeSoundDevice


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


@pytest.mark.parametrize(("mics", "said"), [
    (["7"], "no hay un micrófono con el número 7"),
    (["fake", "nope"], "no encuentro un micrófono que se llame 'nope'"),
])
def test_a_microphone_that_is_not_there_is_a_cross_with_the_reason(
        mics: list[str], said: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sounddevice", FakeSoundDevice(["fakemic", "default"]))
    args = SimpleNamespace(wav=None, mic=mics, channels=1)
    source, part = startup._audio_source(args, lambda line: None)
    assert source is not None  # it keeps looking while the buttons keep the score
    assert not part.running and said in part.detail and "fakemic" in part.detail


def test_the_microphone_asked_for_is_a_tick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sounddevice", FakeSoundDevice(["fakemic", "default"]))
    _, part = startup._audio_source(SimpleNamespace(wav=None, mic=["fake"], channels=1),
                                    lambda line: None)
    assert part.running and part.detail == "fake (hay: fakemic, default)"


def test_without_portaudio_the_microphone_line_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sounddevice", FakeSoundDevice([], portaudio=False))
    _, part = startup._audio_source(SimpleNamespace(wav=None, mic=None, channels=1),
                                    lambda line: None)
    assert not part.running and "sistema de audio" in part.detail


@pytest.mark.parametrize(("recognizer", "said"), [
    (SimpleNamespace(low_accuracy=False), "--recognizer sphinx"),  # Vosk: no means to adapt
    (SimpleNamespace(low_accuracy=True, use_means=None), "models fetch sphinx-es"),
])
def test_learning_with_a_recognizer_that_cannot_learn_says_why(recognizer: object, said: str) -> None:
    args = SimpleNamespace(wav=None, models_dir=None)
    part = startup._learn(args, None, recognizer, lambda line: None)
    assert part.name == "aprendizaje" and not part.running and said in part.detail
