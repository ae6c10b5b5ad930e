"""The tablet scoreboard: a live web page fed by the referee, backed by a SQLite log."""

from web_scoreboard.app import create_app
from web_scoreboard.heard import Heard
from web_scoreboard.service import ActionError, TableService

__all__ = ["ActionError", "Heard", "TableService", "create_app"]
