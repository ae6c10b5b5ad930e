"""Download a catalog model once: resumable (HTTP Range), checked, unpacked into the models folder.

Nothing else in the project downloads; this runs only from ``truco-referee models fetch``, one
fetch of a model at a time.
"""

from __future__ import annotations

import errno
import gzip
import hashlib
import http.client
import json
import os
import re
import shutil
import socket
import tarfile
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from models.catalog import ModelSpec
from models.folders import replace_folder
from models.lock import Busy, held
from models.syserrors import SPACE_ERRORS, said
from models.validate import MANIFEST, check, file_sizes, inspect

# How long to wait for a server to take the connection: a network that drops what it is sent
# (no internet behind the wifi, a firewall) is told in this long, not in the ``timeout`` that a
# slow server gets to answer and to send each part.
CONNECT_TIMEOUT_S = 10.0

Progress = Callable[[int, int | None], None]
Tell = Callable[[str], None]  # a note for the person while the fetch goes on
CHUNK = 1 << 16


class FetchError(RuntimeError):
    """A download failed; ``code`` is stable, ``message`` says what to do."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def download(url: str, dest: Path, progress: Progress | None = None, timeout: float = 30.0,
             tell: Tell | None = None) -> int:
    """Fetch ``url`` into ``dest``, resuming a partial file; return the final size in bytes.

    A cut keeps what arrived (the next run resumes it); disk errors are left to the caller.  A
    resumed answer that does not go on from where ``dest`` ends is not appended: ``dest`` starts
    over, and ``tell`` says so."""
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
        raise FetchError("truncated", f"llegaron {done} de {total} bytes; volvé a correr el comando "
                         "y sigue desde ahí")
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
    ``read1`` hands over what came without waiting for a whole block (progress, Ctrl-C)."""
    try:
        for block in iter(lambda: response.read1(CHUNK), b""):
            fh.write(block)
            done += len(block)
            if progress:
                progress(done, total)
    except (TimeoutError, ConnectionError, urllib.error.URLError,
            http.client.HTTPException) as err:
        raise FetchError(
            "interrupted",
            f"se cortó la descarga en {done} bytes ({_said(err)}); "
            "volvé a correr el comando y sigue desde ahí",
        ) from err
    return done


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
            f"{host} contestó algo que no es una respuesta web ({_said(err)}); "
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
    return _said(reason if isinstance(reason, BaseException) else err)


def _said(err: BaseException) -> str:
    """An exception in a few words (``IncompleteRead(50000 bytes read)``, ``timed out``)."""
    return " ".join((str(err) or type(err).__name__).split())[:120]


def verify(spec: ModelSpec, archive: Path) -> str:
    """Check size and checksum against the catalog; return the archive's SHA-256."""
    size = archive.stat().st_size
    if spec.size is not None and size < spec.size:
        raise FetchError("incomplete-download", f"{spec.archive} llegó incompleto ({size} de "
                         f"{spec.size} bytes)")
    if spec.size is not None and size != spec.size:
        raise FetchError("size-mismatch", f"{spec.archive} mide {size} bytes, esperaba {spec.size}")
    digest = sha256_of(archive)
    if spec.sha256 is not None and digest != spec.sha256:
        raise FetchError("checksum-mismatch", f"{spec.archive} no tiene la suma SHA-256 esperada")
    return digest


# Archive errors: a damaged zip or gzip stream, a tar the safety filter refused, a cut archive.
ARCHIVE_ERRORS = (zipfile.BadZipFile, tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile)


def unpack(archive: Path, dest: Path) -> None:
    """Unpack a zip or tar.gz into ``dest``, checking every member's CRC on the way; the
    unpacking folder never stays behind."""
    staging = dest.with_name(dest.name + ".unpacking")
    shutil.rmtree(staging, ignore_errors=True)
    try:
        if not (zipfile.is_zipfile(archive) or tarfile.is_tarfile(archive)):
            if _starts_like_an_archive(archive):
                raise FetchError("incomplete-download", f"{archive.name} llegó incompleto "
                                 f"({archive.stat().st_size} bytes: le falta el final)")
            raise FetchError("not-an-archive", f"{archive.name} no es un .zip ni un .tar.gz "
                             "(¿una página web en vez del archivo?)")
        staging.mkdir(parents=True)
        _extract(archive, staging)
        entries = list(staging.iterdir())
        root = entries[0] if len(entries) == 1 and entries[0].is_dir() else staging
        replace_folder(root, dest)
    except (EOFError, tarfile.ReadError) as err:
        if isinstance(err, EOFError) or "unexpected end" in str(err):
            raise FetchError("incomplete-download", f"{archive.name} llegó incompleto "
                             f"({archive.stat().st_size} bytes: se corta antes del final)") from err
        raise FetchError("corrupt-archive", f"{archive.name} está dañado ({_said(err)})") from err
    except ARCHIVE_ERRORS as err:
        raise FetchError("corrupt-archive", f"{archive.name} está dañado ({_said(err)})") from err
    finally:
        shutil.rmtree(staging, ignore_errors=True)


# How a zip (its first member's header) and a gzip stream begin.
ARCHIVE_STARTS = (b"PK\x03\x04", b"\x1f\x8b")


def _starts_like_an_archive(path: Path) -> bool:
    with path.open("rb") as fh:
        return fh.read(4).startswith(ARCHIVE_STARTS)


def _extract(archive: Path, staging: Path) -> None:
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as zf:
            bad = zf.testzip()
            if bad is not None:
                raise zipfile.BadZipFile(f"{bad} no pasa la prueba de CRC")
            zf.extractall(staging)
    else:
        with tarfile.open(archive, "r:*") as tf:
            tf.extractall(staging, filter="data")


def cut_faces(sheet: Path, dest: Path) -> None:
    """A deck comes as one sheet of faces: cut it into the 40 face images of the deck folder."""
    from models.decks import SheetError, split_sheet

    staging = dest.with_name(dest.name + ".unpacking")
    shutil.rmtree(staging, ignore_errors=True)
    try:
        split_sheet(sheet, staging)
        replace_folder(staging, dest)
    except SheetError as err:
        raise FetchError("bad-sheet", f"{sheet.name}: {err}") from err
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def fetch(
    spec: ModelSpec,
    models_dir: Path,
    progress: Progress | None = None,
    *,
    force: bool = False,
    timeout: float = 30.0,
    tell: Tell | None = None,
) -> Path:
    """Download, check and unpack one model; return its folder.  Already there and whole =
    nothing to do.  One fetch of a model at a time.  A download that fails its checks is deleted
    (the next run starts over); a cut one is kept (the next run resumes it), and so is one that
    arrived whole when a later step fails for a reason of the disk's."""
    target = spec.target(models_dir)
    if not force and check(spec, models_dir).ok:
        return target
    partial = partial_path(spec, models_dir)
    try:
        models_dir.mkdir(parents=True, exist_ok=True)
        with held(lock_path(spec, models_dir)):
            _fetch_locked(spec, partial, target, progress, force, timeout, tell)
    except Busy:
        raise FetchError("busy", f"ya hay otra descarga de {spec.name} en curso en {models_dir}; "
                         "esperá a que termine (o cortala) y volvé a probar") from None
    except OSError as err:  # the folder or its lock could not be made
        raise system_error(spec, err, models_dir, "no pude preparar la carpeta de modelos") from err
    return target


def _fetch_locked(spec: ModelSpec, partial: Path, target: Path, progress: Progress | None,
                  force: bool, timeout: float, tell: Tell | None) -> None:
    """The fetch proper, with the model's lock held: download, then install."""
    blocked = blocking_path(target, partial.parent)
    if blocked:
        raise FetchError("target-blocked", f"no puedo poner el modelo en {target}: {blocked}; "
                         f"movelo o borralo y volvé a correr 'truco-referee models fetch "
                         f"{spec.name}'")
    try:
        if force:
            partial.unlink(missing_ok=True)
        before = partial.stat().st_size if partial.exists() else 0
        after = download(spec.url, partial, progress, timeout=timeout, tell=tell)
    except OSError as err:
        if err.errno in (*SPACE_ERRORS, errno.EFBIG):
            _discard(partial)
            raise system_error(spec, err, partial.parent, "no pude guardar la descarga",
                             "borré lo bajado a medias") from err
        raise system_error(spec, err, partial.parent, "no pude guardar la descarga",
                         "lo ya bajado se retoma" if partial.is_file() else "") from err
    try:
        install(spec, partial, target, grew=after > before or before == 0)
    except OSError as err:  # the archive is whole: only the disk stands in the way
        raise system_error(spec, err, partial.parent, f"no pude desarmar {spec.archive}",
                         f"lo bajado quedó guardado en {partial} y no se baja de nuevo") from err


def partial_path(spec: ModelSpec, models_dir: Path) -> Path:
    """Where a model's download grows until it is whole."""
    return models_dir / (spec.archive + ".part")


def lock_path(spec: ModelSpec, models_dir: Path) -> Path:
    """The lock a fetch of the model holds while it runs (one fetch of a model at a time)."""
    return models_dir / (spec.archive + ".lock")


def blocking_path(target: Path, models_dir: Path) -> str | None:
    """What stands where the model's folder (or a folder on the way to it) has to go: a file,
    a link to nothing, or a link (the folder is replaced whole); None when the way is clear."""
    inside = target.relative_to(models_dir)
    for path in [models_dir / part for part in (*reversed(inside.parents), inside)][1:]:
        if path.is_symlink() and not path.exists():
            return f"{path} es un enlace a algo que no existe"
        if path.exists() and not path.is_dir():
            return f"{path} es un archivo"
        if path == target and path.is_symlink():
            return f"{path} es un enlace a otra carpeta"
    return None


def system_error(spec: ModelSpec, err: OSError, models_dir: Path, doing: str,
               kept: str = "") -> FetchError:
    """A system error while fetching, in words; free space is asked for only when it is short."""
    where = err.filename2 or err.filename or models_dir  # a rename names its target second
    then = f"volvé a correr 'truco-referee models fetch {spec.name}'"
    if err.errno in SPACE_ERRORS:
        advice = (f"hacen falta unos {3 * spec.approx_mb} MB libres: liberá lugar o elegí otra "
                  f"carpeta con --models-dir y {then}")
    else:
        advice = f"elegí otra carpeta con --models-dir, o arreglá eso, y {then}"
    told = ". ".join(part[0].upper() + part[1:] for part in (kept, advice) if part)
    return FetchError("disk-error", f"{doing}: {said(err)} ({where}). {told}")


def install(spec: ModelSpec, partial: Path, target: Path, grew: bool = True) -> None:
    """Check the downloaded file, unpack it into ``target`` and record what was fetched.  One
    that arrived incomplete is kept to be resumed, unless this run added nothing to it."""
    try:
        digest = verify(spec, partial)
        (cut_faces if spec.kind == "deck" else unpack)(partial, target)
        require_whole(spec, target)
    except FetchError as err:
        if err.code == "incomplete-download" and grew:
            raise FetchError(err.code, f"{err.message}; lo guardé: volvé a correr "
                             f"'truco-referee models fetch {spec.name}' y sigue desde ahí") from err
        _discard(partial)
        raise FetchError(err.code, f"{err.message}; lo borré: volvé a correr 'truco-referee "
                         f"models fetch {spec.name}' y empieza de cero") from err
    record = {"name": spec.name, "url": spec.url, "sha256": digest,
              "size": partial.stat().st_size,
              "fetched_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
              "files": file_sizes(target)}
    try:
        write_record(target, record)
    except OSError:  # a model without its record would pass for one copied by hand
        shutil.rmtree(target, ignore_errors=True)
        raise
    partial.unlink()


def write_record(target: Path, record: dict[str, object]) -> None:
    """Write the fetch record whole or not at all: a half-written one reads as damaged."""
    staging = target / (MANIFEST + ".writing")
    try:
        staging.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        os.replace(staging, target / MANIFEST)
    finally:
        _discard(staging)


def require_whole(spec: ModelSpec, target: Path) -> None:
    """An unpacked archive that lacks what the model needs is removed, not left as a model."""
    _, problems = inspect(spec.kind, target)
    if problems:
        shutil.rmtree(target, ignore_errors=True)
        raise FetchError("incomplete-model", f"lo que bajé no es un modelo completo "
                         f"({'; '.join(problems[:3])})")


def _discard(path: Path) -> None:
    try:
        path.unlink(missing_ok=True)
    except OSError:
        pass
