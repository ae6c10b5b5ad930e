"""The demo calibrates the Spanish Sphinx model to its script's voice, in a folder of its own."""

from __future__ import annotations

import argparse
import shutil
import wave
from pathlib import Path

import pytest

from referee.asr.calibration_folder import find_calibration
from referee.calibration_prompts import PROMPTS
from referee.commands.demo import calibrated_to_the_script
from referee.demo import say_each


def _args(**values: object) -> argparse.Namespace:
    return argparse.Namespace(**{"model": None, "models_dir": None, "recognizer": None, **values})


@pytest.mark.shared
def test_the_demo_calibrates_the_spanish_model_to_its_voice_and_leaves_the_table_s_alone(
        shared_dir: Path, tmp_path: Path) -> None:
    if not shutil.which("espeak-ng"):
        pytest.fail("espeak-ng is not installed (scripts/setup.sh installs it)")
    models = shared_dir / "models"
    before = sorted(p.name for p in models.iterdir())
    model, folder = calibrated_to_the_script(_args(models_dir=str(models)), tmp_path / "demo")
    assert folder == str(tmp_path / "demo") and model is not None
    assert find_calibration(Path(folder), Path(model)) is not None
    assert sorted(p.name for p in models.iterdir()) == before  # nothing written beside the model


def test_the_english_fallback_is_not_calibrated(tmp_path: Path) -> None:
    asked = _args(models_dir=str(tmp_path / "empty"))
    assert calibrated_to_the_script(asked, tmp_path / "demo") == (None, str(tmp_path / "empty"))
    assert not (tmp_path / "demo").exists()


def test_each_prompt_is_said_on_its_own() -> None:
    said: list[str] = []

    def speak(line: str, out: Path) -> None:
        said.append(line)
        with wave.open(str(out), "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(16000)
            w.writeframes(b"\0\0" * 1600 * len(said))

    voice = say_each(PROMPTS[:3], speak)
    assert said == list(PROMPTS[:3]) and [text for _, text in voice] == said
    assert [len(pcm) for pcm, _ in voice] == [3200, 6400, 9600]
