"""Download a catalog model once: resumable (HTTP Range), checked, unpacked into the models folder.

Nothing else in the project downloads; this runs only from ``truco-referee models fetch``.
"""

from __future__ import annotations

import errno
import gzip
import hashlib
import http.client
import json
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from models.catalog import ModelSpec
from models.validate import inspect

Progress = Callable[[int, int | None], None]
CHUNK = 1 << 16
MANIFEST = "fetched.json"


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


def download(url: str, dest: Path, progress: Progress | None = None, timeout: float = 30.0) -> int:
    """Fetch ``url`` into ``dest``, resuming a partial file; return the final size in bytes.

    A cut keeps what arrived (the next run resumes it); disk errors are left to the caller."""
    have = dest.stat().st_size if dest.exists() else 0
    response = _open(url, have, timeout)
    if response is None:
        return have  # the server has nothing past what we have: already complete
    with response:
        resumed = response.status == 206
        done = have if resumed else 0
        length = response.headers.get("Content-Length")
        total = done + int(length) if length is not None else None
        with dest.open("ab" if resumed else "wb") as fh:
            done = _copy(response, fh, done, total, progress)
    if total is not None and done != total:
        raise FetchError("truncated", f"llegaron {done} de {total} bytes; volvé a correr el comando "
                         "y sigue desde ahí")
    return done


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
    try:
        response: http.client.HTTPResponse = urllib.request.urlopen(request, timeout=timeout)
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
            raise FetchError("not-an-archive", f"{archive.name} no es un .zip ni un .tar.gz "
                             "(¿una página web en vez del archivo?)")
        staging.mkdir(parents=True)
        _extract(archive, staging)
        entries = list(staging.iterdir())
        root = entries[0] if len(entries) == 1 and entries[0].is_dir() else staging
        shutil.rmtree(dest, ignore_errors=True)
        root.rename(dest)
    except ARCHIVE_ERRORS as err:
        raise FetchError("corrupt-archive", f"{archive.name} está dañado ({_said(err)})") from err
    finally:
        shutil.rmtree(staging, ignore_errors=True)


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
        shutil.rmtree(dest, ignore_errors=True)
        staging.rename(dest)
    except SheetError as err:
        raise FetchError("bad-sheet", f"{sheet.name}: {err}") from err
    finally:
        shutil.rmtree(staging, ignore_errors=True)


# What a disk error means for the person, by errno; anything else is told as the system says it.
DISK_ERRORS: dict[int, str] = {
    errno.ENOSPC: "no queda lugar en el disco",
    errno.EDQUOT: "se llenó tu cuota de disco",
    errno.EFBIG: "el archivo es más grande de lo que este disco o el sistema dejan escribir",
    errno.EACCES: "no tengo permiso para escribir ahí",
    errno.EROFS: "ese disco es de solo lectura",
}


def disk_error(spec: ModelSpec, err: OSError, models_dir: Path) -> FetchError:
    what = DISK_ERRORS.get(err.errno or 0, err.strerror or _said(err))
    return FetchError(
        "disk-error",
        f"{what} ({models_dir}); borré lo bajado a medias. Hacen falta unos "
        f"{3 * spec.approx_mb} MB libres: liberá lugar o elegí otra carpeta con --models-dir y "
        f"volvé a correr 'truco-referee models fetch {spec.name}' (empieza de cero)",
    )


def fetch(
    spec: ModelSpec,
    models_dir: Path,
    progress: Progress | None = None,
    *,
    force: bool = False,
    timeout: float = 30.0,
) -> Path:
    """Download, check and unpack one model; return its folder.  Already there and whole =
    nothing to do.  A download that fails its checks is deleted (the next run starts over); a cut
    one is kept (the next run resumes it)."""
    target = spec.target(models_dir)
    if not force and check(spec, models_dir).ok:
        return target
    partial = models_dir / (spec.archive + ".part")
    try:
        models_dir.mkdir(parents=True, exist_ok=True)
        if force:
            partial.unlink(missing_ok=True)
        download(spec.url, partial, progress, timeout=timeout)
        install(spec, partial, target)
    except OSError as err:
        _discard(partial)
        raise disk_error(spec, err, models_dir) from err
    return target


def install(spec: ModelSpec, partial: Path, target: Path) -> None:
    """Check the downloaded file, unpack it into ``target`` and record what was fetched."""
    try:
        digest = verify(spec, partial)
        (cut_faces if spec.kind == "deck" else unpack)(partial, target)
        require_whole(spec, target)
    except FetchError as err:
        _discard(partial)
        raise FetchError(err.code, f"{err.message}; lo borré: volvé a correr 'truco-referee "
                         f"models fetch {spec.name}' y empieza de cero") from err
    record = {"name": spec.name, "url": spec.url, "sha256": digest,
              "size": partial.stat().st_size,
              "fetched_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
              "files": file_sizes(target)}
    (target / MANIFEST).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    partial.unlink()


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


def file_sizes(folder: Path) -> dict[str, int]:
    """Every file under ``folder`` (but the manifest) and its size, by relative path."""
    return {p.relative_to(folder).as_posix(): p.stat().st_size
            for p in sorted(folder.rglob("*")) if p.is_file() and p.name != MANIFEST}


def changed_files(folder: Path, recorded: dict[str, int]) -> list[str]:
    """The files that are gone or changed size since the fetch recorded them."""
    now = file_sizes(folder)
    gone = [f"falta {name}" for name in recorded if name not in now]
    changed = [f"cambió {name}" for name, size in recorded.items()
               if name in now and now[name] != size]
    return gone + changed


@dataclass(frozen=True)
class Status:
    """What 'models check' says about one model: ``state`` is "ok", "missing" or "broken"."""

    state: str
    message: str

    @property
    def ok(self) -> bool:
        return self.state == "ok"


def check(spec: ModelSpec, models_dir: Path) -> Status:
    """Is the model there and whole?  The same judgement as the recognizer finder
    (``models.validate.inspect``), plus the file sizes recorded when it was fetched."""
    target = spec.target(models_dir)
    if not target.is_dir():
        optional = " (es opcional)" if spec.kind == "deck" else ""
        return Status("missing", f"no está{optional}; bajalo con 'truco-referee models fetch "
                      f"{spec.name}'")
    record = _manifest(target)
    _, problems = inspect(spec.kind, target)
    if record is None:
        problems.append("el registro de descarga está dañado")
    elif record:
        problems += changed_files(target, record.get("files") or {})
    if problems:
        return Status("broken", f"está incompleto o dañado ({'; '.join(problems[:4])}); volvé a "
                      f"bajarlo con 'truco-referee models fetch --force {spec.name}'")
    if not record:
        return Status("ok", "está (copiado a mano: tiene los archivos que hacen falta)")
    return Status("ok", f"está, bajado de {record.get('url')} (sha256 "
                  f"{str(record.get('sha256'))[:12]}…), sin cambios desde entonces")


def _manifest(target: Path) -> dict[str, Any] | None:
    """The fetch record of a model folder: {} when there is none, None when it is unreadable."""
    path = target / MANIFEST
    if not path.is_file():
        return {}
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None
