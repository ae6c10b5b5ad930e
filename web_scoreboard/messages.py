"""The pages' messages (over the WebSocket or to ``/api/actions``): each checked (size, rate,
schema, PIN) and carried out on the ``TableService``."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from web_scoreboard import schemas
from web_scoreboard.access import PinGuard, RateLimiter, wait_text
from web_scoreboard.errors import ActionError, store_failed
from web_scoreboard.message_errors import describe_errors
from web_scoreboard.service import TableService
from web_scoreboard.store import StoreError


def run_command(service: TableService, cmd: Any, origin: str) -> dict[str, Any]:
    """Carry out one validated command; the new snapshot."""
    if isinstance(cmd, schemas.PingMsg):
        return {"seq": service.current()[0]}
    if isinstance(cmd, schemas.EventMsg):
        return service.submit_line(cmd.line, origin, cmd.seq)
    if isinstance(cmd, schemas.UndoMsg):
        return service.undo(origin, cmd.seq)
    if isinstance(cmd, schemas.FlipMsg):
        return service.flip_last(origin, cmd.seq)
    if isinstance(cmd, schemas.SwapMsg):
        return service.swap_answer(origin, cmd.seq, cmd.to)
    if isinstance(cmd, schemas.SeatMsg):
        return service.give_last_to(cmd.seat, origin, cmd.seq)
    if isinstance(cmd, schemas.NamesMsg):
        return service.set_names(cmd.names.model_dump())
    if isinstance(cmd, schemas.NewGameMsg):
        settings = cmd.settings.given() if cmd.settings else None
        names = cmd.names.model_dump() if cmd.names else None
        return service.new_game(settings, names)
    if isinstance(cmd, schemas.OpenGameMsg):
        return service.open_game(cmd.game_id)
    if isinstance(cmd, schemas.ConfirmMsg):
        return service.confirm_heard(cmd.heard_id, origin, cmd.instead)
    if isinstance(cmd, schemas.DismissMsg):
        return service.dismiss_heard(cmd.heard_id)
    raise ActionError("unknown-action", f"acción desconocida: {cmd!r}", 400)


class MessageHandler:
    """Checks and carries out one raw message (WebSocket or /api/actions)."""

    def __init__(self, service: TableService, guard: PinGuard, limiter: RateLimiter,
                 max_bytes: int) -> None:
        self.service, self.guard, self.limiter, self.max_bytes = service, guard, limiter, max_bytes

    async def handle(self, raw: str | bytes, client: str, host: str,
                     header_pin: str | None = None, origin: str = "page") -> dict[str, Any]:
        """``client`` is whom the rate limit counts (a connection), ``host`` its address.  A
        refusal is answered, the store's own failures too (a page's connection stays open)."""
        try:
            cmd = self.check(raw, client, host, header_pin)
            snap = await run_in_threadpool(run_command, self.service, cmd, origin)
        except (ActionError, sqlite3.Error, StoreError) as err:
            error = err if isinstance(err, ActionError) else store_failed(err)
            return {**error.to_dict(), "id": _message_id(raw), "status": error.status}
        return {"ok": True, "id": cmd.id, "seq": snap.get("seq")}

    def check(self, raw: str | bytes, client: str, host: str, header_pin: str | None) -> Any:
        size = len(raw.encode() if isinstance(raw, str) else raw)
        if size > self.max_bytes:
            raise ActionError("too-large", f"mensaje demasiado largo ({size} bytes; "
                              f"máximo {self.max_bytes})", 413)
        if not self.limiter.allow(client):
            raise ActionError("rate-limited", "demasiados mensajes seguidos; esperá un momento",
                              429)
        try:
            cmd = schemas.COMMAND.validate_json(raw)
        except ValidationError as err:
            raise describe_errors(err.errors()) from err
        if not isinstance(cmd, schemas.PingMsg):
            require_pin(self.guard, cmd.pin or header_pin, host)
        return cmd


def require_pin(guard: PinGuard, given: str | None, host: str) -> None:
    """Raise the right error unless ``given`` is the table PIN."""
    verdict = guard.verify(given, host)
    if verdict == "locked":
        raise ActionError("pin-locked", "demasiados PIN incorrectos: esperá "
                          f"{wait_text(guard.wait(host))} y probá de nuevo", 429)
    if verdict == "missing":
        raise ActionError("pin-required", "hace falta el PIN de la mesa para cambiar algo", 401)
    if verdict == "wrong":
        raise ActionError("wrong-pin", "PIN incorrecto", 403)


def _message_id(raw: str | bytes) -> Any:
    try:
        data = json.loads(raw)
    except (ValueError, TypeError, RecursionError):  # RecursionError: nested too deep
        return None
    ident = data.get("id") if isinstance(data, dict) else None
    return ident if isinstance(ident, (int, str)) and len(str(ident)) <= 64 else None
