"""The tablet scoreboard: a live web page fed by the referee, backed by a SQLite log.

Its names are imported when first asked for, so that a process that only reads the store (the
voice learning's, ``referee.learning_worker``) does not load the web server with it."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from web_scoreboard.app import create_app
    from web_scoreboard.errors import ActionError
    from web_scoreboard.heard import Heard
    from web_scoreboard.service import TableService

_WHERE = {"create_app": "web_scoreboard.app", "Heard": "web_scoreboard.heard",
          "ActionError": "web_scoreboard.errors", "TableService": "web_scoreboard.service"}

__all__ = ["ActionError", "Heard", "TableService", "create_app"]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'web_scoreboard' has no attribute {name!r}")
    return getattr(importlib.import_module(_WHERE[name]), name)
