"""The demo's recording starts once a page is open on the scoreboard (or after a while with
none, or at once with --exit-when-done), so that whoever opens it sees the first hand."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

from rich.console import Console

from referee.commands.demo import add_arguments, serve_arguments
from referee.demo import WAIT_FOR_PAGE_S
from referee.startup import after_a_page, when_played
from web_scoreboard.hub import Hub


class Clock:
    """A clock that moves only when slept on."""

    def __init__(self) -> None:
        self.now = 0.0
        self.slept = 0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        self.slept += 1


async def _send(text: str) -> None:  # pragma: no cover - nothing is sent in these tests
    pass


def test_the_recording_waits_for_a_page_to_open() -> None:
    clock, said = Clock(), []
    pages = iter([0, 0, 0, 1, 1])
    played = after_a_page(iter(["chunk 1", "chunk 2"]), lambda: next(pages), 60, said.append,
                          clock=clock, sleep=clock.sleep)
    assert next(played) == "chunk 1"
    assert clock.slept == 3 and said == ["  Página abierta: empieza la partida."]
    assert list(played) == ["chunk 2"]


def test_with_no_page_the_recording_starts_after_the_wait() -> None:
    clock, said = Clock(), []
    played = list(after_a_page(iter(["chunk"]), lambda: 0, 60, said.append, clock=clock,
                               sleep=clock.sleep))
    assert played == ["chunk"] and 60 <= clock.now < 61
    assert said == ["  Nadie abrió la página en 60 s: la partida empieza igual."]


def test_a_page_open_on_the_scoreboard_s_hub_starts_it() -> None:
    class Service:
        hub = Hub()

    Service.hub.subscribe(_send, 0, "{}")
    said: list[str] = []
    args = argparse.Namespace(wav="partida.wav", wait_for_page=60.0)
    assert list(when_played(args, Service(), iter(["chunk"]), said.append)) == ["chunk"]
    assert said == ["  Página abierta: empieza la partida."]


def test_serve_s_own_recordings_and_microphones_never_wait() -> None:
    source = iter(["chunk"])
    assert when_played(argparse.Namespace(wav="partida.wav"), object(), source, print) is source
    assert when_played(argparse.Namespace(wav=None, wait_for_page=60.0), object(), source,
                       print) is source


def _demo(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(list(argv))


def test_the_demo_waits_for_the_page_unless_it_runs_unattended(tmp_path: Path) -> None:
    waits = serve_arguments(_demo(), tmp_path / "partida.wav", tmp_path, None, None)
    assert waits.wait_for_page == WAIT_FOR_PAGE_S == 60
    unattended = serve_arguments(_demo("--exit-when-done"), tmp_path / "partida.wav", tmp_path,
                                 None, None)
    assert unattended.wait_for_page == 0 and unattended.exit_when_done
    console = Console(file=io.StringIO())
    terminals = [made.terminal(console) for made in (waits, unattended)]
    for terminal in terminals:
        terminal.close()
    assert [terminal.wait_s for terminal in terminals] == [60, 0]
