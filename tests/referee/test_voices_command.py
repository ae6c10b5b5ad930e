"""`voices calibrate` and `voices learn` at their edges: a damaged Sphinx model is said in words."""

from __future__ import annotations

from pathlib import Path

import pytest

from models.catalog import SPHINX_ES
from referee.cli import main


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
