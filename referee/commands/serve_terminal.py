"""What `serve` shows on the terminal: the banner with the page's address, its QR code and the
PIN, the start-up lines, each change as it is stored and the store's trouble."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

    from referee.startup_lines import Part

ORIGINS = {"voice": "voz", "camera": "cámara", "page": "tablet", "manual": "tablet", "confirm": "tablet"}


def event_line(action: str, line: str, origin: str, score: dict[str, int] | None) -> str:
    """One terminal line for a stored event (rich markup); the score is shown after the last
    event of a change (a swap stores an undo and the answer that replaces it: ``score`` None
    on the undo, whose score the change never showed)."""
    from rich.markup import escape

    verb = "deshecho: " if action == "undo" else ""
    who = ORIGINS.get(origin, origin)
    shown = "" if score is None else f" A {score.get('A', 0)} — B {score.get('B', 0)}"
    return f"[bold]{escape(verb + in_words(line))}[/bold]  [dim]({escape(who)}){shown}[/dim]"


def in_words(line: str) -> str:
    """A stored log line in the notation's Spanish words, as the table reads it: «mano», «A1
    juega 7o», «vuelta B», «puntos A +2» (the log keeps «hand», «A1 plays 7o»); a line of calls
    as it was said."""
    from engine.events import in_spanish
    from referee.logline import Spoken, parse_line

    try:
        event = parse_line(line)
    except ValueError:  # not the notation: shown as it is
        return line
    return line if event is None or isinstance(event, Spoken) else in_spanish(event)


def store_line(state: str, words: str) -> str:
    """The terminal's line when the store starts refusing changes («trouble») or takes them
    again («ok»): said once each (``TableService.on_store_state``)."""
    from rich.markup import escape

    return f"[{'bold red' if state == 'trouble' else 'green'}]{escape(words)}[/]"


class Terminal:
    """What ``serve`` shows on the terminal as it runs (rich markup): the start-up lines, each
    change as it is stored, and what the listener and the camera say."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def log(self, text: str) -> None:
        self.console.print(text)

    def stored(self, action: str, line: str, origin: str, score: dict[str, int] | None) -> None:
        """A stored event (``TableService.on_stored``)."""
        self.log(event_line(action, line, origin, score))

    def parts(self, parts: list[Part]) -> None:
        """The start-up lines: what runs and what does not, and why."""
        from referee.startup_lines import print_parts

        print_parts(parts, self.log)

    def ready(self, url: str) -> None:
        """The page is about to be served at ``url``."""
        self.log("  (Ctrl+C para terminar; la partida queda guardada)")

    def close(self) -> None:
        """Serving ended: show what is still to be shown."""


def print_banner(url: str, pin: str, game: dict[str, Any]) -> None:
    score = game.get("score") or {}
    print("truco-referee — árbitro y anotador de la mesa")
    print(f"  abrí en la tablet:  {url}")
    print(f"  PIN de la mesa:     {pin}")
    print(f"  partida #{game.get('game_id')}: {score.get('A', 0)} a {score.get('B', 0)}")
    _print_qr(url)
    sys.stdout.flush()


def _print_qr(url: str) -> None:
    try:
        import qrcode
    except ImportError:
        return
    qr = qrcode.QRCode(border=1)
    qr.add_data(url)
    try:
        qr.print_ascii(out=sys.stdout, invert=True)
    except (UnicodeEncodeError, OSError):
        pass
