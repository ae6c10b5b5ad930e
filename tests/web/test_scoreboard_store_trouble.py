"""The store's troubles in the table's words: by SQLite's result code, with a look at the disk
where the code alone misleads, and each with what to do."""

from __future__ import annotations

import shutil
import sqlite3
from collections import namedtuple
from pathlib import Path

import pytest

from web_scoreboard.store import LogEntry, Store, StoreError, said
from web_scoreboard.store_trouble import StoreFailed, worded


def coded(name: str, text: str) -> sqlite3.OperationalError:
    """An error as SQLite raises it, with its (extended) result code's name."""
    err = sqlite3.OperationalError(text)
    err.sqlite_errorname = name  # type: ignore[attr-defined]
    return err


@pytest.mark.parametrize(("name", "text", "words"), [
    ("SQLITE_FULL", "database or disk is full", "el disco está lleno"),
    ("SQLITE_READONLY", "attempt to write a readonly database", "no se puede escribir en él"),
    ("SQLITE_READONLY_DIRECTORY", "attempt to write a readonly database",
     "no se puede escribir en él"),
    ("SQLITE_PERM", "access permission denied", "no se puede escribir en él"),
    ("SQLITE_IOERR_WRITE", "disk I/O error", "el disco falló al leerlo o escribirlo"),
    ("SQLITE_CORRUPT", "database disk image is malformed", "el archivo está dañado"),
    ("SQLITE_NOTADB", "file is not a database", "el archivo está dañado"),
    ("SQLITE_BUSY", "database is locked", "otro programa lo tiene tomado"),
    ("SQLITE_CANTOPEN", "unable to open database file", "no se puede abrir"),
    ("SQLITE_ERROR", "no such table: games", "la base de datos falló"),
])
def test_sqlite_errors_are_said_by_their_code(name: str, text: str, words: str) -> None:
    told = said(coded(name, text))
    assert told.startswith(words) and told.endswith(f" ({text})")


def test_the_code_decides_not_the_words() -> None:
    # an error SQLite raised carries its code: words that look like another trouble don't count
    assert said(coded("SQLITE_IOERR_READ", "disk I/O error: file full of holes")).startswith(
        "el disco falló")
    # an error raised by hand has no code: its words decide
    assert said(sqlite3.OperationalError("database or disk is full")).startswith(
        "el disco está lleno")


def test_a_file_called_malformed_that_the_disk_cannot_read_is_the_disk_not_the_file(
        tmp_path: Path) -> None:
    healthy = tmp_path / "scoreboard.sqlite3"
    healthy.write_bytes(b"SQLite format 3\0" + bytes(100))
    (tmp_path / "scoreboard.sqlite3-wal").write_bytes(b"")
    malformed = coded("SQLITE_CORRUPT", "database disk image is malformed")
    said_of_file = worded(malformed, healthy)
    assert said_of_file.startswith("el archivo está dañado")
    assert ("apartá juntos scoreboard.sqlite3 y scoreboard.sqlite3-wal de "
            f"{tmp_path}") in said_of_file
    # as after an ext4 shutdown: SQLite calls the file malformed, reading it gives an error
    unreadable = tmp_path / "folder"
    unreadable.mkdir()
    said_of_disk = worded(malformed, unreadable)
    assert said_of_disk.startswith("el disco falló al leerlo o escribirlo")
    assert "apartá" not in said_of_disk


FakeUsage = namedtuple("FakeUsage", "total used free")


def test_an_io_error_on_a_full_disk_says_to_free_room(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "scoreboard.sqlite3"
    monkeypatch.setattr(shutil, "disk_usage", lambda _: FakeUsage(1 << 30, 1 << 30, 12 << 10))
    # what a full disk gives when the -shm cannot grow
    said_full = worded(coded("SQLITE_IOERR_SHMSIZE", "disk I/O error"), path)
    assert said_full == (f"el disco está lleno (disk I/O error); liberá espacio: quedan 12 KB "
                         f"libres en {tmp_path}")
    monkeypatch.undo()
    assert worded(coded("SQLITE_IOERR_SHMSIZE", "disk I/O error"), path).startswith(
        "el disco falló")


def test_serve_on_a_full_disk_says_so_not_that_the_disk_failed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from referee.cli import build_parser
    from referee.commands.serve import run
    from tests.web.conftest import free_port

    data = tmp_path / "data"
    (data / "scoreboard.sqlite3").mkdir(parents=True)  # SQLite cannot open it
    monkeypatch.setattr(shutil, "disk_usage", lambda _: FakeUsage(1 << 30, 1 << 30, 0))
    args = build_parser().parse_args(["serve", "--no-mic", "--data-dir", str(data), "--host",
                                      "127.0.0.1", "--port", str(free_port())])
    assert run(args) == 1
    err = capsys.readouterr().err
    assert "el disco está lleno" in err
    assert f"liberá espacio: quedan 0 bytes libres en {data}" in err


def test_a_store_sqlite_finds_full_during_play_says_the_disk_is_full(store: Store) -> None:
    game = store.create_game({}, {})
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count={pages}")  # SQLite's own SQLITE_FULL, as a full disk
    with pytest.raises(StoreFailed, match=r"^el disco está lleno \(database or disk is full\)"):
        store.append(game, [LogEntry("apply", "x" * 9000, "page")], {"A": 0, "B": 0}, None)
    assert store.log(game) == []


def test_an_error_the_store_said_is_an_sqlite_error_said_as_it_was() -> None:
    failed = StoreFailed("la carpeta de datos desapareció (/x)")
    assert isinstance(failed, sqlite3.Error) and isinstance(failed, StoreError)
    assert said(failed) == "la carpeta de datos desapareció (/x)"
