"""One judgement of a model folder for 'models check', 'models list', the recognizer finder and
the recognizers: a damaged model is told as such, with what is missing, and never reaches
pocketsphinx (which ends the whole process on a broken model definition)."""

from __future__ import annotations

import shutil
import wave
from collections.abc import Callable
from pathlib import Path

import pytest

from models.catalog import CATALOG, SPHINX_ES, VOSK_ES
from models.fetch import check
from models.validate import sphinx_problems
from referee.asr.base import RecognizerError
from referee.asr.find import find_model
from referee.asr.grammar import PhraseList
from referee.asr.sphinx import SphinxRecognizer
from referee.cli import main

VOSK_FILES = ("am/final.mdl", "conf/mfcc.conf", "conf/model.conf", "graph/HCLr.fst",
              "graph/Gr.fst")


def _vosk(models: Path) -> Path:
    folder = VOSK_ES.target(models)
    for name in VOSK_FILES:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(b"x" * 100)
    return folder


@pytest.fixture()
def sphinx(shared_dir: Path, tmp_path: Path) -> Path:
    """A writable copy of the Spanish acoustic model, where the catalog puts it."""
    source = shared_dir / "models" / "cmusphinx-es-5.2-ptm" / "acoustic_model"
    if not source.is_dir():
        pytest.skip(f"Spanish Sphinx model not found at {source}")
    folder = SPHINX_ES.target(tmp_path / "models") / "model_parameters" / "es.cd_ptm"
    shutil.copytree(source, folder)
    for path in folder.iterdir():
        path.chmod(0o644)
    return folder


def _cut(name: str, keep: int) -> Callable[[Path], None]:
    def damage(folder: Path) -> None:
        data = (folder / name).read_bytes()
        (folder / name).write_bytes(data[:keep])
    return damage


def _cut_lines(name: str, lines: int) -> Callable[[Path], None]:
    def damage(folder: Path) -> None:
        text = (folder / name).read_text(encoding="ascii").splitlines()[:lines]
        (folder / name).write_text("\n".join(text) + "\n", encoding="ascii")
    return damage


def _halve(name: str) -> Callable[[Path], None]:
    def damage(folder: Path) -> None:
        data = (folder / name).read_bytes()
        (folder / name).write_bytes(data[:len(data) // 2])
    return damage


# Damage that makes pocketsphinx print FATAL and exit(1) from C (or load a model cut short), and
# what the check says instead.
DAMAGE = {
    "empty mdef": (_cut("mdef", 0), "mdef está vacío"),
    "mdef cut inside its header": (_cut("mdef", 60), "mdef no tiene el encabezado"),
    "mdef cut after its header": (_cut("mdef", 200), "mdef está cortado"),
    "mdef cut at a line end": (_cut_lines("mdef", 20_000), "mdef está cortado"),
    "mdef cut mid-line": (_cut("mdef", 700_000), "mdef está cortado"),
    "short transition_matrices": (_cut("transition_matrices", 500), "transition_matrices está cortado"),
    "empty sendump": (_cut("sendump", 0), "sendump está vacío"),
    # before: passed as whole («está (copiado a mano…)»), their headers' counts unread
    "means cut in half": (_halve("means"), "means está cortado"),
    "variances cut in half": (_halve("variances"), "variances está cortado"),
    "sendump cut in half": (_halve("sendump"), "sendump está cortado"),
    "sendump cut inside its header": (_cut("sendump", 300), "sendump no es un archivo de Sphinx"),
    "means cut inside its counts": (_cut("means", 50), "means está cortado"),
}


def test_the_real_sphinx_model_is_whole(sphinx: Path) -> None:
    assert sphinx_problems(sphinx) == []


@pytest.mark.parametrize("damage", DAMAGE, ids=list(DAMAGE))
def test_a_damaged_sphinx_model_is_an_error_not_a_dead_process(sphinx: Path, damage: str) -> None:
    harm, said = DAMAGE[damage]
    harm(sphinx)
    assert any(said in p for p in sphinx_problems(sphinx))
    with pytest.raises(RecognizerError) as err:  # before: pocketsphinx ended pytest with exit(1)
        SphinxRecognizer(PhraseList.from_table(), sphinx)
    assert err.value.code == "model-broken" and said in err.value.message
    models = sphinx.parents[2]
    with pytest.raises(RecognizerError) as err:  # asked for by name: an error
        find_model(models, "sphinx")
    assert err.value.code == "model-broken"
    found = find_model(models)  # found on the way: passed over, and the choice says why
    assert found.english and said in found.label and "models fetch --force sphinx-es" in found.label
    status = check(SPHINX_ES, models)
    assert status.state == "broken" and said in status.message


def test_listen_with_a_damaged_model_says_so(sphinx: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    (sphinx / "mdef").write_bytes(b"")
    wav = tmp_path / "silencio.wav"
    with wave.open(str(wav), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(b"\0\0" * 1600)
    assert main(["listen", "--wav", str(wav), "--model", str(sphinx), "--no-evidence"]) == 2
    err = capsys.readouterr().err
    assert "No puedo arrancar el reconocedor" in err and "mdef está vacío" in err


def test_check_and_the_finder_agree_on_a_vosk_model_missing_a_file(tmp_path: Path) -> None:
    folder = _vosk(tmp_path)
    assert check(VOSK_ES, tmp_path).ok and find_model(tmp_path).kind == "vosk"
    (folder / "am" / "final.mdl").unlink()
    status = check(VOSK_ES, tmp_path)
    assert status.state == "broken" and "falta am/final.mdl" in status.message
    with pytest.raises(RecognizerError) as err:  # asked for by name: an error
        find_model(tmp_path, "vosk")
    assert err.value.code == "model-broken" and "falta am/final.mdl" in err.value.message
    found = find_model(tmp_path)  # not a silent switch to another recognizer: it says why
    assert found.kind == "sphinx" and "falta am/final.mdl" in found.label


def test_an_empty_model_folder_is_not_ok(tmp_path: Path) -> None:
    VOSK_ES.target(tmp_path).mkdir()
    status = check(VOSK_ES, tmp_path)
    assert status.state == "broken" and "falta am/final.mdl" in status.message
    SPHINX_ES.target(tmp_path).mkdir()
    assert check(SPHINX_ES, tmp_path).state == "broken"


def test_check_exits_1_only_for_a_damaged_model(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models", "check", "--models-dir", str(tmp_path)]) == 0  # nothing fetched
    assert "es opcional" in capsys.readouterr().out
    folder = _vosk(tmp_path)
    assert main(["models", "check", "--models-dir", str(tmp_path)]) == 0  # the deck never fetched
    (folder / "conf" / "mfcc.conf").write_bytes(b"")
    assert main(["models", "check", "--models-dir", str(tmp_path)]) == 1
    assert "conf/mfcc.conf está vacío" in capsys.readouterr().out


def test_list_marks_a_damaged_model_and_says_why(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    (_vosk(tmp_path) / "am" / "final.mdl").unlink()
    assert main(["models", "list", "--models-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "✗ vosk-es" in out and "falta am/final.mdl" in out
    assert "Se va a usar: sphinx-en" in out  # the next recognizer, and why
    assert out.count("falta am/final.mdl") == 2


def test_check_help_says_what_the_exit_code_means(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["models", "check", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "Sale con 1 solo si alguno está dañado" in out and "no es un error" in out


def test_every_catalog_kind_can_be_checked(tmp_path: Path) -> None:
    assert {check(spec, tmp_path).state for spec in CATALOG.values()} == {"missing"}


def test_list_says_when_the_model_used_is_not_one_fetched(shared_dir: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    model = shared_dir / "models" / "cmusphinx-es-5.2-ptm"
    if not model.is_dir():
        pytest.skip(f"Spanish Sphinx model not found at {model}")
    (tmp_path / "mi-modelo").symlink_to(model)
    assert main(["models", "list", "--models-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "· sphinx-es" in out
    assert out.rstrip().endswith("está en la carpeta, pero no lo bajó 'models fetch'")


@pytest.mark.parametrize("name", ["means", "variances", "sendump"])
def test_check_exits_1_for_a_hand_copied_model_with_a_file_cut_in_half(
        sphinx: Path, name: str, capsys: pytest.CaptureFixture[str]) -> None:
    models = sphinx.parents[2]
    assert main(["models", "check", "--models-dir", str(models)]) == 0
    assert "sphinx-es: está (copiado a mano" in capsys.readouterr().out
    _halve(name)(sphinx)
    assert main(["models", "check", "--models-dir", str(models)]) == 1
    out = capsys.readouterr().out
    assert f"sphinx-es: está incompleto o dañado ({name} está cortado)" in out


@pytest.fixture()
def sphinx_copy(shared_dir: Path, tmp_path: Path) -> Path:
    """A writable Sphinx model copied by hand two folders down, not where the catalog puts it."""
    source = shared_dir / "models" / "cmusphinx-es-5.2-ptm" / "acoustic_model"
    if not source.is_dir():
        pytest.skip(f"Spanish Sphinx model not found at {source}")
    folder = tmp_path / "m4" / "cmusphinx-es-5.2-ptm" / "acoustic_model"
    shutil.copytree(source, folder)
    for path in folder.iterdir():
        path.chmod(0o644)
    return folder


def test_check_judges_the_hand_copy_the_finder_uses(sphinx_copy: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    models = sphinx_copy.parents[1]
    assert main(["models", "list", "--models-dir", str(models)]) == 0
    assert f"Se va a usar: sphinx-es ({sphinx_copy})" in capsys.readouterr().out
    assert main(["models", "check", "--models-dir", str(models)]) == 0
    out = capsys.readouterr().out  # before: «sphinx-es: no está; bajalo»
    assert f"sphinx-es: no lo bajó 'models fetch', pero se usa el que está en {sphinx_copy}" in out
    (sphinx_copy / "mdef").write_bytes(b"")
    assert main(["models", "check", "--models-dir", str(models)]) == 1  # before: 0
    out = capsys.readouterr().out
    assert f"el que se usaría, en {sphinx_copy}, está incompleto o dañado (mdef está vacío)" in out
    assert f"'truco-referee models fetch sphinx-es --models-dir {models}'" in out


@pytest.mark.parametrize("action", ["list", "check"])
def test_list_and_check_name_the_folder_they_looked_in(
        action: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    typo = tmp_path / "modleos"
    assert main(["models", action, "--models-dir", str(typo)]) == 0
    assert capsys.readouterr().out.startswith(f"Carpeta de modelos: {typo} (no existe)\n")
    typo.mkdir()
    assert main(["models", action, "--models-dir", str(typo)]) == 0
    assert capsys.readouterr().out.startswith(f"Carpeta de modelos: {typo}\n")


def test_list_lines_up_every_model_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models", "list", "--models-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    lines = [next(line for line in out if spec.description in line) for spec in CATALOG.values()]
    starts = {line.index(spec.description) for line, spec in zip(lines, CATALOG.values())}
    assert len(starts) == 1  # before: «mazo-naipes-libres» pushed its description a column on
