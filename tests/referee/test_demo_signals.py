"""SIGTERM or SIGHUP while the demo says its script (before the scoreboard starts) ends it as
Ctrl+C does: its temporary folder is removed, and the process ends by the signal."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

# The demo with espeak-ng still saying the script when the signal comes.
SAID_WHEN_ENDED = """
import argparse, os, signal, sys, tempfile, time
tempfile.tempdir = sys.argv[1]
signal.signal(getattr(signal, sys.argv[3]), signal.SIG_DFL)  # as in a terminal, even under nohup
from referee.commands.demo import add_arguments, run
parser = argparse.ArgumentParser()
add_arguments(parser)
args = parser.parse_args(["--port", sys.argv[2], "--host", "127.0.0.1"])
def render(wav):
    wav.write_bytes(b"RIFF")
    os.kill(os.getpid(), getattr(signal, sys.argv[3]))
    time.sleep(10)
    return 1.0
sys.exit(run(args, render=render))
"""


def _free_port() -> int:
    for port in range(18700, 18800):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    pytest.skip("no free port in 18700-18799")


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_a_signal_while_the_script_is_said_leaves_no_folder_behind(tmp_path: Path,
                                                                    name: str) -> None:
    done = subprocess.run([sys.executable, "-c", SAID_WHEN_ENDED, str(tmp_path),
                           str(_free_port()), name],
                          check=False, capture_output=True, text=True, timeout=20)
    assert done.returncode == -getattr(signal, name), done.stderr
    assert list(tmp_path.iterdir()) == []
    assert f"truco-referee demo: terminado por la señal {name}" in done.stderr
