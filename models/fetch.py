"""Download a catalog model once: resumable (HTTP Range, ``models.download``), checked, unpacked
into the models folder.

Nothing else in the project downloads; this runs only from ``truco-referee models fetch``, one
fetch of a model at a time.
"""

from __future__ import annotations

import errno
import gzip
import hashlib
import json
import os
import shutil
import tarfile
import time
import zipfile
import zlib
from pathlib import Path

from models.catalog import ModelSpec
from models.download import CUT, FetchError, Progress, Tell, brief, download
from models.folders import replace_folder
from models.lock import Busy, held
from models.paths import fetch_command
from models.syserrors import SPACE_ERRORS, said
from models.validate import MANIFEST, check, file_sizes, inspect


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


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
    name = archive_name(archive)
    staging = dest.with_name(dest.name + ".unpacking")
    shutil.rmtree(staging, ignore_errors=True)
    try:
        if not (zipfile.is_zipfile(archive) or tarfile.is_tarfile(archive)):
            if _starts_like_an_archive(archive):
                raise FetchError("incomplete-download", f"{name} llegó incompleto "
                                 f"({archive.stat().st_size} bytes: le falta el final)")
            raise FetchError("not-an-archive", f"{name} no es un .zip ni un .tar.gz "
                             "(¿una página web en vez del archivo?)")
        staging.mkdir(parents=True)
        _extract(archive, staging)
        entries = list(staging.iterdir())
        root = entries[0] if len(entries) == 1 and entries[0].is_dir() else staging
        replace_folder(root, dest)
    except tarfile.FilterError as err:  # before TarError: the safety filter refused a member
        raise unsafe(name, err.tarinfo.name, FILTER_REFUSALS.get(type(err), brief(err))) from err
    except (EOFError, tarfile.ReadError) as err:
        if isinstance(err, EOFError) or "unexpected end" in str(err):
            raise FetchError("incomplete-download", f"{name} llegó incompleto "
                             f"({archive.stat().st_size} bytes: se corta antes del final)") from err
        raise FetchError("corrupt-archive", f"{name} está dañado ({brief(err)})") from err
    except ARCHIVE_ERRORS as err:
        raise FetchError("corrupt-archive", f"{name} está dañado ({brief(err)})") from err
    finally:
        shutil.rmtree(staging, ignore_errors=True)


# How a zip (its first member's header) and a gzip stream begin.
ARCHIVE_STARTS = (b"PK\x03\x04", b"\x1f\x8b")


def _starts_like_an_archive(path: Path) -> bool:
    with path.open("rb") as fh:
        return fh.read(4).startswith(ARCHIVE_STARTS)


def _extract(archive: Path, staging: Path) -> None:
    """Every member into ``staging``; an archive with a member whose path would land outside it
    is refused whole (zipfile would only trim such a path, and put the file somewhere else)."""
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as zf:
            _refuse_escapes(archive, zf.namelist())
            bad = zf.testzip()
            if bad is not None:
                raise zipfile.BadZipFile(f"{bad} no pasa la prueba de CRC")
            zf.extractall(staging)
    else:
        with tarfile.open(archive, "r:*") as tf:
            _refuse_escapes(archive, tf.getnames())
            tf.extractall(staging, filter="data")  # also refuses links out and device files


ESCAPES = "una ruta que se sale de la carpeta del modelo"
# What tarfile's "data" filter refuses, in words.
FILTER_REFUSALS: dict[type[Exception], str] = {
    tarfile.AbsolutePathError: ESCAPES,
    tarfile.OutsideDestinationError: ESCAPES,
    tarfile.AbsoluteLinkError: "un enlace a algo fuera de la carpeta del modelo",
    tarfile.LinkOutsideDestinationError: "un enlace a algo fuera de la carpeta del modelo",
    tarfile.SpecialFileError: "un archivo especial (un dispositivo o una tubería)",
}


def _refuse_escapes(archive: Path, names: list[str]) -> None:
    """An archive with an absolute member path, or one that climbs out with ``..``, is refused."""
    for member in names:
        parts = member.replace("\\", "/").split("/")
        if member.startswith(("/", "\\")) or ".." in parts:
            raise unsafe(archive_name(archive), member, ESCAPES)


def unsafe(name: str, member: str, why: str) -> FetchError:
    """An archive refused for what one member would do if unpacked."""
    return FetchError("unsafe-archive", f"{name} trae {member!r}, {why}: no lo desarmo")


def cut_faces(sheet: Path, dest: Path) -> None:
    """A deck comes as one sheet of faces: cut it into the 40 face images of the deck folder."""
    from models.decks import SheetError, split_sheet

    staging = dest.with_name(dest.name + ".unpacking")
    shutil.rmtree(staging, ignore_errors=True)
    try:
        split_sheet(sheet, staging)
        replace_folder(staging, dest)
    except SheetError as err:
        raise FetchError("bad-sheet", f"{archive_name(sheet)} {err}") from err
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
                         f"movelo o borralo y volvé a correr "
                         f"'{fetch_command(partial.parent, spec.name)}'")
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
    except FetchError as err:
        if err.code not in CUT:
            raise
        raise FetchError(err.code, f"{err.message}; volvé a correr "
                         f"'{fetch_command(partial.parent, spec.name)}' y sigue desde ahí") from err
    try:
        install(spec, partial, target, grew=after > before or before == 0)
    except OSError as err:  # the archive is whole: only the disk stands in the way
        raise system_error(spec, err, partial.parent, f"no pude desarmar {spec.archive}",
                         f"lo bajado quedó guardado en {partial} y no se baja de nuevo") from err


PART = ".part"  # the end of a download's name until it is whole


def partial_path(spec: ModelSpec, models_dir: Path) -> Path:
    """Where a model's download grows until it is whole."""
    return models_dir / (spec.archive + PART)


def archive_name(path: Path) -> str:
    """The name of the file a download is, as the person knows it (not its ``.part``)."""
    return path.name.removesuffix(PART)


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
    then = f"volvé a correr '{fetch_command(models_dir, spec.name)}'"
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
    again = fetch_command(partial.parent, spec.name)
    try:
        digest = verify(spec, partial)
        (cut_faces if spec.kind == "deck" else unpack)(partial, target)
        require_whole(spec, target)
    except FetchError as err:
        if err.code == "incomplete-download" and grew:
            raise FetchError(err.code, f"{err.message}; lo guardé: volvé a correr '{again}' y "
                             "sigue desde ahí") from err
        _discard(partial)
        raise FetchError(err.code, f"{err.message}; lo borré: volvé a correr '{again}' y "
                         "empieza de cero") from err
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
