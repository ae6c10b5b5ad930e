"""Arranca el árbitro y el tanteador de la mesa: escucha los cantos, mira las cartas (con
--camera) y muestra los puntos en la tablet.

Abrí en la tablet la dirección que muestra; cualquiera puede mirar, y para cambiar algo hace falta
el PIN de la mesa.  La partida queda guardada en disco: si el programa se corta (aunque se
desenchufe) y se vuelve a arrancar, vuelve el mismo tanteador.  Sin micrófono, sin modelo o sin
cámara, el tanteador funciona igual, con sus botones.
"""

from __future__ import annotations

import argparse
import errno
import fcntl
import signal
import socket
import sqlite3
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from types import FrameType
from typing import IO, TYPE_CHECKING, Any

from models.paths import user_data_dir
from referee.commands import values
from referee.commands.rules import add_rule_arguments, rule_options
from web_scoreboard.store import DamagedGame, StoreError, said

if TYPE_CHECKING:
    import uvicorn
    from fastapi import FastAPI
    from rich.console import Console

    from engine.settings import Settings
    from referee.startup import Part
    from web_scoreboard.store import Store

LOCK_NAME = "serve.lock"


class ServeError(Exception):
    """Why serve cannot start, in words for the person who started it."""


class Stopped(BaseException):
    """The system asked serve to end (SIGTERM: systemd, a shutdown; SIGHUP: its terminal
    closed)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class Ending:
    """Ends serve on SIGTERM or SIGHUP as Ctrl+C does: the page's server stops first (uvicorn
    takes SIGTERM itself while it runs, and sends it on once it stopped), then ``Stopped``
    unwinds the program, so that the store is closed (its ``-wal`` copied into the file) before
    the process ends by the signal."""

    def __init__(self) -> None:
        self.server: uvicorn.Server | None = None
        self.signum = 0

    def __call__(self, signum: int, _: FrameType | None) -> None:
        if self.server is not None and not self.server.should_exit:
            self.server.should_exit = True  # it ends its connections, then _serve raises
            self.signum = signum
            return
        raise Stopped(signum)

    @contextmanager
    def installed(self) -> Iterator[None]:
        """Handle the signals that would end the process with the store open (an ignored one,
        as under ``nohup``, stays ignored)."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        kept = {sig: signal.signal(sig, self) for sig in ENDING_SIGNALS
                if signal.getsignal(sig) is signal.SIG_DFL}
        try:
            yield
        finally:
            for sig, handler in kept.items():
                signal.signal(sig, handler)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from referee.startup import add_camera_arguments, add_listening_arguments

    add_listening_arguments(parser)
    add_camera_arguments(parser)
    parser.add_argument("--port", type=values.port, default=8080, metavar="PUERTO",
                        help="puerto de la página (por defecto 8080)")
    parser.add_argument("--host", type=listen_host, default="0.0.0.0", metavar="DIRECCIÓN",
                        help="dirección donde escuchar (por defecto toda la red local)")
    parser.add_argument("--pin", type=values.pin, metavar="PIN",
                        help="PIN de la mesa, de 4 a 8 cifras (si no, se inventa uno la primera "
                        "vez y se guarda)")
    parser.add_argument("--data-dir", type=data_folder, default=None, metavar="CARPETA",
                        help=f"carpeta de la base de datos (por defecto {user_data_dir()})")
    add_rule_arguments(parser, "reglas de una partida nueva (si difieren de la partida en "
                       "curso, empieza una nueva; las que no des quedan como en ella)")


def listen_host(text: str) -> str:
    """A ``--host``: a name or an address, an IPv6 one with or without the brackets of a URL."""
    host = text.strip()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not host:
        raise argparse.ArgumentTypeError("falta la dirección; sin --host se escucha en toda la "
                                         "red local")
    return host


def data_folder(text: str) -> Path:
    """A ``--data-dir``: an empty one (``--data-dir "$CARPETA"`` with nothing in it) would be the
    folder the command runs in."""
    if not text.strip():
        raise argparse.ArgumentTypeError("falta la carpeta (vacía sería la carpeta donde "
                                         "estás); para la de siempre, no des --data-dir")
    return Path(text)


ORIGINS = {"voice": "voz", "camera": "cámara", "page": "tablet", "manual": "tablet", "confirm": "tablet"}


def event_line(action: str, line: str, origin: str, score: dict[str, int] | None) -> str:
    """One terminal line for a stored event (rich markup); the score is shown after the last
    event of a change (a swap stores an undo and the answer that replaces it: ``score`` None
    on the undo, whose score the change never showed)."""
    from rich.markup import escape

    verb = "deshecho: " if action == "undo" else ""
    who = ORIGINS.get(origin, origin)
    shown = "" if score is None else f" A {score.get('A', 0)} — B {score.get('B', 0)}"
    return f"[bold]{escape(verb + line)}[/bold]  [dim]({escape(who)}){shown}[/dim]"


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
        from referee.startup import print_parts

        print_parts(parts, self.log)

    def ready(self, url: str) -> None:
        """The page is about to be served at ``url``."""
        self.log("  (Ctrl+C para terminar; la partida queda guardada)")

    def close(self) -> None:
        """Serving ended: show what is still to be shown."""


def demo_arguments(**values: Any) -> argparse.Namespace:
    """The options of ``serve`` with their defaults, some of them set (for ``demo``)."""
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args([])
    for name, value in values.items():
        setattr(args, name, value)
    return args


def lan_address() -> str:
    """This machine's address on the local network (no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
            return str(probe.getsockname()[0])
        except OSError:
            return "127.0.0.1"


def shown_host(host: str) -> str:
    """The address to tell a tablet to open for a server bound to ``host`` (every interface: this
    machine's address on the local network)."""
    return lan_address() if host in ("0.0.0.0", "::") else str(host)


def page_url(host: str, port: int) -> str:
    """The page's address for a tablet, an IPv6 address in brackets as URLs want it."""
    shown = shown_host(host)
    return f"http://{f'[{shown}]' if ':' in shown else shown}:{port}/"


def own_addresses(args: argparse.Namespace) -> frozenset[str]:
    """Where a page opened on this machine itself comes from: it may read the PIN."""
    from web_scoreboard.routes import LOOPBACK

    return LOOPBACK | {shown_host(args.host)}


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


# Why a port cannot be opened, by errno, and what to do about it.
BIND_ERRORS: dict[int, str] = {
    errno.EADDRINUSE: "ya lo usa otro programa; elegí otro con --port",
    errno.EACCES: "hace falta ser administrador para un puerto menor que 1024; elegí otro con --port",
    errno.EADDRNOTAVAIL: "esta máquina no tiene esa dirección; fijate --host",
    errno.EINVAL: "no es una dirección donde se pueda escuchar (una IPv6 fe80:: lleva su "
                  "interfaz, como fe80::1%eth0); fijate --host",
    errno.EAFNOSUPPORT: "esta máquina no tiene IPv6; fijate --host",
}


def bind(host: str, port: int) -> socket.socket:
    """The page's listening socket, bound before anything is written."""
    try:  # a machine without IPv6 refuses the socket itself
        sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET,
                             socket.SOCK_STREAM)
    except OSError as err:
        raise ServeError(f"no se puede escuchar en {host}: {values.said(err, BIND_ERRORS)}"
                         ) from None
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except socket.gaierror:
        sock.close()
        raise ServeError(f"no conozco la dirección {host}; fijate --host") from None
    except OSError as err:
        sock.close()
        raise ServeError(f"no se puede abrir el puerto {port} en {host}: "
                         f"{values.said(err, BIND_ERRORS)}") from None
    return sock


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
    from referee.startup import Part
    from web_scoreboard.room import FEW_HOURS, STORE_BYTES_PER_HOUR, room_words
    from web_scoreboard.store_trouble import free_room

    free = free_room(data_dir)
    if free is None:
        return Part("datos", True, str(data_dir))
    if free >= FEW_HOURS * STORE_BYTES_PER_HOUR:
        return Part("datos", True, room_words(data_dir, free))
    return Part("datos", False, f"{room_words(data_dir, free)}: liberá espacio (o borrá partidas "
                "viejas en Ajustes) antes de que se llene a mitad de una partida")


def store_line(state: str, words: str) -> str:
    """The terminal's line when the store starts refusing changes («trouble») or takes them
    again («ok»): said once each (``TableService.on_store_state``)."""
    from rich.markup import escape

    return f"[{'bold red' if state == 'trouble' else 'green'}]{escape(words)}[/]"


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
        print(f"{me}: terminado por la señal {signal.Signals(stop.signum).name}", file=sys.stderr,
              flush=True)
        sys.stdout.flush()
        if before_signal is not None:
            before_signal()
        signal.signal(stop.signum, signal.SIG_DFL)
        signal.raise_signal(stop.signum)
        return 128 + stop.signum  # not reached


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
