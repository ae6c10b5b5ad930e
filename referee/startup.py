"""What runs at the table and what does not, and why: the listener and the camera for `serve`.

Nothing missing stops the scoreboard: without a microphone, a model or a camera it runs with its
manual controls, and the start-up screen says what is missing and how to get it.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from referee.audio_sources import audio_source
from referee.recognizer_choice import load_recognizer, recognizer_part
from referee.startup_lines import (
    CAMERA_ONLY,
    LISTENING_ONLY,
    Log,
    Part,
    show_part,
    shown,
    unused,
)
from referee.table_listening import line_statuses, listen

if TYPE_CHECKING:
    from referee.audio import AudioChunk

# What `serve` starts, and what `listen` takes from here (``line_statuses``, ``load_recognizer``).
__all__ = ["after_a_page", "line_statuses", "load_recognizer", "start_camera", "start_listening",
           "when_played"]


def start_listening(args: argparse.Namespace, service: Any, log: Log,
                    on_end: Callable[[], None] | None = None) -> list[Part]:
    """Start the listener in the background if it can run; say what runs and what does not.

    ``on_end`` is called when a recording (``--wav``) has been heard to its end.
    """
    if args.no_mic and not args.wav:  # not asked for: the pages show no microphone
        return [Part("escucha", False, "apagada (--no-mic): se anota con los botones"
                     + unused(args, "sin micrófono", LISTENING_ONLY))]
    from referee.asr.base import RecognizerError

    show = shown(service, "mic")
    try:
        choice, recognizer = load_recognizer(args)
    except RecognizerError as err:
        return [show_part(show, Part("reconocedor", False,
                                     f"{err.message}; se anota con los botones"))]
    parts = [recognizer_part(choice, recognizer)]
    source, audio_part = audio_source(args, log, service)
    parts.append(audio_part)
    if source is None or args.wav:  # a microphone says how it is once it is listened to
        show_part(show, audio_part)
    if source is not None:
        source = when_played(args, service, source, log)
        parts += listen(args, service, recognizer, source, log, on_end)
    return parts


PAGE_POLL_S = 0.2


def when_played(args: argparse.Namespace, service: Any, source: Any, log: Log) -> Any:
    """The source, a recording held until a page is open if ``wait_for_page`` says so (only
    ``demo`` sets it: seconds to wait at most; see ``after_a_page``)."""
    wait_s = getattr(args, "wait_for_page", 0.0)
    if not args.wav or wait_s <= 0:
        return source
    return after_a_page(source, open_pages(service), wait_s, log)


def open_pages(service: Any) -> Callable[[], int]:
    """How many pages the scoreboard has open (its hub's WebSocket clients; none without one)."""
    hub = getattr(service, "hub", None)
    return lambda: hub.size if hub is not None else 0


def after_a_page(source: Iterable[AudioChunk], pages: Callable[[], int], wait_s: float,
                 log: Log, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> Iterator[AudioChunk]:
    """A recording played once a page is open on the scoreboard, or after ``wait_s`` seconds
    with none (the demo: whoever opens the page sees the game from its first call)."""
    end = clock() + wait_s
    while not pages() and clock() < end:
        sleep(PAGE_POLL_S)
    log("  Página abierta: empieza la partida." if pages() else
        f"  Nadie abrió la página en {wait_s:.0f} s: la partida empieza igual.")
    yield from source


def start_camera(args: argparse.Namespace, service: Any, log: Log) -> list[Part]:
    """Start the camera watcher if asked for and possible; say what runs and why not."""
    if args.camera is None:
        return [Part("cámara", False, "sin cámara (--camera N para usar una)"
                     + unused(args, "sin cámara", CAMERA_ONLY))]
    from referee.camera_startup import start_table_camera

    return [start_table_camera(args, service, log)]
