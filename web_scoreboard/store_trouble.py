"""What the store's troubles mean for the table: SQLite's errors in words, and what to do.

SQLite names an error by its result code (``SQLITE_IOERR_WRITE``); where the store's file is
known, a look at the disk tells apart what the code alone does not (a file SQLite calls
malformed after the disk stopped answering, an I/O error on a full or read-only disk).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

from models import syserrors

# What SQLite's errors mean for the table: (kind, its result codes — an extended one, such as
# SQLITE_IOERR_WRITE, begins with its primary one —, its English words for an error that has no
# code, in the table's words).  First match wins.
TROUBLES: tuple[tuple[str, tuple[str, ...], tuple[str, ...], str], ...] = (
    ("damaged", ("SQLITE_CORRUPT", "SQLITE_NOTADB"), ("malformed", "not a database", "corrupt"),
     "el archivo está dañado"),
    ("taken", ("SQLITE_BUSY", "SQLITE_LOCKED"), ("locked", "busy"),
     "otro programa lo tiene tomado"),
    ("full", ("SQLITE_FULL",), ("full",), "el disco está lleno"),
    ("unwritable", ("SQLITE_READONLY", "SQLITE_PERM", "SQLITE_AUTH"),
     ("readonly", "read-only", "permission"),
     "no se puede escribir en él: no hay permiso, o el disco es de solo lectura"),
    ("unopenable", ("SQLITE_CANTOPEN",), ("unable to open",), "no se puede abrir"),
    ("failing", ("SQLITE_IOERR",), ("disk i/o",), "el disco falló al leerlo o escribirlo"),
)
WORDS = {kind: words for kind, _, _, words in TROUBLES}
ELSE = "la base de datos falló"

LOW_DISK = 1 << 20  # less free room than this, and a write that fails is a full disk's


class StoreError(Exception):
    """The store cannot be opened or used: damaged, taken by another program, or unwritable."""


class StoreFailed(StoreError, sqlite3.OperationalError):
    """A read or write SQLite refused while the table plays, said in the table's words (its
    ``str``); an ``sqlite3.Error`` too, so that whoever answers a failed store answers it."""


class DamagedGame(StoreError):
    """The game in play cannot be rebuilt: its rules, as stored, cannot be read."""

    def __init__(self, message: str, game_id: int) -> None:
        super().__init__(message)
        self.game_id = game_id


def kind_of(err: sqlite3.Error) -> str:
    """The kind of trouble (``TROUBLES``) an SQLite error is, by its code, else by its words;
    ``""`` for any other."""
    name = getattr(err, "sqlite_errorname", None)
    if name:
        return next((kind for kind, codes, _, _ in TROUBLES if name.startswith(codes)), "")
    text = str(err).lower()
    return next((kind for kind, _, keys, _ in TROUBLES if any(k in text for k in keys)), "")


def said(err: sqlite3.Error) -> str:
    """A SQLite error in the table's words (the English text in parentheses, for whoever fixes
    it); one the store already said (``StoreError``) as it said it."""
    if isinstance(err, StoreError):
        return str(err)
    return f"{WORDS.get(kind_of(err), ELSE)} ({err})"


def files_of(path: Path) -> list[Path]:
    """The store's file and the two SQLite keeps beside it (the newest changes live in the
    ``-wal`` until they are copied into the file), those that are there."""
    return [p for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")) if p.exists()]


def set_aside(path: Path) -> str:
    """The advice to set a damaged store aside: its files, moved together."""
    names = [p.name for p in files_of(path)] or [path.name]
    if len(names) == 1:
        return f"apartá {names[0]} de {path.parent} (movelo a otra carpeta)"
    listed = ", ".join(names[:-1]) + f" y {names[-1]}"
    return (f"apartá juntos {listed} de {path.parent} (movelos a otra carpeta sin cambiarles el "
            "nombre: lo último anotado puede estar en el -wal)")


FRESH = "empieza un tanteador vacío, y el viejo queda para rescatarlo"


def diagnosed(err: sqlite3.Error, path: Path, open_: bool = False) -> tuple[str, str]:
    """The kind of trouble an error of the store at ``path`` is, looking at the disk where the
    code alone may mislead, and what to do about it (``""``: nothing to say); ``open_``: while
    the program holds the store open."""
    kind = kind_of(err)
    if kind == "damaged":
        try:
            with open(path, "rb") as file:
                file.read(100)
        except OSError as os_err:  # the disk, not the file: do not set a healthy file aside
            return "failing", f"al leer el archivo: {syserrors.said(os_err)}"
        first = "cerrá el programa (Ctrl+C), " if open_ else ""
        return kind, f"{first}{set_aside(path)} y arrancá de nuevo: {FRESH}"
    if kind in ("full", "unopenable", "failing"):
        free = free_room(path.parent)
        if free is not None and free < LOW_DISK:
            return "full", f"liberá espacio: quedan {size_words(free)} libres en {path.parent}"
    if kind in ("unwritable", "unopenable", "failing") and not _writable(path):
        return "unwritable", (f"fijate los permisos de {path.parent} y de sus archivos, o si el "
                              "disco quedó de solo lectura")
    return kind, ""


def worded(err: sqlite3.Error, path: Path, open_: bool = False) -> str:
    """An error of the store at ``path`` in the table's words, with what to do (``open_``: while
    the program holds the store open)."""
    kind, advice = diagnosed(err, path, open_)
    return f"{WORDS.get(kind, ELSE)} ({err})" + (f"; {advice}" if advice else "")


def free_room(folder: Path) -> int | None:
    try:
        return shutil.disk_usage(folder).free
    except OSError:
        return None


def _writable(path: Path) -> bool:
    """Whether this process may write the store's folder and files (permissions, a disk
    mounted read-only or gone read-only, an immutable file)."""
    try:
        if os.statvfs(path.parent).f_flag & os.ST_RDONLY:
            return False
    except OSError:
        return True  # nothing to tell
    return all(os.access(p, os.W_OK) for p in (path.parent, *files_of(path)))


def size_words(n: int) -> str:
    """«512 bytes», «37 KB», «1.5 MB», «12.3 GB»."""
    if n < 1024:
        return f"{n} bytes"
    if n < 1 << 20:
        return f"{n // 1024} KB"
    return f"{n / (1 << 20):.1f} MB" if n < 1 << 30 else f"{n / (1 << 30):.1f} GB"
