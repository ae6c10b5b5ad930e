"""One fetch of a model at a time: a lock file beside its download, held while the fetch runs."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class Busy(RuntimeError):
    """Another process holds the lock."""


@contextmanager
def held(path: Path) -> Iterator[None]:
    """Hold ``path`` as a lock while the block runs; ``Busy`` at once if another process holds it.

    The system lets go of the lock when the process ends, even when it is killed, and the file
    is removed on the way out (a lock taken on a file already removed is taken again on a new one),
    so that nothing is left beside the models."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise Busy(str(path)) from None
        if _same_file(fd, path):
            break
        os.close(fd)  # the holder before us removed it: lock the one there now
    try:
        yield
    finally:
        try:
            path.unlink(missing_ok=True)
        finally:
            os.close(fd)


def busy(path: Path) -> bool:
    """Whether another process holds ``path`` as a lock now (without taking it)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False  # no lock file: nobody holds it
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # a lock this took goes with the descriptor
    return False


def _same_file(fd: int, path: Path) -> bool:
    try:
        now = path.stat()
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (mine.st_dev, mine.st_ino) == (now.st_dev, now.st_ino)
