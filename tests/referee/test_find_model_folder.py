"""A --model folder that is not there, or is a file, is said as such, not as a folder that does not
look like a model."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.asr.base import RecognizerError
from referee.asr.find import classify
from referee.cli import main


def _refusal(path: Path) -> str:
    with pytest.raises(RecognizerError) as caught:
        classify(path, path.parent)
    return caught.value.message


def test_a_model_folder_that_does_not_exist_is_said_so(tmp_path: Path) -> None:
    # before: «… no parece un modelo de Vosk ni de Sphinx», as if it were there
    assert _refusal(tmp_path / "no-hay") == f"no existe la carpeta {tmp_path / 'no-hay'}"


def test_a_model_that_is_a_file_is_said_so(tmp_path: Path) -> None:
    afile = tmp_path / "modelo.zip"
    afile.write_bytes(b"PK")
    assert _refusal(afile) == f"{afile} es un archivo, no la carpeta de un modelo"


def test_a_folder_that_is_no_model_is_said_so(tmp_path: Path) -> None:
    (tmp_path / "vacia").mkdir()
    assert _refusal(tmp_path / "vacia").endswith("no parece un modelo de Vosk ni de Sphinx")


def test_listen_says_the_model_folder_does_not_exist(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "no" / "hay"
    assert main(["listen", "--model", str(missing), "--models-dir", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (f"No puedo arrancar el reconocedor: no existe la carpeta "
                                       f"{missing}\n")
