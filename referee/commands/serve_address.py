"""Where `serve` is found: the page's listening socket, bound before anything is written, and
the address a tablet opens."""

from __future__ import annotations

import argparse
import errno
import socket

from referee.commands import values


class ServeError(Exception):
    """Why serve cannot start, in words for the person who started it."""


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
