"""`truco-referee replay` on the example logs, whose expected results are written in them."""

from __future__ import annotations

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


def test_replay_of_a_folder_is_a_clear_error(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(tmp_path)]) == 1
    assert "es una carpeta" in capsys.readouterr().err
