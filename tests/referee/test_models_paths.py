"""Where the models folder is, and how the advice to fetch a model names it."""

from __future__ import annotations

from pathlib import Path

import pytest

from models.paths import default_models_dir, fetch_command, user_data_dir


@pytest.mark.parametrize("data_home", ["", "relative", "./relative", "~/datos"])
def test_a_relative_xdg_data_home_is_ignored(data_home: str, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", data_home)
    # before: relative/truco-referee/models, wherever the command was run
    assert user_data_dir() == tmp_path / ".local" / "share" / "truco-referee"
    assert default_models_dir().is_absolute()


def test_an_absolute_xdg_data_home_is_followed(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_models_dir() == tmp_path / "truco-referee" / "models"


# The models folder the advice is about -> how the command in it names that folder.
FETCH_COMMANDS = [
    (None, "truco-referee models fetch sphinx-es"),
    ("VARIABLE", "truco-referee models fetch sphinx-es"),  # the folder it takes by itself
    ("fc", "truco-referee models fetch sphinx-es --models-dir fc"),
    # in double quotes: the advice is in single quotes (before: '… --models-dir 'mis modelos'')
    ("mis modelos", 'truco-referee models fetch sphinx-es --models-dir "mis modelos"'),
    ("l'árbitro", 'truco-referee models fetch sphinx-es --models-dir "l\'árbitro"'),
    ('$HOME "x"', "truco-referee models fetch sphinx-es --models-dir '$HOME \"x\"'"),
]


@pytest.mark.parametrize(("models", "said"), FETCH_COMMANDS)
def test_the_fetch_advice_repeats_the_models_folder(models: str | None, said: str,
                                                    tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRUCO_REFEREE_MODELS", str(tmp_path / "VARIABLE"))
    folder = None if models is None else tmp_path / "VARIABLE" if models == "VARIABLE" else Path(models)
    assert fetch_command(folder, "sphinx-es") == said


def test_a_models_folder_this_user_may_not_enter_is_said_not_a_traceback(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Another user's home as $HOME (``sudo -u``): the default folder's check raised
    PermissionError out of ``main``."""
    from referee.cli import main

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "ajeno"))
    monkeypatch.delenv("TRUCO_REFEREE_MODELS", raising=False)
    real = Path.is_dir

    def is_dir(path: Path) -> bool:
        if str(path).startswith(str(tmp_path / "ajeno")):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(Path, "is_dir", is_dir)
    assert main(["models", "check"]) == 2
    assert capsys.readouterr().err.endswith(
        f"no puedo mirar la carpeta de modelos {tmp_path / 'ajeno' / 'truco-referee' / 'models'}: "
        "no tengo permiso para entrar; elegí otra con --models-dir\n")
