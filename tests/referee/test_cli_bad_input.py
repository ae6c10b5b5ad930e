"""Bad or unusual input to the commands, as a player at a fresh install gives it: each is one
Spanish message and a non-zero exit, never a traceback, and no stored game or recording is
lost on the way."""

from __future__ import annotations

import io
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from referee import mic_choice
from referee.cli import main
from referee.commands import cards, listen
from referee.commands.serve import build
from referee.commands.serve_arguments import demo_arguments
from referee.vision.errors import VisionError
from tests.referee.test_cli import SaysTruco, _listen, _wav, recognizers  # noqa: F401
from tests.referee.test_voices_command import sphinx_model


def _deck(shared_dir: Path) -> Path:
    """The faces of a whole deck in ../shared."""
    deck = shared_dir / "cards" / "wikimedia-naipes-libres" / "cards"
    if not deck.is_dir():
        pytest.skip(f"no deck at {deck}")
    return deck


class CtrlC(io.RawIOBase):
    """Standard input while the person presses Ctrl-C."""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: object) -> int:
        raise KeyboardInterrupt


def test_ctrl_c_stops_a_command_without_a_traceback(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(CtrlC())))
    assert main(["replay", "-"]) == 130  # before: KeyboardInterrupt out of main
    assert capsys.readouterr().err == "\ntruco-referee replay: interrumpido\n"


@pytest.mark.parametrize(("argv", "said"), [
    (["cards", "--camera", "0", "--frames", "-3"], "argumento --frames: tiene que ser 0 o más, no -3"),
    (["cards", "--calibrate", "--camera", "0", "--name", "mi mazo"],
     "argumento --name: «mi mazo» no sirve de nombre de mazo"),
])
def test_numbers_and_names_the_cards_cannot_use_are_refused(
        argv: list[str], said: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as ended:  # before: ValueError out of islice / deck_dir
        main(argv)
    assert ended.value.code == 2 and said in capsys.readouterr().err


def test_a_negative_camera_is_refused_before_the_camera_is_opened(shared_dir: Path,
                                                                 tmp_path: Path) -> None:
    # in a process of its own: OpenCV asked for camera -1 crashes the process (SIGSEGV)
    run = subprocess.run([sys.executable, "-m", "referee.cli", "cards", "--camera", "-1",
                          "--frames", "1", "--models-dir", str(tmp_path),
                          "--deck", str(_deck(shared_dir))],
                         check=False, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2, run.stderr
    assert "argumento --camera: tiene que ser 0 o más, no -1" in run.stderr


def _no_camera(index: int) -> Iterator[np.ndarray]:
    """A camera that is not there, as ``camera_frames`` says it when first asked for a frame."""
    raise VisionError("camera-missing", f"no puedo abrir la cámara {index}")
    yield np.zeros(0)


def _a_camera(index: int) -> Iterator[np.ndarray]:
    """A camera that looks at an empty table."""
    while True:
        yield np.zeros((480, 640, 3), np.uint8)


@pytest.mark.parametrize("argv", [["--preview-host", "127.0.0.1"], ["--calibrate"]])
def test_a_missing_camera_is_said_before_a_page_or_a_card_to_show(
        argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(cards, "camera_frames", _no_camera)
    monkeypatch.setattr(cards, "_recognizer", lambda args: None)  # no deck needed to get there
    monkeypatch.setattr(cards, "can_show_windows", lambda: False)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = str(probe.getsockname()[1])
    code = main(["cards", "--camera", "0", "--models-dir", str(tmp_path / "modelos"),
                 "--preview-port", port, *argv])
    out, err = capsys.readouterr()
    assert (code, out) == (1, "")  # before: «(1/40) Mostrá el 1 de espadas…» first
    assert err == "Cartas: no puedo abrir la cámara 0\n"  # before: the live page's address first
    assert not (tmp_path / "modelos").exists()  # before: the deck's folder was made


def test_a_deck_that_cannot_be_saved_is_said_before_the_first_card(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(cards, "camera_frames", _a_camera)
    (tmp_path / "cards").write_text("no soy una carpeta")
    code = main(["cards", "--calibrate", "--camera", "0", "--models-dir", str(tmp_path)])
    out, err = capsys.readouterr()  # before: FileExistsError out of main
    assert code == 1 and "Mostrá" not in out
    assert err == (f"Cartas: no puedo guardar el mazo en {tmp_path / 'cards/decks/mi-mazo'}: en "
                   "el camino hay un archivo donde tendría que haber una carpeta; elegí otra "
                   "carpeta con --models-dir\n")


def test_a_reference_that_cannot_be_kept_is_used_unsaved_and_names_the_folder_to_change(
        shared_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deck = _deck(shared_dir)
    (tmp_path / "cards").write_text("no soy una carpeta")  # where the deck's reference is kept
    photo = tmp_path / "foto.png"
    photo.write_bytes(deck.joinpath("07-oros.png").read_bytes())
    argv = ["cards", "--image", str(photo), "--deck", str(deck), "--models-dir", str(tmp_path)]
    assert main(argv) == 0  # before: an OSError out of main, then 1 and the photo never read
    out, err = capsys.readouterr()
    assert "7 de oros" in out
    [said] = [line for line in err.splitlines() if "no puedo guardar" in line]  # said once
    assert said.startswith(f"no puedo guardar la referencia del mazo en {tmp_path / 'cards'}")
    assert said.endswith("elegí otra carpeta con --models-dir para guardarla)")


def test_the_cards_help_shows_each_way_to_use_it_on_a_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["cards", "--help"])
    lines = capsys.readouterr().out.splitlines()
    for usage in ("  truco-referee cards --image foto.jpg [--json] [--deck CARPETA ...]",
                  "  truco-referee cards --camera 0 [--learn-deck] [--frames-dir CARPETA]",
                  "  truco-referee cards --calibrate --camera 0 [--name mi-mazo]"):
        assert usage in lines  # before: the three run together in one paragraph


def test_listen_goes_on_when_the_evidence_cannot_be_written(
        tmp_path: Path, recognizers: list[SaysTruco],  # noqa: F811
        capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "evidencia"
    (folder / "index.jsonl").mkdir(parents=True)  # the index cannot be written
    argv = ["--wav", str(_wav(tmp_path / "x.wav")), "--evidence", str(folder)]
    code, lines, err = _listen(argv, capsys)  # before: IsADirectoryError out of main
    assert code == 0 and [line["call"] for line in lines] == ["truco"]
    assert f"[evidencia] no pude guardar lo oído como evidencia en {folder}" in err


def test_listen_refuses_a_wav_without_sound_before_loading_the_recognizer(
        tmp_path: Path, recognizers: list[SaysTruco],  # noqa: F811
        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "vacio.wav"
    path.write_bytes(_wav(path).read_bytes()[:44])  # the header, no audio
    code, lines, err = _listen(["--wav", str(path), "--no-evidence"], capsys)  # before: 0, quiet
    assert (code, lines, recognizers) == (2, [], [])
    assert err == f"Problema con el audio: {path} está cortado: dice durar 1.0 s y no trae sonido\n"


def test_forget_says_why_the_calibration_cannot_be_deleted(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "voice-calibration").write_text("no soy una carpeta")
    assert main(["voices", "forget", "--models-dir", str(tmp_path)]) == 1  # before: traceback
    assert capsys.readouterr().err == (
        f"No pude borrar la calibración: ya hay un archivo con ese nombre "
        f"({tmp_path / 'voice-calibration'})\n")


@pytest.mark.parametrize(("action", "doing"), [("calibrate", "calibrar"), ("learn", "aprender")])
def test_a_calibration_that_cannot_be_saved_is_said_before_anyone_speaks(
        action: str, doing: str, shared_dir: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    models = tmp_path / "models"
    sphinx_model(shared_dir, models)
    (models / "voice-calibration").write_text("no soy una carpeta")
    # no recordings and no games: the calibration's folder is what is wrong, said first
    recordings = ["--wav-dir", str(tmp_path / "nada")] if action == "calibrate" else []
    argv = ["voices", action, "--models-dir", str(models), *recordings,
            "--data-dir", str(tmp_path / "nada")]
    assert main(argv) == 2  # before: "no encuentro la carpeta" / "No hay partidas guardadas"
    err = capsys.readouterr().err
    assert err.startswith(f"No puedo {doing}: no puedo guardar la calibración en "
                          f"{models / 'voice-calibration'}: ")


def test_serve_says_a_game_put_aside_for_other_rules_is_kept(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    app, store = build(demo_arguments(data_dir=tmp_path, pin="1234"))
    for line in ("hand", "A1: truco", "B1: quiero"):
        app.state.service.submit_line(line)
    store.close()
    capsys.readouterr()
    app, store = build(demo_arguments(data_dir=tmp_path, pin="1234", players=4))
    store.close()
    assert app.state.service.game_id != 1
    assert capsys.readouterr().out == (  # before: nothing said, the board just showed 0 a 0
        "La partida #1 (A 0 — B 0) tiene otras reglas: empieza una nueva con las pedidas. La #1 "
        "quedó guardada: se sigue desde la tablet, en «Partidas anteriores».\n")


def test_serve_ends_when_done_only_with_a_recording(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["serve", "--no-mic", "--exit-when-done", "--data-dir", str(tmp_path / "datos")]
    assert main(argv) == 2  # before: «la grabación no se puede escuchar», with no recording
    assert capsys.readouterr().err == ("truco-referee serve: --exit-when-done es con --wav: "
                                       "termina cuando se acaba la grabación\n")
    assert not (tmp_path / "datos").exists()


def test_serve_says_nothing_when_an_empty_game_is_put_aside(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build(demo_arguments(data_dir=tmp_path, pin="1234"))[1].close()
    build(demo_arguments(data_dir=tmp_path, pin="1234", players=4))[1].close()
    assert capsys.readouterr().out == ""


def test_demo_without_espeak_leaves_no_folder_behind(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "sin-programas"))
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = str(probe.getsockname()[1])
    assert main(["demo", "--host", "127.0.0.1", "--port", port]) == 2
    assert "falta espeak-ng" in capsys.readouterr().err
    assert list(temp.iterdir()) == []  # before: an empty truco-demo-… folder each time


class HearsNothing(SaysTruco):
    """A recognizer that hears nothing in the whole recording."""

    def flush(self) -> list:  # type: ignore[override]
        return []


def test_listen_says_when_a_recording_held_no_call(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(listen, "choose_model", lambda args: SimpleNamespace(label="falso"))
    monkeypatch.setattr(listen, "make_recognizer", lambda choice: HearsNothing())
    code, lines, err = _listen(["--wav", str(_wav(tmp_path / "x.wav")), "--no-evidence"], capsys)
    assert (code, lines) == (0, [])  # before: only the score, as if the calls were all refused
    assert "no se oyó ningún canto ni palabra parecida\ntanteador: A 0 — B 0\n" in err


def test_listen_says_nothing_more_when_it_heard_a_call(
        tmp_path: Path, recognizers: list[SaysTruco],  # noqa: F811
        capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, err = _listen(["--wav", str(_wav(tmp_path / "x.wav")), "--no-evidence"], capsys)
    assert code == 0 and [line["call"] for line in lines] == ["truco"]
    assert "no se oyó" not in err


@pytest.fixture
def no_mic(monkeypatch: pytest.MonkeyPatch) -> None:
    """``listen`` must not get as far as the microphone (which would retry until one is there)."""
    def opened(*args: object, **kwargs: object) -> None:
        raise AssertionError("the microphone was opened")

    monkeypatch.setattr(mic_choice, "MicSource", opened)


@pytest.mark.parametrize(("argv", "said"), [
    (["--unsure-below", "7"], "argumento --unsure-below: va de 0 a 1, no 7"),
])
def test_listen_refuses_a_confidence_out_of_range(argv: list[str], said: str, no_mic: None,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as ended:  # before: accepted, every call left dudoso
        main(["listen", *argv])
    assert ended.value.code == 2 and said in capsys.readouterr().err


def test_listen_realtime_is_for_a_recording(recognizers: list[SaysTruco],  # noqa: F811
                                            no_mic: None,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["listen", "--realtime"]) == 2  # before: ignored, the microphone opened
    assert recognizers == []
    assert "--realtime es con --wav" in capsys.readouterr().err
