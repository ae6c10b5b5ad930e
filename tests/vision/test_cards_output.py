"""``truco-referee cards --image``: what it prints reaches the reader or says why not, and a photo
it cannot take is said, never a traceback."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path
from typing import IO

import pytest

from referee.cli import main
from tests.vision.test_cards_command import models, photo

__all__ = ["models", "photo"]  # the fixtures, shared with the command's tests

ROOT = Path(__file__).resolve().parents[2]


def _cards(argv: list[str], unbuffered: bool, stdout: int | IO[bytes]) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    return subprocess.Popen([sys.executable, "-m", "referee.cli", "cards", *argv], cwd=ROOT,
                            env=env, stdout=stdout, stderr=subprocess.PIPE)


@pytest.mark.parametrize("unbuffered", [True, False])
@pytest.mark.parametrize("as_json", [[], ["--json"]])
def test_a_reader_gone_ends_it_quietly(
        unbuffered: bool, as_json: list[str], photo: Path, models: Path, wikimedia_dir: Path) -> None:
    """``cards --image foto | head -1``: no complaint about a file «None», no ignored error."""
    run = _cards(["--image", str(photo), "--deck", str(wikimedia_dir), "--models-dir", str(models),
                  *as_json], unbuffered, subprocess.PIPE)
    assert run.stdout is not None and run.stderr is not None
    run.stdout.close()  # the reader is gone before the first card is printed
    err = run.stderr.read().decode()
    assert run.wait(timeout=120) == 0 and err == ""


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (a disk always full)")
@pytest.mark.parametrize("unbuffered", [True, False])
def test_output_that_cannot_be_written_is_said(
        unbuffered: bool, photo: Path, models: Path, wikimedia_dir: Path) -> None:
    with open("/dev/full", "wb") as full:
        run = _cards(["--image", str(photo), "--deck", str(wikimedia_dir),
                      "--models-dir", str(models)], unbuffered, full)
        _, err = run.communicate(timeout=120)
    assert run.returncode == 1
    assert err.decode() == "Cartas: no puedo escribir lo que leí: no queda lugar en el disco\n"


def _png_header_only(width: int, height: int) -> bytes:
    """A PNG that says it is ``width``×``height`` (grey) with next to no pixels behind it."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b""))


def test_a_photo_of_more_pixels_than_opencv_reads_is_said(
        tmp_path: Path, models: Path, wikimedia_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bomb = tmp_path / "enorme.png"
    bomb.write_bytes(_png_header_only(40_000, 40_000))  # 1,600 million pixels
    assert main(["cards", "--image", str(bomb), "--deck", str(wikimedia_dir),
                 "--models-dir", str(models)]) == 1
    assert capsys.readouterr().err == (f"Cartas: no puedo leer la foto {bomb}: es demasiado grande; "
                                       "probá con una más chica\n")


def test_frames_goes_with_a_camera_not_a_photo(
        photo: Path, models: Path, wikimedia_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cards", "--image", str(photo), "--frames", "5", "--deck", str(wikimedia_dir),
                 "--models-dir", str(models)]) == 2
    assert capsys.readouterr().err == "--frames es con --camera: una foto se lee una sola vez\n"


def test_the_reference_progress_goes_to_a_log_once(capsys: pytest.CaptureFixture[str]) -> None:
    from referee.commands import cards

    for done in range(41):  # standard error is no terminal here: a file, a pipe
        cards._progress(done, 40)
    # before: 41 copies of the line joined by carriage returns
    assert capsys.readouterr().err == "Armé la referencia del mazo: 40 cartas\n"
