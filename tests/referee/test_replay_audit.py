"""``truco-referee replay`` on what a player hands it by mistake (the tablet's evidence ZIP, a
closed standard input or one at a terminal, a log from a Windows editor) and on a log that
leaves an envido aside."""

from __future__ import annotations

import io
import json
import sys
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest

from referee.cli import main
from tests.referee.test_replay import replay_cli


def test_the_evidence_zip_is_told_apart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as zf:
        zf.writestr("partida-3/partida-3.txt", "hand\nA1: truco\n")
    code, out, err = replay_cli(tmp_path, data.getvalue(), capsys, name="partida-3-evidencia.zip")
    assert code == 1 and out == ""  # before: «no parece un registro de texto»
    assert "partida-3-evidencia.zip es un ZIP" in err and "partida-N.txt): descomprimilo" in err


def test_a_closed_standard_input_is_a_clear_error(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", None)  # as `truco-referee replay - <&-` starts
    assert main(["replay", "-"]) == 1  # before: AttributeError, a traceback
    assert capsys.readouterr().err == "no puedo abrir la entrada estándar: está cerrada\n"


class EndlessBinary:
    """A stream of NULs that fails when read to its end (/dev/zero, a film of gigabytes)."""

    def read(self, size: int = -1) -> bytes:
        assert size >= 0, "read whole"
        return bytes(size)


def test_a_file_that_is_no_log_is_refused_from_its_start(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", SimpleNamespace(buffer=EndlessBinary()))
    assert main(["replay", "-"]) == 1  # before: read whole first (forever, from /dev/zero)
    assert capsys.readouterr().err == "la entrada estándar no parece un registro de texto\n"


class Keyboard(io.TextIOWrapper):
    """Standard input at a terminal, with what the player typed before Ctrl-D."""

    def isatty(self) -> bool:
        return True


TYPED = b"hand\nA1: truco\nB1: quiero\nhand A\n"


def test_a_log_typed_at_the_terminal_is_asked_for_once(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", Keyboard(io.BytesIO(TYPED), encoding="utf-8"))
    assert main(["replay", "-"]) == 0  # before: a silent wait for what to type
    out, err = capsys.readouterr()
    assert err == "Escribí las líneas del registro, una por renglón; terminá con Ctrl-D.\n"
    assert "tanteador: A 2 — B 0" in out


def test_a_piped_log_is_not_asked_for(monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(TYPED), encoding="utf-8"))
    assert main(["replay", "-"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and "tanteador: A 2 — B 0" in out


def test_a_line_from_a_windows_editor_keeps_its_quotes_and_dashes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = "hand\nA1: truco\nB1: quiero\nA1: “envido” – dije\n".encode("cp1252")
    code, out, _ = replay_cli(tmp_path, log, capsys)
    assert code == 0 and "«A1: “envido” – dije»" in out  # before: «A1: �envido� � dije»


ASIDE = b"hand\nA1: envido\nB1: quiero\nenvido aparte\nA1: truco\nB1: no quiero\nhand\n"


def test_an_envido_left_aside_is_said_to_be_waiting(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = replay_cli(tmp_path, ASIDE, capsys)
    # before: only «tanteador: A 1 — B 0», the envido's 2 points not mentioned
    assert code == 0 and out.splitlines()[2:] == [
        ("mano 1: los tantos del envido no se oyeron; falta decir quién lo ganó "
         "(«envido A» o «envido B»)"),
        "tanteador: A 1 — B 0; la partida sigue"]
    assert main(["replay", str(tmp_path / "mesa.log"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["set_aside"] == [{"hand": 1, "contest": "envido", "seats": ["A1", "B1"]}]
    code, out, _ = replay_cli(tmp_path, ASIDE + b"envido B\n", capsys)
    assert "no se oyeron" not in out and "tanteador: A 1 — B 2" in out
