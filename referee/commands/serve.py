"""Arranca el árbitro y el tanteador de la mesa: escucha los cantos, mira las cartas (con
--camera) y muestra los puntos en la tablet.

Abrí en la tablet la dirección que muestra; cualquiera puede mirar, y para cambiar algo hace falta
el PIN de la mesa.  La partida queda guardada en disco: si el programa se corta (aunque se
desenchufe) y se vuelve a arrancar, vuelve el mismo tanteador.  Sin micrófono, sin modelo o sin
cámara, el tanteador funciona igual, con sus botones.
"""

from __future__ import annotations

import argparse
import fcntl
import sqlite3
import sys
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from models.paths import user_data_dir
from referee.commands import values
from referee.commands.rules import rule_options
from referee.commands.serve_address import ServeError, bind, own_addresses, page_url
from referee.commands.serve_arguments import add_arguments
from referee.commands.serve_ending import Ending, Stopped, end_by
from referee.commands.serve_terminal import Terminal, print_banner, store_line
from web_scoreboard.store import DamagedGame, StoreError, said

if TYPE_CHECKING:
    import socket

    from fastapi import FastAPI
    from rich.console import Console

    from engine.settings import Settings
    from referee.startup_lines import Part
    from web_scoreboard.store import Store

# The command (``add_arguments``, ``run``) and what other modules take from it.
__all__ = ["ServeError", "add_arguments", "bind", "build", "page_url", "room_part", "run"]

LOCK_NAME = "serve.lock"


def lock_data_dir(data_dir: Path) -> IO[bytes]:
    """Keep the data folder for this server alone while the returned file is open.

    Two servers on one folder would interleave their logs.  The system lets go of the lock when
    the process ends, even when it is killed, so it is never left behind.
    """
    data_dir.mkdir(parents=True, exist_ok=True)
    handle = open(data_dir / LOCK_NAME, "ab")  # noqa: SIM115 - held open until the server stops
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise ServeError(f"la carpeta de datos {data_dir} ya la usa otro tanteador abierto; "
                         "cerralo, o elegí otra carpeta con --data-dir") from None
    return handle


def build(args: argparse.Namespace) -> tuple[FastAPI, Store]:
    """The scoreboard app on the store in the data folder, with the game to show.

    The game in progress is resumed, unless rule options were given that differ from its rules
    (or its stored rules cannot be read): then a new game starts with them.
    """
    from engine.settings import Settings
    from web_scoreboard.app import DB_NAME
    from web_scoreboard.store import Store

    data_dir: Path = args.data_dir or user_data_dir()
    wanted = rule_options(args)
    settings = Settings.from_dict(wanted)
    store = Store(data_dir / DB_NAME)
    try:
        app = _app(args, settings, store, wanted)
    except BaseException:
        store.close()
        raise
    service = app.state.service
    before = service.snapshot()
    current = before.get("settings") or {}
    if any(current.get(k) != v for k, v in wanted.items()):
        service.new_game(wanted)
        if before.get("log"):
            print(kept_game(before))
    return app, store


def _app(args: argparse.Namespace, settings: Settings, store: Store,
         wanted: dict[str, Any]) -> FastAPI:
    """The app on the game in progress; if its rules cannot be read, a new game with the rules
    given, or ``StoreError`` saying to give them."""
    from web_scoreboard.app import create_app

    def made() -> FastAPI:
        return create_app(settings, store, pin=args.pin, host_addresses=own_addresses(args))

    try:
        return made()
    except DamagedGame as err:
        if not wanted:
            raise StoreError(f"no puedo seguir la partida en curso: {err}. Arrancá dando las "
                             "reglas (por ejemplo --players 2 --points 30): empieza una nueva "
                             f"con ellas, y la #{err.game_id} queda entre las anteriores, para "
                             "bajarla o borrarla") from err
        store.forget_current_game()
        print(f"{err}. Empieza una nueva con las reglas pedidas; la #{err.game_id} quedó entre "
              "las anteriores, para bajarla o borrarla desde la tablet.")
        return made()


def room_part(data_dir: Path) -> Part:
    """The start-up line of the room left in the data folder: fine for ``room.FEW_HOURS`` of
    play or more, else a warning to make room before the disk fills in the middle of a game."""
    from referee.startup_lines import Part
    from web_scoreboard.room import FEW_HOURS, STORE_BYTES_PER_HOUR, room_words
    from web_scoreboard.store_trouble import free_room

    free = free_room(data_dir)
    if free is None:
        return Part("datos", True, str(data_dir))
    if free >= FEW_HOURS * STORE_BYTES_PER_HOUR:
        return Part("datos", True, room_words(data_dir, free))
    return Part("datos", False, f"{room_words(data_dir, free)}: liberá espacio (o borrá partidas "
                "viejas en Ajustes) antes de que se llene a mitad de una partida")


def kept_game(game: dict[str, Any]) -> str:
    """The notice that a game in progress was put aside for one with other rules, not lost."""
    score = game.get("score") or {}
    number = game.get("game_id")
    return (f"La partida #{number} (A {score.get('A', 0)} — B {score.get('B', 0)}) tiene otras "
            f"reglas: empieza una nueva con las pedidas. La #{number} quedó guardada: se sigue "
            "desde la tablet, en «Partidas anteriores».")


def run(args: argparse.Namespace, before_signal: Callable[[], None] | None = None) -> int:
    """Serve until Ctrl+C or a signal; ``before_signal`` is called, the store closed, before a
    signal ends the process (it ends it as the signal would: no ``finally`` runs after).
    ``args.terminal``, if set, makes what the terminal shows (``demo`` has its own; else
    ``Terminal``)."""
    me = f"truco-referee {getattr(args, 'command', 'serve')}"  # demo runs it too
    if args.exit_when_done and not args.wav:  # there is no recording to end
        print(f"{me}: --exit-when-done es con --wav: termina cuando se acaba la grabación",
              file=sys.stderr)
        return 2
    ending = Ending()
    try:
        with ending.installed():
            return _run(args, me, ending, getattr(args, "terminal", None) or Terminal)
    except Stopped as stop:  # the store is closed: now end as the signal ends a process
        return end_by(stop, me, before_signal)


def _run(args: argparse.Namespace, me: str, ending: Ending,
         terminal: Callable[[Console], Terminal]) -> int:
    data_dir = args.data_dir or user_data_dir()
    with ExitStack() as held:
        try:
            # the folder and the port first: a server that cannot start must not touch the store
            held.enter_context(lock_data_dir(data_dir))
            sock = held.enter_context(bind(args.host, args.port))
            app, store = build(args)
        except sqlite3.Error as err:  # the store opened, then failed as the game was read
            print(f"{me}: no puedo usar los tanteadores guardados en {data_dir}: {said(err)}",
                  file=sys.stderr)
            return 1
        except (ServeError, StoreError) as err:
            print(f"{me}: {err}", file=sys.stderr)
            return 1
        except ValueError as err:
            print(f"{me}: {err}", file=sys.stderr)
            return 2
        except OSError as err:
            print(f"{me}: no se puede usar la carpeta de datos "
                  f"{data_dir}: {values.said(err)}; elegí otra con --data-dir",
                  file=sys.stderr)
            return 1
        held.callback(store.close)
        return _serve(args, app, sock, ending, terminal)


def _serve(args: argparse.Namespace, app: FastAPI, sock: socket.socket, ending: Ending,
           terminal: Callable[[Console], Terminal]) -> int:
    from rich.console import Console

    shown = terminal(Console(highlight=False, soft_wrap=True))
    try:
        return _serve_on(args, app, sock, ending, shown)
    finally:
        shown.close()


def _serve_on(args: argparse.Namespace, app: FastAPI, sock: socket.socket, ending: Ending,
              terminal: Terminal) -> int:
    import uvicorn
    from rich.markup import escape

    from referee.startup import start_camera, start_listening
    from web_scoreboard.room import RoomWatch

    log = terminal.log
    service = app.state.service
    url = page_url(args.host, args.port)
    print_banner(url, app.state.guard.pin, service.snapshot())
    config = uvicorn.Config(app, host=args.host, port=args.port, log_level="warning",
                            ws_max_size=64 * 1024, ws_ping_interval=20, ws_ping_timeout=20)
    server = uvicorn.Server(config)

    def stop() -> None:
        server.should_exit = True

    service.on_stored = terminal.stored
    service.on_store_state = lambda state, words: log(store_line(state, words))
    on_end = stop if args.exit_when_done else None
    listening = start_listening(args, service, log, on_end)
    data_dir: Path = args.data_dir or user_data_dir()
    terminal.parts([room_part(data_dir), *listening, *start_camera(args, service, log)])
    RoomWatch(data_dir, service.set_room, lambda line: log(escape(line))).start()
    if on_end is not None and not all(part.running for part in listening):
        log("  la grabación no se puede escuchar: termino (--exit-when-done)")
        return 1
    terminal.ready(url)
    ending.server = server
    try:
        server.run(sockets=[sock])
    finally:
        ending.server = None
    if ending.signum:
        raise Stopped(ending.signum)
    return 0
