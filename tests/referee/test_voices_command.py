"""`voices calibrate` and `voices learn` at their edges: a damaged Sphinx model is said in words, a
missing microphone is said before anyone is asked to speak, steady noise does not hold a prompt,
and with the Vosk model there the player learns that the calibration is for Sphinx only.  Options
that do not go together, and names that would not pick one player, are refused before anything
is done; Ctrl-C ends a calibration as it ends any command."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from models.catalog import SPHINX_ES
from referee import mic_choice
from referee.asr import kept_recordings
from referee.audio import AudioChunk, to_chunk
from referee.cli import INTERRUPTED, main
from referee.commands import voices_mic
from tests.referee.test_models_check import _vosk as vosk_folder  # passes the file checks


def sphinx_model(shared_dir: Path, models: Path, damaged: bool = False) -> Path:
    """The Spanish Sphinx model where the catalog puts it, its files linked from ../shared (with
    an empty ``mdef`` when ``damaged``)."""
    source = shared_dir / "models" / "cmusphinx-es-5.2-ptm" / "acoustic_model"
    if not source.is_dir():
        pytest.skip(f"Spanish Sphinx model not found at {source}")
    folder = SPHINX_ES.target(models) / "model_parameters" / "es.cd_ptm"
    folder.mkdir(parents=True)
    for path in source.iterdir():
        (folder / path.name).symlink_to(path)
    if damaged:
        (folder / "mdef").unlink()
        (folder / "mdef").write_bytes(b"")
    return folder


@pytest.mark.parametrize("action", ["calibrate", "learn"])
def test_a_damaged_sphinx_model_is_said_in_words_not_a_traceback(
        action: str, shared_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sphinx_model(shared_dir, tmp_path / "models", damaged=True)
    argv = ["voices", action, "--models-dir", str(tmp_path / "models"), "--data-dir", str(tmp_path)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "No puedo arrancar el reconocedor" in err and "mdef está vacío" in err


class FakeSoundDevice:
    """``sounddevice`` as PortAudio shows it: some input devices, or no audio system at all.  A
    caller that keeps asking after three times is retrying for ever: it is stopped."""

    class PortAudioError(Exception):
        pass

    class StillRetrying(BaseException):
        pass

    def __init__(self, names: list[str], *, portaudio: bool = True) -> None:
        self.names = names
        self.portaudio = portaudio
        self.asked = 0

    @property
    def default(self) -> Any:
        self.asked += 1
        if self.asked > 3:
            raise self.StillRetrying
        if not self.portaudio:
            raise OSError("PortAudio library not found")
        return type("Default", (), {"device": (0, 0)})()

    def query_devices(self) -> list[dict[str, Any]]:
        return [{"name": n, "max_input_channels": 1, "default_samplerate": 16000.0}
                for n in self.names]

    def check_input_settings(self, **_: Any) -> None:
        return None  # every device records at 16 kHz

    def InputStream(self, **options: Any) -> Any:
        raise AssertionError("a stream was opened for a microphone that is not there")


@pytest.mark.parametrize(("devices", "mic", "said"), [
    ([], None, "no hay ningún micrófono conectado"),
    (["fakemic", "default"], "nope", "no encuentro un micrófono que se llame 'nope'"),
    (["fakemic", "default"], "7", "no hay un micrófono con el número 7"),
    (None, None, "no puedo hablar con el sistema de audio"),
], ids=["no microphone", "mistyped name", "no such number", "no PortAudio"])
def test_calibrate_without_the_microphone_says_why_before_the_first_prompt(
        devices: list[str] | None, mic: str | None, said: str, shared_dir: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    sphinx_model(shared_dir, tmp_path / "models")
    monkeypatch.setitem(sys.modules, "sounddevice",
                        FakeSoundDevice(devices or [], portaudio=devices is not None))
    argv = ["voices", "calibrate", "--models-dir", str(tmp_path / "models")]
    assert main(argv + (["--mic", mic] if mic else [])) == 2
    out = capsys.readouterr()
    assert "Decí" not in out.out and "No pude calibrar" in out.err and said in out.err
    assert "reintento" not in out.err


def _noise(seconds: float) -> Iterator[AudioChunk]:
    rng = np.random.default_rng(0)
    for k in range(int(seconds * 10)):
        yield to_chunk(0.2 * rng.standard_normal((1600, 1)), k / 10)


def test_steady_noise_does_not_hold_a_prompt() -> None:
    stream = _noise(30.0)
    captured = voices_mic.capture_one(stream)
    left = sum(1 for _ in stream) / 10
    assert left > 30.0 - voices_mic.PHRASE_MAX_S - 2  # cut a few seconds after the noise started
    pcm, why = captured
    assert pcm is None and "ruido" in why


class NoisyMic:
    """A microphone next to a fan for twelve seconds, then quiet (its stream ends)."""

    def __init__(self, spec: str | None, **options: object) -> None:
        pass

    def __iter__(self) -> Iterator[AudioChunk]:
        return _noise(12.0)

    def stop(self) -> None:
        pass

    def drop_queued(self) -> None:
        pass  # its stream comes as fast as it is read


def test_a_prompt_held_by_noise_says_so_and_goes_on(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(mic_choice, "MicSource", NoisyMic)
    [captured] = voices_mic.from_mic(None)
    lines = capsys.readouterr().out.splitlines()
    first = lines.index(f"[1/{len(voices_mic.PROMPTS)}] Decí: «truco»")
    assert "ruido que no para" in lines[first + 1] and lines[first + 2].startswith("[2/")
    assert "truco" not in [text for _, text in captured]  # the noise is not kept as a call


class QuietMic(NoisyMic):
    """A microphone that hears nothing at all."""

    def __iter__(self) -> Iterator[AudioChunk]:
        return iter(())


def test_a_calibration_that_heard_nothing_says_so_and_saves_nothing(
        shared_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    sphinx_model(shared_dir, tmp_path / "models")
    monkeypatch.setattr(mic_choice, "MicSource", QuietMic)
    assert main(["voices", "calibrate", "--models-dir", str(tmp_path / "models")]) == 2
    assert "no te oí decir ninguna frase" in capsys.readouterr().err
    assert not (tmp_path / "models" / "voice-calibration").exists()


def test_with_vosk_there_calibrate_says_before_recording_that_it_is_for_sphinx(
        shared_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    models = tmp_path / "models"
    sphinx_model(shared_dir, models)
    vosk_folder(models)
    argv = ["voices", "calibrate", "--models-dir", str(models), "--wav-dir", str(tmp_path / "nada")]
    assert main(argv) == 2  # the recordings are not there: it stops before calibrating
    out = capsys.readouterr()
    assert "es para el reconocedor Sphinx" in out.out and "--recognizer sphinx" in out.out
    assert "no encuentro la carpeta" in out.err


def keep_players(models: Path, names: list[str]) -> None:
    """A calibration's recordings kept for these players (a short tone each, as «truco»), as
    'voices calibrate' keeps them."""
    tone = (3000 * np.sin(np.arange(8000) * 0.3)).astype("<i2").tobytes()
    kept_recordings.save_prompts(models, [[(tone, "truco")] for _ in names], names)


@pytest.mark.parametrize(("argv", "said"), [
    (["forget", "--player", ""], "--player vacío: decí qué jugador"),
    (["forget", "--player", "  "], "--player vacío: decí qué jugador"),
    (["name", "--player", "", "--name", "Caro"], "--player vacío: decí qué jugador"),
    (["forget", "--add"], "--add va con calibrate: "),
    (["forget", "--wav-dir", "grabaciones"], "--wav-dir va con calibrate: "),
    (["forget", "--mic", "1"], "--mic va con calibrate: "),
    (["learn", "--add"], "--add va con calibrate: "),
    (["list", "--mic", "1"], "--mic va con calibrate: "),
    (["forget", "--players", "3"], "'voices forget --player N'"),
    (["calibrate", "--players", "3", "--wav-dir", "grabaciones"],
     "--players 3 con 1 --wav-dir: con WAVs, cada jugador es una carpeta"),
], ids=["empty player", "blank player", "empty player to name", "forget --add",
        "forget --wav-dir", "forget --mic", "learn --add", "list --mic", "forget --players",
        "players but one folder"])
def test_options_that_do_not_go_with_the_action_are_refused_and_nobody_is_forgotten(
        argv: list[str], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    models = tmp_path / "models"
    keep_players(models, ["Ana", "Beto"])
    assert main(["voices", *argv, "--models-dir", str(models)]) == 2  # before: both forgotten
    assert said in capsys.readouterr().err
    assert kept_recordings.player_names(models) == ["Ana", "Beto"]


@pytest.mark.parametrize("argv", [["forget", "--player", "²"],
                                  ["name", "--player", "²", "--name", "Caro"]])
def test_a_digit_that_is_no_number_is_taken_for_a_name(
        argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    models = tmp_path / "models"
    keep_players(models, ["Ana", "Beto"])
    assert main(["voices", *argv, "--models-dir", str(models)]) == 2  # before: a traceback
    assert "No hay un solo jugador que se llame «²»" in capsys.readouterr().err
    assert kept_recordings.player_names(models) == ["Ana", "Beto"]


@pytest.mark.parametrize(("player", "name", "said"), [
    ("1", "2", "«2» es un número y se confunde con el jugador 2"),
    ("2", " ANA ", "ya hay un jugador que se llama ANA"),
])
def test_a_name_that_would_pick_another_player_is_refused(
        player: str, name: str, said: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    models = tmp_path / "models"
    keep_players(models, ["Ana", "Beto"])
    argv = ["voices", "name", "--player", player, "--name", name, "--models-dir", str(models)]
    assert main(argv) == 2
    assert said in capsys.readouterr().err
    assert kept_recordings.player_names(models) == ["Ana", "Beto"]
    # a player's own name, in another case, is theirs
    assert main(["voices", "name", "--player", "ana", "--name", "ANA", "--models-dir",
                 str(models)]) == 0
    assert kept_recordings.player_names(models) == ["ANA", "Beto"]


@pytest.mark.parametrize(("argv", "said"), [
    (["--name", "Ana", "--name", "ana"], "--name: ya hay un jugador que se llama ana"),
    (["--add", "--name", "BETO"], "--name: ya hay un jugador que se llama BETO"),
    (["--name", "3"], "--name: «3» es un número"),
    (["--name", ""], "--name vacío"),
], ids=["twice", "one kept", "a number", "empty"])
def test_calibrate_refuses_names_that_would_not_pick_one_player_before_recording(
        argv: list[str], said: str, shared_dir: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    models = tmp_path / "models"
    sphinx_model(shared_dir, models)
    keep_players(models, ["Ana", "Beto"])
    wavs = ["--wav-dir", str(tmp_path / "a"), "--wav-dir", str(tmp_path / "b")]
    assert main(["voices", "calibrate", *argv, *wavs, "--models-dir", str(models)]) == 2
    err = capsys.readouterr().err
    assert said in err and "no encuentro la carpeta" not in err
    assert kept_recordings.player_names(models) == ["Ana", "Beto"]


class CtrlCMic(NoisyMic):
    """A microphone being recorded when the person presses Ctrl-C."""

    def __iter__(self) -> Iterator[AudioChunk]:
        raise KeyboardInterrupt


def test_a_calibration_stopped_with_ctrl_c_exits_as_every_command_does(
        shared_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    sphinx_model(shared_dir, tmp_path / "models")
    monkeypatch.setattr(mic_choice, "MicSource", CtrlCMic)
    assert main(["voices", "calibrate", "--models-dir", str(tmp_path / "models")]) == INTERRUPTED
    assert "Calibración cancelada; no guardé nada de lo grabado ahora: no hay calibración." in (
        capsys.readouterr().err)


def test_with_no_spanish_model_the_advice_fetches_sphinx_into_the_folder_given(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Only the Spanish Sphinx model is calibrated; fetched anywhere else, or with Vosk too, the
    calibration would not be found or not be used."""
    models = tmp_path / "mis modelos"
    models.mkdir()
    assert main(["voices", "calibrate", "--models-dir", str(models), "--wav-dir",
                 str(tmp_path)]) == 2
    said = f"bajalo con 'truco-referee models fetch sphinx-es --models-dir \"{models}\"'"
    assert said in capsys.readouterr().err
