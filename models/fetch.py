"""Download a catalog model once: resumable (HTTP Range), checked, unpacked into the models folder.

Nothing else in the project downloads; this runs only from ``truco-referee models fetch``.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tarfile
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Callable
from pathlib import Path

from models.catalog import ModelSpec

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
    """Fetch ``url`` into ``dest``, resuming a partial file; return the final size in bytes."""
    have = dest.stat().st_size if dest.exists() else 0
    request = urllib.request.Request(url, headers={"User-Agent": "truco-referee"})
    if have:
        request.add_header("Range", f"bytes={have}-")
    try:
        response = urllib.request.urlopen(request, timeout=timeout)
    except urllib.error.HTTPError as err:
        if err.code == 416 and have:
            return have  # already complete
        raise FetchError("http-error", f"el servidor respondió {err.code} para {url}") from err
    except (TimeoutError, urllib.error.URLError, ConnectionError) as err:
        raise FetchError(
            "offline",
            f"no pude conectarme a {urllib.parse.urlsplit(url).netloc} ({err}); "
            "revisá la conexión a internet y volvé a probar: lo ya bajado se retoma",
        ) from err
    with response:
        resumed = response.status == 206
        if not resumed:
            have = 0
        length = response.headers.get("Content-Length")
        total = have + int(length) if length is not None else None
        mode = "ab" if resumed else "wb"
        done = have
        with dest.open(mode) as fh:
            try:
                for block in iter(lambda: response.read(CHUNK), b""):
                    fh.write(block)
                    done += len(block)
                    if progress:
                        progress(done, total)
            except (TimeoutError, ConnectionError, urllib.error.URLError) as err:
                raise FetchError(
                    "interrupted",
                    f"se cortó la descarga en {done} bytes ({err}); "
                    "volvé a correr el comando y sigue desde ahí",
                ) from err
    if total is not None and done != total:
        raise FetchError("truncated", f"llegaron {done} de {total} bytes; volvé a correr el comando")
    return done


def verify(spec: ModelSpec, archive: Path) -> str:
    """Check size and checksum against the catalog; return the archive's SHA-256."""
    size = archive.stat().st_size
    if spec.size is not None and size != spec.size:
        archive.unlink()
        raise FetchError("size-mismatch", f"{spec.archive} mide {size} bytes, esperaba {spec.size}; "
                         "lo borré, volvé a bajarlo")
    digest = sha256_of(archive)
    if spec.sha256 is not None and digest != spec.sha256:
        archive.unlink()
        raise FetchError("checksum-mismatch", f"{spec.archive} no tiene la suma SHA-256 esperada; "
                         "lo borré, volvé a bajarlo")
    return digest


def unpack(archive: Path, dest: Path) -> None:
    """Unpack a zip or tar.gz into ``dest``, checking every member's CRC on the way."""
    staging = dest.with_name(dest.name + ".unpacking")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        if zipfile.is_zipfile(archive):
            with zipfile.ZipFile(archive) as zf:
                bad = zf.testzip()
                if bad is not None:
                    raise FetchError("corrupt-archive", f"{archive.name}: {bad} está dañado")
                zf.extractall(staging)
        else:
            with tarfile.open(archive, "r:*") as tf:
                tf.extractall(staging, filter="data")
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError) as err:
        shutil.rmtree(staging, ignore_errors=True)
        raise FetchError("corrupt-archive", f"{archive.name} está dañado: {err}") from err
    entries = list(staging.iterdir())
    root = entries[0] if len(entries) == 1 and entries[0].is_dir() else staging
    shutil.rmtree(dest, ignore_errors=True)
    root.rename(dest)
    shutil.rmtree(staging, ignore_errors=True)


def cut_faces(sheet: Path, dest: Path) -> None:
    """A deck comes as one sheet of faces: cut it into the 40 face images of the deck folder."""
    from models.decks import SheetError, split_sheet

    staging = dest.with_name(dest.name + ".unpacking")
    shutil.rmtree(staging, ignore_errors=True)
    try:
        split_sheet(sheet, staging)
    except (SheetError, OSError) as err:
        shutil.rmtree(staging, ignore_errors=True)
        raise FetchError("bad-sheet", f"{sheet.name}: {err}") from err
    shutil.rmtree(dest, ignore_errors=True)
    staging.rename(dest)


def fetch(
    spec: ModelSpec,
    models_dir: Path,
    progress: Progress | None = None,
    *,
    force: bool = False,
    timeout: float = 30.0,
) -> Path:
    """Download, check and unpack one model; return its folder.  Already there = nothing to do."""
    target = spec.target(models_dir)
    if (target / MANIFEST).is_file() and not force:
        return target
    models_dir.mkdir(parents=True, exist_ok=True)
    partial = models_dir / (spec.archive + ".part")
    download(spec.url, partial, progress, timeout=timeout)
    digest = verify(spec, partial)
    if spec.kind == "deck":
        cut_faces(partial, target)
    else:
        unpack(partial, target)
    record = {"name": spec.name, "url": spec.url, "sha256": digest,
              "size": partial.stat().st_size, "fetched_at": time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                                          time.gmtime())}
    (target / MANIFEST).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    partial.unlink()
    return target


def check(spec: ModelSpec, models_dir: Path) -> tuple[bool, str]:
    """Is the model there and whole?  Returns (ok, plain explanation)."""
    target = spec.target(models_dir)
    if not target.is_dir():
        return False, "no está; bajalo con 'truco-referee models fetch'"
    manifest = target / MANIFEST
    if not manifest.is_file():
        return True, "está (copiado a mano, sin registro de descarga)"
    try:
        record = json.loads(manifest.read_text(encoding="utf-8"))
    except ValueError:
        return False, "el registro de descarga está dañado; volvé a bajarlo con --force"
    return True, f"está, bajado de {record.get('url')} (sha256 {str(record.get('sha256'))[:12]}…)"
