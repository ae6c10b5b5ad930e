"""``serve`` and ``demo`` started with odd options: each refusal one line in words; the demo leaves
nothing behind however it ends."""

from __future__ import annotations

import argparse
import socket
import tempfile
from pathlib import Path
from typing import Any

import pytest

from referee.audio_sources import audio_source
from referee.cli import build_parser
from referee.commands import demo, serve
from referee.evidence import write_wav
from referee.startup import start_camera, start_listening
from tests.web.conftest import free_port


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as ended:
        build_parser().parse_args(list(argv))
    assert ended.value.code == 2
    return capsys.readouterr().err.splitlines()[-1]


@pytest.mark.parametrize("command", ["serve", "demo"])
def test_an_empty_host_or_data_folder_is_refused_not_the_folder_you_are_in(
        command: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``--data-dir "$CARPETA"`` with nothing in it used to put the store in the current folder,
    and ``--host ""`` showed the tablet ``http://:8080/``."""
    said = refused(capsys, command, "--data-dir", "")
    assert said == (f"truco-referee {command}: error: argumento --data-dir: falta la carpeta "
                    "(vacía sería la carpeta donde estás); para la de siempre, no des --data-dir")
    said = refused(capsys, command, "--host", " ")
    assert said.endswith("argumento --host: falta la dirección; sin --host se escucha en toda "
                         "la red local")


def test_an_ipv6_host_is_taken_with_or_without_brackets_and_shown_in_them() -> None:
    assert build_parser().parse_args(["serve", "--host", "[::1]"]).host == "::1"
    assert serve.page_url("::1", 8080) == "http://[::1]:8080/"
    assert serve.page_url("127.0.0.1", 18500) == "http://127.0.0.1:18500/"


@pytest.mark.skipif(not socket.has_ipv6, reason="needs IPv6")
def test_a_link_local_address_without_its_interface_is_said_in_words() -> None:
    with pytest.raises(serve.ServeError) as err:
        serve.bind("fe80::1", free_port())
    assert "fijate --host" in str(err.value) and "Invalid argument" not in str(err.value)


def test_a_data_folder_that_cannot_be_used_is_one_line(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "afile").write_text("")
    args = build_parser().parse_args(["serve", "--no-mic", "--port", str(free_port()),
                                      "--data-dir", str(tmp_path / "afile" / "sub")])
    assert serve.run(args) == 1
    [line] = capsys.readouterr().err.splitlines()
    assert line.endswith("hay un archivo donde tendría que haber una carpeta; elegí otra con "
                         "--data-dir")


def test_options_that_need_a_missing_part_say_so_at_start_up() -> None:
    args = build_parser().parse_args(["serve", "--no-mic", "--learn", "--learn-deck",
                                      "--seat-region", "A1=0,0,0.5,0.5"])
    [listening] = start_listening(args, None, print)
    assert listening.detail == ("apagada (--no-mic): se anota con los botones; sin micrófono, "
                                "--learn no se usa")
    [camera] = start_camera(args, None, print)
    assert camera.detail == ("sin cámara (--camera N para usar una); sin cámara, --seat-region y "
                             "--learn-deck no se usan")


@pytest.mark.parametrize("ending", ["done", "ctrl-c", "signal"])
def test_the_demo_leaves_no_temporary_folder_behind(
        ending: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The script's sound and its game went to a folder in /tmp that stayed after every demo."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(demo, "render_script", lambda wav: wav.write_bytes(b"RIFF") and 1.0)
    monkeypatch.setattr(demo, "calibrated_to_the_script", lambda args, folder: (None, None))
    seen: list[bool] = []

    def run(args: argparse.Namespace, before_signal: Any = None) -> int:
        seen.append(Path(args.wav).exists())
        if ending == "ctrl-c":
            raise KeyboardInterrupt
        if ending == "signal":  # serve.run calls it, then the signal ends the process
            before_signal()
            assert not Path(args.wav).exists()
        return 0

    monkeypatch.setattr(serve, "run", run)
    args = build_parser().parse_args(["demo", "--port", str(free_port())])
    if ending == "ctrl-c":
        with pytest.raises(KeyboardInterrupt):
            demo.run(args)
    else:
        assert demo.run(args) == 0
    assert seen == [True] and list(tmp_path.iterdir()) == []


def test_a_recording_cut_short_is_said_at_start_up(tmp_path: Path) -> None:
    wav = tmp_path / "partida.wav"
    write_wav(wav, bytes(2 * 16000 * 3))
    wav.write_bytes(wav.read_bytes()[: 44 + 2 * 16000])  # 1 s of the 3 its header says
    args = build_parser().parse_args(["serve", "--wav", str(wav)])
    source, part = audio_source(args, print)
    assert source is not None and part.running
    assert part.detail == ("la grabación partida.wav (1 s), como si fuera el micrófono; el archivo "
                           f"{wav} está cortado: dice durar 3.0 s y trae 1.0 s; escucho lo que hay")
