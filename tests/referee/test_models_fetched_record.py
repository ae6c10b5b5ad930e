"""What a fetch recorded (``fetched.json``) judges a model for the finder as for 'models check':
a file cut since the fetch is damage to both, told once; 'models list' says what it will use and
what is half downloaded; a models folder that is a file is named wherever it comes from."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from models.catalog import SPHINX_ES, VOSK_ES, ModelSpec
from models.fetch import check
from referee.asr.base import RecognizerError
from referee.asr.find import classify, find_model
from referee.cli import main

VOSK_FILES = ("am/final.mdl", "conf/mfcc.conf", "conf/model.conf", "graph/HCLr.fst")


def _as_fetched(spec: ModelSpec, models: Path) -> Path:
    """Record a model folder as 'models fetch' does, with the size of every file in it."""
    folder = spec.target(models)
    files = {p.relative_to(folder).as_posix(): p.stat().st_size
             for p in sorted(folder.rglob("*")) if p.is_file()}
    record = {"name": spec.name, "url": "http://127.0.0.1/x", "sha256": "0" * 64, "files": files}
    (folder / "fetched.json").write_text(json.dumps(record), encoding="utf-8")
    return folder


def _vosk(models: Path) -> Path:
    folder = VOSK_ES.target(models)
    for name in VOSK_FILES:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(b"x" * 100)
    return _as_fetched(VOSK_ES, models)


def _halve(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:path.stat().st_size // 2])


@pytest.fixture()
def sphinx(shared_dir: Path, tmp_path: Path) -> Path:
    """The Spanish acoustic model, fetched (recorded) where the catalog puts it."""
    source = shared_dir / "models" / "cmusphinx-es-5.2-ptm" / "acoustic_model"
    if not source.is_dir():
        pytest.skip(f"Spanish Sphinx model not found at {source}")
    folder = SPHINX_ES.target(tmp_path) / "model_parameters" / "es.cd_ptm"
    shutil.copytree(source, folder)
    for path in folder.iterdir():
        path.chmod(0o644)
    _as_fetched(SPHINX_ES, tmp_path)
    return folder


def test_the_finder_passes_over_a_sphinx_model_cut_since_its_fetch(sphinx: Path,
                                                                   tmp_path: Path) -> None:
    assert find_model(tmp_path).path == sphinx
    _halve(sphinx / "feat.params")  # still there, not empty: only the record knows
    status = check(SPHINX_ES, tmp_path)
    assert (status.state == "broken"
            and "cambió model_parameters/es.cd_ptm/feat.params" in status.message)
    found = find_model(tmp_path)
    assert found.english
    assert "feat.params" in found.label and "models fetch --force sphinx-es" in found.label
    for asked in (lambda: find_model(tmp_path, "sphinx"), lambda: classify(sphinx, tmp_path)):
        with pytest.raises(RecognizerError) as err:
            asked()
        assert err.value.code == "model-broken" and "cambió" in err.value.message


def test_list_does_not_use_the_model_it_marks_damaged(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    _halve(_vosk(tmp_path) / "am" / "final.mdl")
    assert main(["models", "list", "--models-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "✗ vosk-es" in out and "cambió am/final.mdl" in out
    assert "Se va a usar: vosk-es" not in out
    assert "Se va a usar: sphinx-en" in out and "models fetch --force vosk-es" in out


def test_a_missing_file_is_told_once(tmp_path: Path) -> None:
    (_vosk(tmp_path) / "am" / "final.mdl").unlink()
    status = check(VOSK_ES, tmp_path)
    assert status.state == "broken" and status.message.count("falta am/final.mdl") == 1
    assert find_model(tmp_path).label.count("falta am/final.mdl") == 1


def test_list_tells_a_half_finished_download(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / f"{VOSK_ES.archive}.part").write_bytes(b"\0" * 1_500_000)
    assert main(["models", "list", "--models-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert (f"a medio bajar (1.5 MB); 'truco-referee models fetch vosk-es --models-dir {tmp_path}' "
            "sigue desde ahí") in out
    assert out.count("a medio bajar") == 1


def test_list_tells_a_download_under_way_in_another_fetch(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    from models.fetch import lock_path
    from models.lock import held

    (tmp_path / f"{VOSK_ES.archive}.part").write_bytes(b"\0" * 1_500_000)
    with held(lock_path(VOSK_ES, tmp_path)):  # as a fetch running in another terminal holds it
        assert main(["models", "list", "--models-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "bajándose ahora, en otra 'models fetch' (1.5 MB hasta acá)" in out
    assert "sigue desde ahí" not in out


@pytest.mark.parametrize("size, said", [(40_000, "40 KB"), (999_600, "1.0 MB"), (300, "300 bytes")],
                         ids=["kb", "mb", "bytes"])
def test_list_tells_a_small_download_in_kb_not_as_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], size: int, said: str) -> None:
    from models.fetch import lock_path
    from models.lock import held

    (tmp_path / f"{VOSK_ES.archive}.part").write_bytes(b"\0" * size)
    assert main(["models", "list", "--models-dir", str(tmp_path)]) == 0
    with held(lock_path(VOSK_ES, tmp_path)):
        assert main(["models", "list", "--models-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"a medio bajar ({said}); " in out  # before: «(0.0 MB)» under 50 KB
    assert f"bajándose ahora, en otra 'models fetch' ({said} hasta acá)" in out


MODELS_COMMANDS = [["models", "list"], ["models", "check"], ["models", "fetch"],
                   ["voices", "forget"]]


@pytest.mark.parametrize("argv", MODELS_COMMANDS, ids=" ".join)
def test_a_models_variable_naming_a_file_is_refused_by_name(
        argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    afile = tmp_path / "afile"
    afile.write_text("")
    monkeypatch.setenv("TRUCO_REFEREE_MODELS", str(afile))
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"$TRUCO_REFEREE_MODELS apunta a un archivo ({afile})" in err
    assert "liberá lugar" not in err


@pytest.mark.parametrize("argv", MODELS_COMMANDS, ids=" ".join)
def test_a_default_models_folder_that_is_a_file_is_refused_by_name(
        argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("TRUCO_REFEREE_MODELS", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    (tmp_path / "truco-referee").mkdir()
    (tmp_path / "truco-referee" / "models").write_text("")
    assert main(argv) == 2
    assert (f"la carpeta de modelos {tmp_path / 'truco-referee' / 'models'} es un archivo"
            in capsys.readouterr().err)
