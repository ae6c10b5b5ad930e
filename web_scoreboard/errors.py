"""The refusals the scoreboard answers with, and the one for a change the disk refused."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any, TypeVar

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


def store_failed(err: Exception) -> ActionError:
    """The error for a change the disk refused (full, or the database locked by another program)."""
    words = said(err) if isinstance(err, sqlite3.Error) else str(err)
    return ActionError("store-failed", f"no se pudo guardar: {words}", 503)


def written(write: Callable[[], T]) -> T:
    """Run one store write; if the disk refuses it, nothing in memory has changed yet."""
    try:
        return write()
    except Exception as err:
        raise store_failed(err) from err
