"""One program at the table: `serve` with a recorded game, the page in Chromium, the demo heard
with nobody at the tablet, and `serve` on a machine with no microphone, no camera and no
downloaded model."""

from __future__ import annotations

import csv
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from referee.demo import DEMO_LOG, DEMO_SCRIPT, join_wavs
from referee.replay import replay

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
PIN = "2468"
# The recorded game is said by one of the corpus's synthetic voices.
VOICE = {"voice": "mbrola:es1", "speed": "slow", "pitch": "high"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Serve:
    """``truco-referee serve`` in a child process, as a person starts it."""

    def __init__(self, *options: str, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        command = [sys.executable, "-m", "referee.cli", "serve", "--port", str(self.port),
                   "--pin", PIN, *options]
        self.proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
                                     text=True)
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        self.api = httpx.Client(base_url=self.url, timeout=5, headers={"X-Table-PIN": PIN})
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, f"serve exited:\n{self.printed()}"
            try:
                if self.api.get("/api/state").status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.1)
        raise AssertionError("serve did not answer within 30 s")

    def state(self) -> dict[str, Any]:
        return dict(self.api.get("/api/state").json())

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)

    def printed(self) -> str:
        return "".join(self.lines)

    def wait_printed(self, text: str, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while text not in self.printed() and time.monotonic() < deadline:
            time.sleep(0.2)
        return self.printed()

    def stop(self) -> str:
        """Stops it and returns what it printed, also printed here: pytest shows it for a test
        that failed (what was heard, and how the microphones were placed)."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.api.close()
        print(f"--- serve {self.url} printed:\n{self.printed()}--- end of serve")
        return self.printed()


def corpus_game(shared: Path, out: Path) -> None:
    """The demo's script said by one corpus voice, one utterance after another."""
    with (shared / "speech" / "manifest.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    files = []
    for text in DEMO_SCRIPT:
        match = [r for r in rows if r["text"] == text and all(r[k] == v for k, v in VOICE.items())]
        assert match, f"the corpus has no {text!r} in {VOICE}"
        files.append(shared / "speech" / match[0]["file"])
    join_wavs(files, out, gap_s=1.0)


@pytest.fixture
def page() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip("needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="needs playwright for Python")
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        yield page
        browser.close()


def test_a_recorded_game_scores_on_the_page_as_the_same_game_replayed(
        shared_dir: Path, tmp_path: Path, page: Any) -> None:
    wav = tmp_path / "partida.wav"
    corpus_game(shared_dir, wav)
    serve = Serve("--wav", str(wav), "--data-dir", str(tmp_path / "data"), "--recognizer",
                  "sphinx", "--models-dir", str(shared_dir / "models"), "--points", "15")
    try:
        page.goto(serve.url + "/")
        page.wait_for_selector("#conn.on")
        # A person at the tablet confirms each call the referee took back as doubtful, as it
        # shows up (the recording goes on in real time meanwhile).
        deadline = time.monotonic() + 120
        while "la grabación terminó" not in serve.printed() and time.monotonic() < deadline:
            doubtful = page.locator("button[data-confirm]")
            if doubtful.count():
                doubtful.first.click()
            page.wait_for_timeout(150)
        expected = replay(DEMO_LOG.splitlines()).to_dict()
        want = expected["score"]
        page.wait_for_function(
            f"window.scoreboard.snapshot.score.A === {want['A']} && "
            f"window.scoreboard.snapshot.score.B === {want['B']}", timeout=10_000)
        assert page.locator('[data-score="A"]').inner_text().strip() == str(want["A"])
        assert page.locator('[data-score="B"]').inner_text().strip() == str(want["B"])
        assert serve.state()["winner"] == expected["winner"] == "A"
        heard = serve.state()["heard"]
        assert any(h["status"] == "rejected" and "turco" in (h["reason"] or "") for h in heard)
        page.screenshot(path=str(ARTIFACTS / "serve-recorded-game.png"))
    finally:
        output = serve.stop()
    assert "la grabación terminó" in output


@pytest.mark.shared
def test_the_demo_scores_as_its_script_with_nobody_at_the_tablet(shared_dir: Path,
                                                                  tmp_path: Path) -> None:
    """`truco-referee demo` said by espeak-ng, heard by the Spanish model calibrated to that voice
    and nobody confirming anything: its last line says it ended as its script gives."""
    if not shutil.which("espeak-ng"):
        pytest.fail("espeak-ng is not installed (scripts/setup.sh installs it)")
    command = [sys.executable, "-m", "referee.cli", "demo", "--exit-when-done",
               "--port", str(free_port()), "--data-dir", str(tmp_path / "data"),
               "--model", str(shared_dir / "models" / "cmusphinx-es-5.2-ptm")]
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONUNBUFFERED": "1"})
    score = replay(DEMO_LOG.splitlines()).to_dict()["score"]
    ended = f"la grabación terminó: {score['A']} a {score['B']}, como da el guion"
    assert ended in done.stdout + done.stderr, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.returncode == 0


def test_serve_with_nothing_attached_says_what_is_missing_and_keeps_score(tmp_path: Path) -> None:
    from referee.microphone import list_devices

    if list_devices():
        pytest.skip("this machine has a microphone; the test is for one without")
    empty_models = tmp_path / "models"
    empty_models.mkdir()
    serve = Serve("--data-dir", str(tmp_path / "data"),
                  env={"TRUCO_REFEREE_MODELS": str(empty_models)})
    try:
        for line in ("hand", "A1: truco", "B1: quiero", "hand A"):
            assert serve.api.post("/api/events", json={"line": line}).status_code == 200
        assert serve.state()["score"] == {"A": 2, "B": 0}
        printed = serve.wait_printed("cámara", timeout=10)
    finally:
        serve.stop()
    assert "modo de baja precisión" in printed and "models fetch" in printed
    assert "✗ micrófono" in printed and "no hay ninguno conectado" in printed
    assert "✗ cámara" in printed
