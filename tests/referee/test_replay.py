"""`truco-referee replay` on the example logs, whose expected results are written in them."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from referee.cli import main
from referee.replay import replay

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.log"))


def expected(path: Path) -> dict:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# expect:"):
            return json.loads(line.split(":", 1)[1])
    raise AssertionError(f"{path.name} has no '# expect:' line")


def test_there_are_example_logs() -> None:
    assert len(EXAMPLES) >= 5


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_log_gives_its_written_result(path: Path) -> None:
    result = replay(path.read_text(encoding="utf-8").splitlines()).to_dict()
    want = expected(path)
    assert result["score"] == want["score"]
    assert result["winner"] == want["winner"]
    assert [r["line"] for r in result["rejected"]] == want["rejected"]


def test_replay_json_from_the_command_line() -> None:
    path = next(p for p in EXAMPLES if p.name == "dos-jugadores.log")
    out = subprocess.run([sys.executable, "-m", "referee.cli", "replay", str(path), "--json"],
                         capture_output=True, text=True, check=True).stdout
    data = json.loads(out)
    assert data["score"] == {"A": 9, "B": 4} and data["winner"] is None
    assert data["hands"][0]["envido"] == {"A": 5, "B": 0}
    assert data["hands"][0]["truco"] == {"A": 0, "B": 2}
    assert data["rejected"][0] == {"line": 24, "text": "A1: turco", "reason": "«turco» no es truco"}


def test_replay_human_summary(tmp_path: Path) -> None:
    log = tmp_path / "t.log"
    log.write_text("hand\nA1: truco\nB1: no quiero\nB1: embudo\n", encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "referee.cli", "replay", str(log)],
                         capture_output=True, text=True, check=True).stdout
    assert "tanteador: A 1 — B 0" in out and "«embudo» no es envido" in out


def test_replay_of_a_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "referee.cli", "replay", str(tmp_path / "nada.log")],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 1 and "no puedo abrir" in proc.stderr


def test_replay_of_a_latin1_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "viejo.log"
    log.write_bytes("# mesa de Peña\nhand\nA1: truco\nB1: no quiero\n".encode("latin-1"))
    assert main(["replay", str(log)]) == 0  # before: UnicodeDecodeError
    assert "tanteador: A 1 — B 0" in capsys.readouterr().out


def test_replay_reads_each_line_in_its_own_encoding(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """One line from an older editor (Latin-1) in a UTF-8 log: the others' «veintidós» stays."""
    log = ("# partida del sábado\n".encode("latin-1")
           + "hand\nA1: envido\nB1: quiero\nA1: veintidós\nB1: son buenas\n".encode())
    code, out, _ = replay_cli(tmp_path, log, capsys)
    assert code == 0 and "rechazada" not in out  # before: «veintidÃ³s» no es un canto
    assert "tanteador: A 2 — B 0" in out


def test_replay_drops_a_byte_order_mark_inside_the_log(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two logs pasted together: the second one's mark is not part of its first line."""
    code, out, _ = replay_cli(tmp_path, b"hand\n" + BOM + b"A1: truco\nB1: no quiero\n", capsys)
    assert code == 0 and "rechazada" not in out and "tanteador: A 1 — B 0" in out


def test_replay_of_a_match_says_the_chicos(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = replay_cli(tmp_path, b"set match on\nset points 15\nhand\npoints A +15\n",
                              capsys)
    assert code == 0 and out.splitlines()[-1] == (
        "tanteador: A 15 — B 0; chicos: A 1 — B 0; la partida sigue")
    _, out, _ = replay_cli(tmp_path, TRUCO_HAND.encode(), capsys)  # a single game: no chicos
    assert "chicos" not in out


def test_replay_refuses_a_number_typed_past_any_envido_or_with_a_minus(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = replay_cli(tmp_path, b"hand\nA1: envido\nB1: quiero\nA1: -1\nA1: 40\n", capsys)
    assert code == 0
    assert "«A1: -1» — «-1» no es un canto" in out  # before: a declaration of 1
    assert "40 no es un envido posible" in out  # as «treinta y nueve» is; before: «40» no es un canto


def test_replay_of_a_folder_is_a_clear_error(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(tmp_path)]) == 1
    assert "es una carpeta" in capsys.readouterr().err


def replay_cli(tmp_path: Path, data: bytes, capsys: pytest.CaptureFixture[str],
               name: str = "mesa.log") -> tuple[int, str, str]:
    """``truco-referee replay`` on a file with these bytes: exit code, stdout, stderr."""
    log = tmp_path / name
    log.write_bytes(data)
    code = main(["replay", str(log)])
    out, err = capsys.readouterr()
    return code, out, err


TRUCO_HAND = "hand\nA1: truco\nB1: quiero\nhand A\n"
BOM = b"\xef\xbb\xbf"


def test_replay_drops_a_byte_order_mark(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = replay_cli(tmp_path, BOM + TRUCO_HAND.encode(), capsys)
    assert code == 0 and "rechazada" not in out  # before: «\ufeffhand» refused, then all the rest
    assert "tanteador: A 2 — B 0" in out


def test_replay_drops_a_byte_order_mark_from_stdin(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(BOM + TRUCO_HAND.encode()), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    assert main(["replay", "-"]) == 0
    out = capsys.readouterr().out
    assert "rechazada" not in out and "tanteador: A 2 — B 0" in out


def test_replay_of_a_binary_file_is_a_clear_error(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = replay_cli(tmp_path, bytes(range(256)) * 4, capsys, name="bin.log")
    assert code == 1 and out == ""  # before: exit 0 and screens of rejected garbage
    assert err.strip() == f"{tmp_path / 'bin.log'} no parece un registro de texto"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_replay_of_a_utf16_log_says_to_save_it_as_utf8(tmp_path: Path, encoding: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = replay_cli(tmp_path, "# mesa de Peña\n".encode(encoding)
                                + TRUCO_HAND.encode(encoding), capsys)
    assert code == 1 and out == ""
    assert "mesa.log está en UTF-16: guardalo como UTF-8" in err


def test_a_rejection_names_its_line_once(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = replay_cli(tmp_path, b"A1: truco\nhand\nB1: embudo\nA1 plays 7o\n", capsys)
    assert code == 0
    # before: «línea 1 rechazada: «A1: truco» — A1: truco: todavía no se repartió…»
    assert "línea 1 rechazada: A1: truco: todavía no se repartió" in out
    # where the reason does not start with the line, the line is still quoted
    assert "línea 3 rechazada: «B1: embudo» — «embudo» no es envido" in out


@pytest.mark.parametrize(("log", "why"), [(b"", "el registro no tiene eventos"),
                                          (b"# nada\n\n", "el registro no tiene eventos"),
                                          (b"A1: truco\nblah\n", "se rechazaron todas")])
def test_a_log_that_applies_nothing_says_so(tmp_path: Path, log: bytes, why: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = replay_cli(tmp_path, log, capsys)
    assert code == 0 and err.strip() == f"No se aplicó ninguna línea: {why}."


def test_a_log_that_applies_something_has_no_notice(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = replay_cli(tmp_path, b"hand\nblah\n", capsys)
    assert code == 0 and err == ""
