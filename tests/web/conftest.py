"""Scoreboard fixtures: an app on a fresh store with the real Table, and a client that knows the PIN."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from engine import Settings
from web_scoreboard import create_app
from web_scoreboard.access import RateLimit
from web_scoreboard.store import Store

PIN = "2468"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    store = Store(tmp_path / "scoreboard.sqlite3")
    yield store
    store.close()


@pytest.fixture
def make_app(store: Store) -> Callable[..., FastAPI]:
    def make(settings: Settings | None = None, **options: Any) -> FastAPI:
        options.setdefault("pin", PIN)
        options.setdefault("rate_limit", RateLimit(per_second=1000, burst=1000))
        return create_app(settings or Settings(), store, **options)

    return make


@pytest.fixture
def app(make_app: Callable[..., FastAPI]) -> FastAPI:
    return make_app()


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as client:
        yield client


@pytest.fixture
def post() -> Callable[..., httpx.Response]:
    """POST one log line the way the page does: ``post(client, "A1: truco")``."""

    def post_line(client: TestClient, line: str, pin: str | None = PIN) -> httpx.Response:
        headers = {"X-Table-PIN": pin} if pin is not None else {}
        response: httpx.Response = client.post("/api/events", json={"line": line},
                                               headers=headers)
        return response

    return post_line


@pytest.fixture
def example() -> Callable[[str], tuple[list[tuple[int, str]], dict[str, Any]]]:
    """An example log's event lines with their line numbers, and its ``# expect:`` result."""

    def read(name: str) -> tuple[list[tuple[int, str]], dict[str, Any]]:
        lines, expect = [], {}
        for number, text in enumerate((REPO / "examples" / name).read_text().splitlines(), 1):
            if text.startswith("# expect:"):
                expect = json.loads(text.split(":", 1)[1])
            line = text.split("#", 1)[0].strip()
            if line:
                lines.append((number, line))
        return lines, expect

    return read


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServeProcess:
    """``truco-referee serve --no-mic`` in a child process, as a person would start it."""

    def __init__(self, data_dir: Path, port: int) -> None:
        self.data_dir, self.port = data_dir, port
        self.url = f"http://127.0.0.1:{port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> httpx.Client:
        command = [sys.executable, "-m", "referee.cli", "serve", "--no-mic", "--port",
                   str(self.port), "--data-dir", str(self.data_dir), "--pin", PIN]
        self.proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        client = httpx.Client(base_url=self.url, timeout=5)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                output = self.proc.stdout.read().decode() if self.proc.stdout else ""
                raise AssertionError(f"serve exited with {self.proc.returncode}:\n{output}")
            try:
                if client.get("/api/state").status_code == 200:
                    return client
            except httpx.TransportError:
                time.sleep(0.05)
        raise AssertionError("serve did not answer within 20 s")

    def kill9(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        assert self.proc.returncode == -signal.SIGKILL

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[ServeProcess]:
    """``truco-referee serve --no-mic`` on a free port with a fresh data folder (not started)."""
    server = ServeProcess(tmp_path / "data", free_port())
    yield server
    server.stop()
