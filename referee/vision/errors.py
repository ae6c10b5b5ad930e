"""Camera errors with a code and a plain message for the person at the table."""

from __future__ import annotations


class VisionError(Exception):
    """A camera or card-bank problem: ``code`` for programs, ``message`` (Spanish) for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
