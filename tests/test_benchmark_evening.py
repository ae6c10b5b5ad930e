"""The evening benchmark: minutes of table talk through the pieces `serve` runs, a row per
stretch, and the store it leaves opens as the scoreboard's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchmarks import evening


def test_a_few_minutes_at_the_table_are_heard_written_down_and_kept(
        shared_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert evening.main(["--hours", "0.05", "--every", "1", "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if line.strip().split(" ")[0].isdigit()]
    assert [int(row[0]) for row in rows] == [1, 2, 3]  # a row a minute of table time
    phrases, lines, heard = ([int(row[k]) for row in rows] for k in (4, 8, 9))
    assert all(n > 0 for n in phrases)
    assert lines == sorted(lines) and lines[-1] > 0 and heard == sorted(heard) and heard[-1] > 0
    assert all(0 <= float(row[5].rstrip("%")) <= 100 for row in rows)
    said = re.search(r"(\d+) calls and numbers said when the game took them, ([\d.]+)% written", out)
    assert said and int(said[1]) > 0 and float(said[2]) > 0  # the voice wrote calls down
    assert "from the first row to the last" in out

    from web_scoreboard.app import create_app

    service = create_app(data_dir=tmp_path).state.service  # the evening's game, rebuilt
    kept = [entry.line for entry in service.store.effective_log(service.game_id)]
    assert kept and list(service.table.lines) == kept
