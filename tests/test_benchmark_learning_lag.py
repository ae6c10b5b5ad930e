"""The learning-lag benchmark: the listener fed in real time with no learning, with the learning in
its thread and in its own process, a row each."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import learning_lag


def test_the_listener_is_timed_while_the_voices_are_relearned_each_way(
        shared_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert learning_lag.main(["--play", "1", "--seconds", "0.5"]) == 2  # too little to learn from
    assert "could not learn from that play" in capsys.readouterr().err
    assert learning_lag.main(["--play", "6", "--seconds", "3"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split() for line in out.splitlines()
            if line.split()[:1] in (["none"], ["thread"], ["process"])}
    assert list(rows) == ["none", "thread", "process"], out
    for way, row in rows.items():
        p50, p95, late_max = float(row[1]), float(row[3]), float(row[5])
        assert 0 <= p50 <= p95 <= late_max, out
        assert (int(row[6]) == 0) == (way == "none"), out  # relearnings
    # the learning's CPU is the listener's process's only when it runs in its thread
    assert float(rows["thread"][7]) > 2 * float(rows["process"][7]), out
