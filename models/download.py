"""Download one file over HTTP: a partial one resumed (HTTP Range), progress told as it comes,
and a failure told in words (``FetchError``)."""

from __future__ import annotations

import http.client
import re
import socket
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

# How long to wait for a server to take the connection: a network that drops what it is sent
# (no internet behind the wifi, a firewall) is told in this long, not in the ``timeout`` that a
# slow server gets to answer and to send each part.
CONNECT_TIMEOUT_S = 10.0

# A download cut on the way: what arrived is kept, and the next fetch goes on from it (the
# caller, which knows the command, says how).
CUT = ("truncated", "interrupted")

Progress = Callable[[int, int | None], None]
Tell = Callable[[str], None]  # a note for the person while the fetch goes on
CHUNK = 1 << 16


class FetchError(RuntimeError):
    """A download failed; ``code`` is stable, ``message`` says what to do."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def download(url: str, dest: Path, progress: Progress | None = None, timeout: float = 30.0,
             tell: Tell | None = None) -> int:
    """Fetch ``url`` into ``dest``, resuming a partial file; return the final size in bytes.

    A cut keeps what arrived (the next run resumes it; its codes are ``CUT``); disk errors are
    left to the caller.  A resumed answer that does not go on from where ``dest`` ends is not
    appended: ``dest`` starts over, and ``tell`` says so."""
    have = dest.stat().st_size if dest.exists() else 0
    response = _open(url, have, timeout)
    if response is None:
        return have  # the server has nothing past what we have: already complete
    resumed = have > 0 and response.status == 206
    if resumed and _range_start(response) != have:
        response.close()
        dest.write_bytes(b"")
        if tell:
            tell(f"el servidor no siguió desde el byte {have}, donde había quedado la descarga: "
                 "la empiezo de cero")
        return download(url, dest, progress, timeout, tell)
    with response:
        done = have if resumed else 0
        length = response.headers.get("Content-Length")
        total = done + int(length) if length is not None else None
        with dest.open("ab" if resumed else "wb") as fh:
            done = _copy(response, fh, done, total, progress)
    if total is not None and done != total:
        raise FetchError("truncated", f"llegaron {done} de {total} bytes")
    return done


def _range_start(response: http.client.HTTPResponse) -> int | None:
    """Where a partial answer's body starts (``Content-Range: bytes 500-999/1000``), or None when
    it does not say, or says a span its length does not fill."""
    found = re.fullmatch(r"\s*bytes\s+(\d+)-(\d+)/(\d+|\*)\s*",
                         response.headers.get("Content-Range") or "")
    if not found:
        return None
    start, end = int(found.group(1)), int(found.group(2))
    length = response.headers.get("Content-Length")
    if length is not None and length.strip().isdigit() and int(length) != end - start + 1:
        return None
    return start


def _copy(response: http.client.HTTPResponse, fh: BinaryIO, done: int, total: int | None,
          progress: Progress | None) -> int:
    """Write the response's body after ``done`` bytes; a cut keeps what arrived and says so.
    ``read1`` hands over what came without waiting for a whole block (progress, Ctrl-C).  Any
    error reading is the network's (a TLS connection cut short is an ``ssl.SSLError``, not a
    ``ConnectionError``); one writing is the disk's, and is left to the caller."""
    while True:
        try:
            block = response.read1(CHUNK)
        except (OSError, http.client.HTTPException) as err:
            raise FetchError("interrupted",
                             f"se cortó la descarga en {done} bytes ({brief(err)})") from err
        if not block:
            return done
        fh.write(block)
        done += len(block)
        if progress:
            progress(done, total)


def _open(url: str, have: int, timeout: float) -> http.client.HTTPResponse | None:
    """The server's answer for what is past ``have`` bytes; None when there is nothing more."""
    request = urllib.request.Request(url, headers={"User-Agent": "truco-referee"})
    if have:
        request.add_header("Range", f"bytes={have}-")
    host = urllib.parse.urlsplit(url).netloc
    opener = urllib.request.build_opener(_HTTPHandler(), _HTTPSHandler())
    try:
        response: http.client.HTTPResponse = opener.open(request, timeout=timeout)
    except urllib.error.HTTPError as err:
        if err.code == 416 and have:
            return None
        raise FetchError("http-error", f"el servidor respondió {err.code} para {url}") from err
    except (TimeoutError, urllib.error.URLError, ConnectionError) as err:
        raise FetchError(
            "offline",
            f"no pude conectarme a {host} ({_unreachable(err)}); "
            "revisá la conexión a internet y volvé a probar: lo ya bajado se retoma",
        ) from err
    except http.client.HTTPException as err:
        raise FetchError(
            "bad-reply",
            f"{host} contestó algo que no es una respuesta web ({brief(err)}); "
            "probá de nuevo en un rato: lo ya bajado se retoma",
        ) from err
    return response


class _QuickToConnect:
    """An HTTP connection made within ``CONNECT_TIMEOUT_S`` (or its ``timeout``, if shorter)
    that then waits its ``timeout`` for each part of the answer."""

    timeout: float | None
    sock: socket.socket

    def connect(self) -> None:
        patience = self.timeout
        self.timeout = min(patience or CONNECT_TIMEOUT_S, CONNECT_TIMEOUT_S)
        try:
            super().connect()  # type: ignore[misc]
        finally:
            self.timeout = patience
        self.sock.settimeout(patience)


class _HTTPConnection(_QuickToConnect, http.client.HTTPConnection):
    pass


class _HTTPSConnection(_QuickToConnect, http.client.HTTPSConnection):
    pass  # the TLS handshake is part of connecting


class _HTTPHandler(urllib.request.HTTPHandler):
    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_HTTPConnection, req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_HTTPSConnection, req, context=self._context)  # type: ignore[attr-defined]


def _unreachable(err: BaseException) -> str:
    """Why a server could not be reached, in words."""
    reason = getattr(err, "reason", err)  # a URLError wraps the socket's error
    if isinstance(reason, socket.gaierror):
        return "no encuentro ese servidor: ¿hay internet?"
    if isinstance(reason, TimeoutError):
        return "no contestó a tiempo"
    if isinstance(reason, ConnectionRefusedError):
        return "rechazó la conexión"
    return brief(reason if isinstance(reason, BaseException) else err)


def brief(err: BaseException) -> str:
    """An exception in a few words (``IncompleteRead(50000 bytes read)``, ``timed out``)."""
    return " ".join((str(err) or type(err).__name__).split())[:120]
