"""The command line's edges: folders that are files, output cut short, values out of range."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import urllib.error
from pathlib import Path

import pytest

from models.download import _unreachable
from referee.cli import main


@pytest.mark.parametrize("argv", [["voices", "forget"], ["models", "list"]])
def test_a_models_folder_that_is_a_file_is_refused_by_name(
        argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    afile = tmp_path / "afile"
    afile.write_text("")
    assert main([*argv, "--models-dir", str(afile)]) == 2
    assert f"--models-dir {afile}: es un archivo, no una carpeta" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["models", "list"], ["models", "check"], ["models", "fetch"],
                                  ["voices", "forget"]], ids=" ".join)
def test_a_models_folder_that_is_a_link_to_nothing_is_refused_by_name(
        argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dangling = tmp_path / "modelos"
    dangling.symlink_to(tmp_path / "ya-no-existe")
    # before: listed as an empty folder, and fetch said «ya hay un archivo con ese nombre»
    assert main([*argv, "--models-dir", str(dangling)]) == 2
    said = capsys.readouterr().err
    assert f"--models-dir {dangling}: es un enlace a algo que no existe, no una carpeta" in said


def test_output_cut_by_a_closed_pipe_stops_quietly(tmp_path: Path) -> None:
    log = tmp_path / "long.log"
    log.write_text("hand\n" + "points A +0\n" * 20_000)
    run = subprocess.Popen([sys.executable, "-m", "referee.cli", "replay", str(log)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert run.stdout is not None and run.stderr is not None
    run.stdout.readline()
    run.stdout.close()  # as ``| head -1`` does
    said = run.stderr.read().decode()
    assert run.wait(timeout=60) == 0, said
    assert "Traceback" not in said


@pytest.mark.parametrize(("argv", "said"), [
    (["voices", "calibrate", "--players", "0"], "tiene que ser 1 o más"),
    (["cards", "--image", "x.jpg", "--min-confidence", "7"], "va de 0 a 1"),
    (["cards", "--camera", "0", "--preview-port", "70000"], "el puerto va de 1 a 65535"),
    (["serve", "--unsure-below", "1.5"], "va de 0 a 1"),
])
def test_values_out_of_range_are_refused(argv: list[str], said: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as ended:
        main(argv)
    assert ended.value.code == 2 and said in capsys.readouterr().err


def test_a_folder_given_as_a_photo_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cards", "--image", str(tmp_path)]) != 0
    assert f"{tmp_path} es una carpeta, no una foto" in capsys.readouterr().err


def test_a_server_not_found_is_said_without_python_words() -> None:
    lost = urllib.error.URLError(socket.gaierror(-2, "Name or service not known"))
    assert _unreachable(lost) == "no encuentro ese servidor: ¿hay internet?"
    assert _unreachable(urllib.error.URLError(ConnectionRefusedError())) == "rechazó la conexión"


def test_learning_the_deck_is_for_the_camera(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cards", "--image", str(tmp_path / "x.jpg"), "--learn-deck"]) == 2
    assert "--learn-deck es con --camera" in capsys.readouterr().err


def test_demo_with_its_port_taken_stops_before_saying_its_script(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        assert main(["demo", "--host", "127.0.0.1", "--port", port,
                     "--data-dir", str(tmp_path / "datos")]) == 1
    said = capsys.readouterr().err
    assert said.startswith(f"truco-referee demo: no se puede abrir el puerto {port}")
    assert "espeak" not in said and not (tmp_path / "datos").exists()


@pytest.mark.parametrize(("encoding", "argv"), [
    ("latin-1", ["replay", "examples/dos-jugadores.log"]),
    ("ascii", ["replay", "examples/dos-jugadores.log"]),
    ("ascii", ["replay", "--help"]),
    ("ascii", ["--help"]),
])
def test_a_terminal_that_cannot_show_every_letter_gets_what_it_can(encoding: str,
                                                                   argv: list[str]) -> None:
    """«—», ««» and the accents on a Latin-1 or ASCII terminal: «?» in their place."""
    root = Path(__file__).resolve().parents[2]
    run = subprocess.run([sys.executable, "-m", "referee.cli", *argv], cwd=root,
                         capture_output=True, check=False,
                         env={**os.environ, "PYTHONIOENCODING": encoding})
    said = run.stderr.decode(encoding, "replace")
    assert run.returncode == 0 and "Traceback" not in said, said  # before: UnicodeEncodeError
    assert run.stdout.decode(encoding).strip()
