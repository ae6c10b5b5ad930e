"""``create_app``: the scoreboard's FastAPI application, built from a store, rules and a PIN."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from web_scoreboard.access import Lockout, PinGuard, RateLimit, RateLimiter
from web_scoreboard.hub import Hub
from web_scoreboard.message_errors import describe_errors
from web_scoreboard.rebuild import SettingsLike, TableLike
from web_scoreboard.routes import LOOPBACK, build_router
from web_scoreboard.service import ActionError, TableService
from web_scoreboard.store import Store, said

STATIC = Path(__file__).parent / "static"
MAX_MESSAGE = 4096
TAPPING = RateLimit(per_second=10, burst=30)  # people tapping; the listener is not limited
DB_NAME = "scoreboard.sqlite3"


def _engine_defaults() -> tuple[Callable[[Any], TableLike], Callable[[dict[str, Any]], Any],
                                type[Exception]]:
    from engine.settings import Settings
    from referee.table import LineRejected, Table

    return Table, Settings.from_dict, LineRejected


def create_app(settings: SettingsLike | None = None, store: Store | None = None, *,
               table_factory: Callable[[Any], TableLike] | None = None,
               settings_from_dict: Callable[[dict[str, Any]], SettingsLike] | None = None,
               rejected_error: type[Exception] | None = None,
               pin: str | None = None, pin_lockout: Lockout | None = None,
               data_dir: Path | None = None,
               rate_limit: RateLimit | None = TAPPING, max_message: int = MAX_MESSAGE,
               host_addresses: frozenset[str] = LOOPBACK) -> FastAPI:
    """Build the scoreboard app around a store (or one in ``data_dir``) and the game's rules.

    The game in progress in the store is reopened by replaying its log; ``settings`` are the
    rules of the first game when the store has none.  ``app.state.service`` is the
    ``TableService`` the listener and the camera talk to.
    """
    if table_factory is None or settings_from_dict is None or rejected_error is None:
        default_table, default_from_dict, default_rejected = _engine_defaults()
        table_factory = table_factory or default_table
        settings_from_dict = settings_from_dict or default_from_dict
        rejected_error = rejected_error or default_rejected
    from_dict = settings_from_dict
    if store is None:
        store = Store((data_dir or Path(".")) / DB_NAME)
    guard = PinGuard(store, pin, pin_lockout)
    hub = Hub()
    service = TableService(
        store, hub, settings if settings is not None else from_dict({}),
        table_factory=table_factory, settings_from_dict=from_dict, rejected_error=rejected_error,
    )
    service.start()

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        hub.bind(asyncio.get_running_loop())
        yield

    app = FastAPI(title="truco-referee scoreboard", lifespan=lifespan, docs_url=None,
                  redoc_url=None)
    app.state.service, app.state.hub, app.state.guard = service, hub, guard
    app.add_middleware(BodyLimit, max_bytes=max_message)
    _add_error_handlers(app)
    app.include_router(build_router(service, hub, guard, RateLimiter(rate_limit), max_message,
                                    host_addresses))
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    return app


def _add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ActionError)
    async def action_error(_: Request, err: ActionError) -> JSONResponse:
        return JSONResponse(err.to_dict(), status_code=err.status)

    @app.exception_handler(sqlite3.Error)
    async def store_error(_: Request, err: sqlite3.Error) -> JSONResponse:
        """A store that fails while the table plays (damaged, taken by another program): said
        in words, not a bare 500."""
        error = ActionError("store-failed", f"los tanteadores guardados fallaron: {said(err)}",
                            503)
        return JSONResponse(error.to_dict(), status_code=error.status)

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, err: RequestValidationError) -> JSONResponse:
        error = describe_errors(list(err.errors()))
        return JSONResponse(error.to_dict(), status_code=error.status)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, err: HTTPException) -> JSONResponse:
        """The framework's own refusals (an address or method that is not there, a body it
        could not parse) said in Spanish like the others, not as an English ``detail``."""
        code, message = _HTTP_REFUSALS.get(err.status_code, ("refused", "pedido rechazado"))
        error = ActionError(code, message.format(method=request.method, path=request.url.path),
                            err.status_code)
        return JSONResponse(error.to_dict(), status_code=err.status_code, headers=err.headers)


_HTTP_REFUSALS = {
    400: ("malformed-json", "el mensaje no es JSON válido"),  # nested too deep to read, say
    404: ("not-found", "no hay nada en {path}"),
    405: ("wrong-method", "{path} no se pide con {method}"),
}


class BodyLimit:
    """Refuses request bodies over ``max_bytes`` with a 413, before any route sees them.

    A body sent in chunks (no Content-Length) is read here first, up to the limit, and handed to
    the route whole: a route that reads it itself would turn the refusal into a parsing error.
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.max_bytes:
            await self._refuse(send)
            return
        received = await self._read(receive)
        if received is None:
            await self._refuse(send)
            return

        async def replay() -> Message:
            return received.pop(0) if received else await receive()

        await self.app(scope, replay, send)

    async def _read(self, receive: Receive) -> list[Message] | None:
        """The body's messages, or None once they pass the limit."""
        messages: list[Message] = []
        seen, more = 0, True
        while more:
            message = await receive()
            messages.append(message)
            seen += len(message.get("body", b""))
            if seen > self.max_bytes:
                return None
            more = message["type"] == "http.request" and message.get("more_body", False)
        return messages

    async def _refuse(self, send: Send) -> None:
        error = ActionError("too-large", f"mensaje demasiado largo (máximo {self.max_bytes} "
                            "bytes)", 413)
        response = JSONResponse(error.to_dict(), status_code=413)
        await response({"type": "http"}, _no_receive, send)


async def _no_receive() -> Message:
    return {"type": "http.disconnect"}
