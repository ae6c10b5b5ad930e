"""Putting a new folder in the place of an old one without losing the old one on the way."""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path


def replace_folder(new: Path, target: Path) -> None:
    """Put the folder ``new`` (beside ``target``, on the same disk) where ``target`` is.

    The old ``target`` is moved aside first and deleted only once ``new`` is in its place; if
    ``new`` cannot be put there, the old one is put back, whole, and the error is raised.  Only a
    folder is replaced: a file or a link where ``target`` goes is the person's, and is named
    (``NotADirectoryError``, as a rename onto it says)."""
    had = os.path.lexists(target)
    if had and (target.is_symlink() or not target.is_dir()):
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(new), None,
                                 str(target))
    aside = target.with_name(f".{target.name}.anterior")
    shutil.rmtree(aside, ignore_errors=True)
    if had:
        target.rename(aside)
    try:
        new.rename(target)
    except OSError:
        if had:
            aside.rename(target)
        raise
    shutil.rmtree(aside, ignore_errors=True)
