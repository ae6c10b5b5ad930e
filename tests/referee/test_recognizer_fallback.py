"""A recognizer that fails to load gives way to the next one the finder would choose, unless the
person asked for it by name; the start-up screen says which one failed, why, and which one runs."""

from __future__ import annotations

import threading
import wave
from pathlib import Path
from typing import Any

import pytest

from referee import startup
from referee.asr.base import RecognizerError
from referee.asr.find import ModelChoice
from referee.commands.serve_arguments import demo_arguments
from tests.referee.test_models_check import _vosk as vosk_folder
from tests.referee.test_voices_command import sphinx_model


class Scoreboard:
    """The little of the scoreboard's service that listening to silence touches."""

    def expected(self) -> frozenset[str]:
        return frozenset()  # a table that expects nothing: the recognizer hears as it always did

    def snapshot(self) -> dict[str, Any]:
        return {"score": {"A": 0, "B": 0}}


def _silence(path: Path) -> Path:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(b"\0\0" * 3200)
    return path


def test_serve_listens_with_sphinx_when_the_vosk_model_fails_to_load(
        shared_dir: Path, tmp_path: Path) -> None:
    models = tmp_path / "models"
    sphinx_model(shared_dir, models)
    vosk_folder(models)  # passes the file checks, but Vosk cannot make a model of it
    args = demo_arguments(wav=str(_silence(tmp_path / "silencio.wav")), models_dir=str(models),
                          exit_when_done=True)
    ended = threading.Event()
    parts = startup.start_listening(args, Scoreboard(), lambda line: None, on_end=ended.set)
    [part] = [p for p in parts if p.name == "reconocedor"]
    assert part.running and part.detail.startswith("sphinx-es")
    assert "Vosk no pudo cargar" in part.detail and "models fetch --force vosk-es" in part.detail
    assert ended.wait(10)  # it listened to the recording, to its end


def _fails_unless_english(choice: ModelChoice) -> Any:
    if not choice.english:
        raise RecognizerError("model-broken", f"Sphinx no pudo cargar {choice.path}: init failed")
    return object()


def test_a_sphinx_model_that_fails_to_load_gives_way_to_the_english_one(
        shared_dir: Path, tmp_path: Path) -> None:
    models = tmp_path / "models"
    sphinx_model(shared_dir, models)
    args = demo_arguments(models_dir=str(models))
    choice, _ = startup.load_recognizer(args, make=_fails_unless_english)
    assert choice.english and "Sphinx no pudo cargar" in choice.label and "init failed" in choice.label


@pytest.mark.parametrize("forced", [{"recognizer": "sphinx"}, {"model": "sphinx"}])
def test_a_recognizer_asked_for_by_name_that_fails_is_an_error(
        forced: dict[str, str], shared_dir: Path, tmp_path: Path) -> None:
    models = tmp_path / "models"
    folder = sphinx_model(shared_dir, models)
    if "model" in forced:
        forced = {"model": str(folder)}
    args = demo_arguments(models_dir=str(models), **forced)
    with pytest.raises(RecognizerError, match="init failed"):
        startup.load_recognizer(args, make=_fails_unless_english)


def test_listen_listens_with_sphinx_when_the_vosk_model_fails_to_load(
        shared_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from referee.cli import main

    models = tmp_path / "models"
    sphinx_model(shared_dir, models)
    vosk_folder(models)
    code = main(["listen", "--wav", str(_silence(tmp_path / "silencio.wav")), "--models-dir",
                 str(models), "--no-evidence"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "Reconocedor: sphinx-es" in err and "Vosk no pudo cargar" in err


def test_listen_keeps_its_evidence_in_the_user_folder_wherever_the_models_are(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from referee.commands.listen import default_evidence_dir

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "datos"))
    monkeypatch.setenv("TRUCO_REFEREE_MODELS", str(tmp_path / "otro-disco" / "modelos"))
    assert default_evidence_dir() == tmp_path / "datos" / "truco-referee" / "evidence"
