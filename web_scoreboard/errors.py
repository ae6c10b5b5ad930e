"""The refusals the scoreboard answers with, and the one for a change the disk refused."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any, TypeVar

from models import syserrors
from web_scoreboard.store import said

T = TypeVar("T")


class ActionError(ValueError):
    """A refused change, with a code for programs and a message for the people at the table."""

    def __init__(self, code: str, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status

    def to_dict(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message}}


STORE_REFUSED = "no se pudo guardar"


def store_failed(err: BaseException, refused: str = STORE_REFUSED) -> ActionError:
    """The error for a change the disk refused (full, or the database locked by another program);
    ``refused`` says what was not done («no se empezó la partida nueva»)."""
    return ActionError("store-failed", f"{refused}: {store_words(err)}", 503)


def by_the_store(err: ActionError) -> bool:
    """Whether a refusal is the store's (``store_failed``): then the whole change is refused, not
    made otherwise (a heard call the store did not take is not kept as one the rules refused)."""
    return err.code == "store-failed"


def store_words(err: BaseException) -> str:
    """Why the store refused, in the table's words (the English of SQLite or of the system in
    parentheses, for whoever fixes it)."""
    if isinstance(err, sqlite3.Error):
        return said(err)
    if isinstance(err, OSError):
        return f"{syserrors.said(err)} ({err})"
    return str(err)


def banner_words(err: BaseException, english: bool = False) -> str:
    """What every page says while the store refuses to write (``Snapshots.set_store``): why,
    what happens to the game meanwhile, and until when; with SQLite's English (``english``)
    for the terminal."""
    words = store_words(err)
    if not english:
        for cause in (err, err.__cause__):  # the store's words name the error they say
            if isinstance(cause, sqlite3.Error):
                words = words.replace(f" ({cause})", "")
    text = f"{err} {words}".lower()
    full = ("full" in text or "lleno" in text
            or getattr(err, "errno", None) in syserrors.SPACE_ERRORS)
    until = "haya lugar" if full else "se pueda guardar de nuevo"
    return (f"No se puede guardar: {words}. Lo que se oye y lo que se toca no se anota hasta que "
            f"{until}.")


def written(write: Callable[[], T]) -> T:
    """Run one store write; if the disk refuses it, nothing in memory has changed yet."""
    try:
        return write()
    except Exception as err:
        raise store_failed(err) from err
