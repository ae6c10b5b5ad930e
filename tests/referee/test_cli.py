"""The ``truco-referee`` command line speaks Spanish: help, usage and argparse's own errors, for the
top level and every subcommand; ``models`` takes its options before or after the action."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.cli import COMMANDS, main

ENGLISH = ("usage:", "options:", "show this help message", "positional arguments",
           "the following arguments are required", "invalid choice", "error: argument ",
           "unrecognized arguments")
HELPS = [[name] for name in COMMANDS] + [["models", action] for action in ("fetch", "list", "check")]


def _out(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    with pytest.raises(SystemExit) as done:
        main(argv)
    captured = capsys.readouterr()
    return int(done.value.code or 0), captured.out + captured.err


def test_top_level_help_is_spanish(capsys: pytest.CaptureFixture[str]) -> None:
    code, text = _out(["--help"], capsys)
    assert code == 0
    assert "uso: truco-referee" in text and "opciones:" in text and "muestra esta ayuda" in text
    assert "arrancar el árbitro y el tanteador" in text  # the subcommands, in Spanish
    assert not [word for word in ENGLISH if word in text]


@pytest.mark.parametrize("argv", HELPS, ids=" ".join)
def test_every_subcommand_help_is_spanish_and_says_what_it_does(
        argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, text = _out([*argv, "--help"], capsys)
    assert code == 0 and text.startswith("uso: ")
    assert not [word for word in ENGLISH if word in text]
    description = text.split("\n\n")[1]
    assert len(description) > 30 and not description.startswith(("argumentos", "opciones"))


@pytest.mark.parametrize("argv, said", [
    (["replay"], "faltan estos argumentos: ARCHIVO"),
    (["listen", "--channels", "3"], "opción inválida: 3"),
    (["replay", "a.log", "--bogus"], "no entiendo estos argumentos: --bogus"),
    (["nada"], "opción inválida: 'nada'"),
])
def test_usage_errors_are_spanish(argv: list[str], said: str,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    code, text = _out(argv, capsys)
    assert code == 2 and said in text and "uso: truco-referee" in text
    assert not [word for word in ENGLISH if word in text]


def test_models_dir_goes_before_or_after_the_action(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    after, before = tmp_path / "despues", tmp_path / "antes"
    assert main(["models", "list", "--models-dir", str(after)]) == 0
    assert f"Carpeta de modelos: {after}" in capsys.readouterr().out
    assert main(["models", "--models-dir", str(before), "check"]) == 0
    assert main(["models", "--models-dir", str(before), "list"]) == 0
    assert f"Carpeta de modelos: {before}" in capsys.readouterr().out


def test_an_unknown_model_name_lists_the_known_ones(capsys: pytest.CaptureFixture[str]) -> None:
    code, text = _out(["models", "fetch", "bogus"], capsys)
    assert code == 2 and "'bogus'" in text and "vosk-es, sphinx-es, mazo-naipes-libres" in text
    assert "[]" not in text
