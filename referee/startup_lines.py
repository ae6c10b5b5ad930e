"""The start-up screen's lines: each part of the referee, whether it runs and why, on the terminal
and on the pages, and how a microphone or a camera keeps telling both how it is doing."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.markup import escape

from referee.device_status import said_once as device_said_once

Log = Callable[[str], None]


@dataclass(frozen=True)
class Part:
    """One part of the referee as the start-up screen shows it."""

    name: str
    running: bool
    detail: str


def said_once(log: Log, who: str) -> Callable[[str], None]:
    """A status callback that logs a message only when it differs from the last one
    (``device_status.said_once``)."""
    return device_said_once(lambda message: log(f"{who}: {escape(message)}"))


Show = Callable[[str, str], None]


def shown(service: Any, key: str) -> Show:
    """How a part of the referee tells the pages its state and why (``TableService.set_source``:
    "ok", "poor", "trouble" or "off"); a service that shows none (a test's) is told nothing."""
    set_source = getattr(service, "set_source", None)

    def show(state: str, message: str) -> None:
        if set_source is not None:
            set_source(key, state, message)

    return show


def show_part(show: Show, part: Part) -> Part:
    """Show a part's start-up line on the pages too: fine if it runs, in trouble if not."""
    show("ok" if part.running else "trouble", part.detail)
    return part


def source_status(service: Any, key: str, terminal: Callable[[str], None]) -> Callable[[str], None]:
    """A microphone's or a camera's ``on_status``: each message on the terminal (``terminal``) and
    on the pages, in trouble while it looks for its device again, poor while it hears through a
    narrow line (``device_status.shown_state``), else fine («escuchando», «la cámara 0 ya manda
    imágenes»)."""
    from referee.device_status import shown_state

    show = shown(service, key)

    def status(message: str) -> None:
        terminal(message)
        show(shown_state(message), message)

    return status


def print_parts(parts: list[Part], log: Log) -> None:
    for part in parts:
        mark = "[green]✓[/green]" if part.running else "[yellow]✗[/yellow]"
        log(f"  {mark} {part.name + ':':<13} {escape(part.detail)}")


# The options that only do something with a microphone, or with a camera, by argparse's name.
LISTENING_ONLY = {"learn": "--learn"}
CAMERA_ONLY = {"seat_region": "--seat-region", "learn_deck": "--learn-deck"}


def unused(args: argparse.Namespace, without: str, options: dict[str, str]) -> str:
    """The start-up line's note of the ``options`` given that do nothing ``without`` their part
    («; sin cámara, --seat-region no se usa»), or nothing."""
    given = [option for name, option in options.items() if getattr(args, name, None)]
    if not given:
        return ""
    return f"; {without}, {' y '.join(given)} no se usa{'n' if len(given) > 1 else ''}"
