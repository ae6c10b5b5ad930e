"""Players' names typed in another Unicode form: «Martín» typed on a keyboard that writes «í» as
«i» plus a combining accent (NFD: a Mac's, some Android ones) is the same name as «Martín» with
«í» whole (NFC): it picks the same player, is refused as a second one, and is kept composed."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from referee.asr import kept_recordings
from referee.cli import main
from referee.commands import voices
from referee.names import clean_name, name_key, same_name
from referee.table_calibration import TableCalibration
from tests.referee.test_table_calibration import Recognizer, keeping_fit, spoken
from tests.referee.test_voices_command import keep_players

COMPOSED = "Martín Ñandú"
DECOMPOSED = unicodedata.normalize("NFD", COMPOSED)


def test_the_two_forms_are_typed_differently_and_are_one_name() -> None:
    assert DECOMPOSED != COMPOSED and len(DECOMPOSED) == len(COMPOSED) + 3
    assert clean_name(DECOMPOSED) == COMPOSED
    assert clean_name("  Martín \t\n Ñandú\u00a0") == COMPOSED  # one line, spaces collapsed
    assert same_name(DECOMPOSED, "MARTÍN ÑANDÚ") and same_name(" martín  ñandú ", COMPOSED)
    assert name_key(DECOMPOSED) == name_key(COMPOSED.upper())
    assert not same_name("Martín", "Martin")  # an accent is not nothing


def test_a_name_typed_decomposed_is_kept_composed_and_refused_as_a_second_player() -> None:
    assert kept_recordings.player_name(DECOMPOSED) == COMPOSED  # before: kept decomposed
    with pytest.raises(ValueError, match=f"ya hay un jugador que se llama {COMPOSED}"):
        kept_recordings.player_name(DECOMPOSED, [COMPOSED])  # before: a second «Martín Ñandú»
    with pytest.raises(ValueError, match="ya hay un jugador que se llama"):
        kept_recordings.player_name(COMPOSED.lower(), [DECOMPOSED])


def test_a_name_as_long_as_kept_is_counted_in_letters_not_in_the_keyboard_s_parts() -> None:
    name = "Martín Ñandú de la Cañada Pérez"[:kept_recordings.NAME_MAX]
    assert kept_recordings.player_name(unicodedata.normalize("NFD", name)) == name  # before: too long


@pytest.mark.parametrize("said", [DECOMPOSED, DECOMPOSED.upper(), f" {COMPOSED.lower()} "])
def test_voices_picks_a_player_by_a_name_typed_in_the_other_form(
        said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    models = tmp_path / "models"
    keep_players(models, ["Ana", COMPOSED])
    assert voices.kept_player(models, said) == 2  # as «forget --player» picks them; before: None
    argv = ["voices", "name", "--player", said, "--name", "Tincho", "--models-dir", str(models)]
    assert main(argv) == 0, capsys.readouterr().err  # before: «No hay un solo jugador que se…»
    assert kept_recordings.player_names(models) == ["Ana", "Tincho"]


def test_voices_name_refuses_another_player_s_name_typed_in_the_other_form(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    models = tmp_path / "models"
    keep_players(models, ["Ana", COMPOSED])
    argv = ["voices", "name", "--player", "1", "--name", DECOMPOSED, "--models-dir", str(models)]
    assert main(argv) == 2
    assert f"ya hay un jugador que se llama {COMPOSED}" in capsys.readouterr().err
    assert kept_recordings.player_names(models) == ["Ana", COMPOSED]


def test_a_name_kept_decomposed_is_read_composed(tmp_path: Path) -> None:
    """A name kept by a version before, as it was typed, is read as the name it is."""
    keep_players(tmp_path, ["Ana", "Beto"])
    folder = kept_recordings.kept_players(tmp_path)[1].folder
    (folder / kept_recordings.NAME_FILE).write_text(DECOMPOSED + "\n", encoding="utf-8")
    assert kept_recordings.player_names(tmp_path) == ["Ana", COMPOSED]
    with pytest.raises(ValueError, match="ya hay un jugador que se llama"):
        kept_recordings.name_player(tmp_path, 1, COMPOSED)


def test_the_tablet_refuses_a_name_typed_in_the_other_form_as_a_second_player(
        tmp_path: Path) -> None:
    calibration = TableCalibration(lambda _: None, tmp_path, Recognizer(tmp_path / "model"),
                                   lambda _: None, prompts=("truco",), fit=keeping_fit)
    calibration.act("start", 2)
    calibration.act("name", name=DECOMPOSED)
    assert calibration.state()["name"] == COMPOSED
    spoken(calibration, 1)
    with pytest.raises(ValueError, match="ya hay un jugador que se llama"):
        calibration.act("name", name=COMPOSED.lower())
    calibration.act("cancel")
