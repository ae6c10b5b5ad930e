"""HTTP and WebSocket routes: reading is open to all, changing needs the table PIN."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Query, Request, WebSocket
from fastapi.responses import JSONResponse, Response, StreamingResponse
from pydantic import ValidationError
from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool

from web_scoreboard import record, schemas
from web_scoreboard.access import PinGuard, RateLimiter, wait_text
from web_scoreboard.hub import Hub
from web_scoreboard.service import ActionError, TableService, store_failed
from web_scoreboard.store import StoreError

# Pages opened from these addresses are on the serving machine: they may read the PIN.
LOOPBACK = frozenset({"127.0.0.1", "::1", "localhost"})
# The snapshot a page showed when it asked to change the last line (``?seq=``).
Seen = Annotated[int | None, Query(ge=0, le=schemas.MAX_ROW)]


# Where pydantic says a value was (a request's body, query or path) or, in a command, the action
# whose fields it checked: the first step of an error's location, not part of the field's name.
_PLACES = frozenset({"body", "query", "path", "header", "cookie", *schemas.ACTIONS})
# The branches of a union pydantic tried (``id``: a number or a text): not part of the name either.
_BRANCHES = frozenset({"int", "str"})
# What a value should have been, for the errors about its type; a union's branches join with «o».
_KINDS = {
    "int_type": "un número entero",
    "int_parsing": "un número entero",
    "float_type": "un número",
    "float_parsing": "un número",
    "string_type": "un texto",
    "bool_type": "true o false",
    "bool_parsing": "true o false",
    "list_type": "una lista, entre corchetes",
    "dict_type": "un objeto JSON, entre llaves",
    "model_type": "un objeto JSON, entre llaves",
    "model_attributes_type": "un objeto JSON, entre llaves",
}
# The other errors, with the values pydantic gives in their ``ctx`` (expected values, limits).
_TEMPLATES = {
    "missing": "falta (es obligatorio)",
    "extra_forbidden": "sobra (el mensaje no lleva ese dato)",
    "literal_error": "tiene que ser {expected}",
    "enum": "tiene que ser {expected}",
    "int_from_float": "tiene que ser un número entero, sin decimales",
    "string_too_long": "puede tener hasta {max_length} caracteres",
    "string_too_short": "tiene que tener al menos {min_length} caracteres",
    "too_long": "puede tener hasta {max_length} elementos",
    "too_short": "tiene que tener al menos {min_length} elementos",
    "greater_than_equal": "tiene que ser {ge} o más",
    "greater_than": "tiene que ser más de {gt}",
    "less_than_equal": "tiene que ser {le} o menos",
    "less_than": "tiene que ser menos de {lt}",
    "json_invalid": "no es JSON válido",
}
_UNKNOWN = "tiene un valor que no sirve"


def describe_errors(errors: list[Any]) -> ActionError:
    """Turn pydantic errors into one clear, coded error, in Spanish."""
    kinds = {e.get("type") for e in errors}
    if "json_invalid" in kinds or "json_type" in kinds:
        return ActionError("malformed-json", "el mensaje no es JSON válido", 400)
    if "union_tag_invalid" in kinds:
        return ActionError("unknown-action", "acción desconocida; las válidas son: "
                           + ", ".join(schemas.ACTIONS), 400)
    if "union_tag_not_found" in kinds:
        return ActionError("missing-action", "falta «action» en el mensaje", 400)
    by_field: dict[str, list[Any]] = {}
    for error in errors:
        by_field.setdefault(_field_name(error.get("loc", ())), []).append(error)
    parts = [f"{name}: {_field_problem(found)}" for name, found in list(by_field.items())[:3]]
    return ActionError("invalid", "mensaje inválido — " + "; ".join(parts), 422)


def _field_name(loc: tuple[Any, ...]) -> str:
    """The field an error is about, as the page sends it (``settings.players``); «mensaje», all."""
    steps = [str(step) for step in loc]
    if steps and steps[0] in _PLACES:
        steps = steps[1:]
    return ".".join(step for step in steps if step not in _BRANCHES) or "mensaje"


def _field_problem(errors: list[Any]) -> str:
    """What is wrong with one field, in Spanish; several errors are the branches of a union."""
    kinds = [_KINDS.get(e.get("type")) for e in errors]
    if all(kinds):
        return "tiene que ser " + " o ".join(dict.fromkeys(str(k) for k in kinds))
    return _problem_text(errors[0])


def _problem_text(error: Any) -> str:
    """One pydantic error in Spanish, from its type and ``ctx``; a generic text if not known."""
    kind = error.get("type")
    if kind in schemas.OWN_ERRORS:
        return str(error.get("msg"))
    ctx = {key: _spanish_or(value) for key, value in (error.get("ctx") or {}).items()}
    try:
        return _TEMPLATES.get(kind, _UNKNOWN).format(**ctx)
    except (KeyError, IndexError, ValueError):
        return _UNKNOWN


def _spanish_or(value: Any) -> Any:
    """pydantic's lists of expected values end in English: «2, 4 or 6» -> «2, 4 o 6»."""
    return " o ".join(value.rsplit(" or ", 1)) if isinstance(value, str) else value


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


def _client(request: Request | WebSocket) -> str:
    return request.client.host if request.client else "unknown"


def build_router(service: TableService, hub: Hub, guard: PinGuard, limiter: RateLimiter,
                 max_bytes: int, host_addresses: frozenset[str] = LOOPBACK) -> APIRouter:
    router = APIRouter()
    handler = MessageHandler(service, guard, limiter, max_bytes)

    def authorised(request: Request, x_table_pin: str | None = Header(default=None)) -> None:
        if not limiter.allow(f"http:{_client(request)}"):
            raise ActionError("rate-limited", "demasiados cambios seguidos; esperá un momento",
                              429)
        require_pin(guard, x_table_pin, _client(request))

    auth = [Depends(authorised)]
    _read_routes(router, service, guard, host_addresses)
    _hand_routes(router, service, auth)
    _game_routes(router, service, auth)
    _pin_routes(router, guard, auth)

    @router.post("/api/actions")
    async def action(request: Request, x_table_pin: str | None = Header(default=None)) -> Any:
        host = _client(request)
        reply = await handler.handle(await request.body(), f"http:{host}", host, x_table_pin)
        if "error" not in reply:
            return JSONResponse(service.snapshot())
        return JSONResponse({"error": reply["error"]}, status_code=reply["status"])

    @router.websocket("/ws")
    async def websocket(ws: WebSocket) -> None:
        await _serve_page(ws, service, hub, handler, limiter)

    return router


def _read_routes(router: APIRouter, service: TableService, guard: PinGuard,
                 host_addresses: frozenset[str]) -> None:
    @router.get("/api/state")
    def state() -> Any:
        return Response(service.current()[1], media_type="application/json")

    @router.get("/api/games")
    def games(before: Annotated[int | None, Query(ge=1, le=schemas.MAX_ROW)] = None) -> Any:
        return service.list_games(before)

    @router.get("/api/games/{game_id}/log")
    def game_log(game_id: schemas.RowId) -> Any:
        return {"game_id": game_id, "log": service.game_log(game_id)}

    @router.get("/api/games/{game_id}/replay")
    def game_record(game_id: schemas.RowId) -> Any:
        name = record.file_name(game_id)
        return Response(service.game_record(game_id), media_type="text/plain; charset=utf-8",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    @router.get("/api/games/{game_id}/evidence")
    def game_evidence(game_id: schemas.RowId) -> Any:
        name = record.evidence_name(game_id)
        zipped = service.game_evidence(game_id)
        size = zipped.seek(0, 2)
        zipped.seek(0)
        return StreamingResponse(iter(lambda: zipped.read(1 << 16), b""),
                                 media_type="application/zip",
                                 headers={"Content-Disposition": f'attachment; filename="{name}"',
                                          "Content-Length": str(size)},
                                 background=BackgroundTask(zipped.close))

    @router.get("/api/heard")
    def heard() -> Any:
        return {"heard": service.snapshot().get("heard", [])}

    @router.get("/api/heard/history")
    def heard_history() -> Any:
        return service.heard_history()

    @router.get("/api/clips/{clip_id}")
    def clip(clip_id: str) -> Any:
        found = service.clip(clip_id)
        if found is None:
            raise ActionError("no-such-clip", f"no hay audio ni foto con el id {clip_id!r}", 404)
        data, mime = found
        kind = record.EXTENSION.get(mime, "bin")
        return Response(data, media_type=mime,
                        headers={"Content-Disposition": f'inline; filename="{clip_id}.{kind}"'})

    @router.get("/api/calibration/voices/{player}")
    def voice_sample(player: int) -> Any:
        wav = service.voice_sample(player)
        if wav is None:
            raise ActionError("no-such-voice", f"no hay un jugador {player} entre las voces "
                              "calibradas guardadas", 404)
        return Response(wav, media_type="audio/wav",
                        headers={"Content-Disposition": f'inline; filename="jugador-{player}.wav"'})

    @router.get("/api/pin")
    def host_pin(request: Request) -> Any:
        if _client(request) not in host_addresses:
            raise ActionError("host-only", "el PIN sólo se muestra en la máquina que sirve", 403)
        return {"pin": guard.pin}


def _snap(fn: Callable[[], dict[str, Any]]) -> JSONResponse:
    return JSONResponse(fn())


def _hand_routes(router: APIRouter, service: TableService, auth: list[Any]) -> None:
    """What is done to the hand in play: a line, an undo, a flipped seat or answer."""
    # ``seq``: the snapshot the page showed; the change is refused if the table moved since
    @router.post("/api/events", dependencies=auth)
    def event(body: schemas.EventIn, seq: Seen = None) -> Any:
        return _snap(lambda: service.submit_line(body.line, "page", seq))

    @router.post("/api/undo", dependencies=auth)
    def undo(seq: Seen = None) -> Any:
        return _snap(lambda: service.undo("page", seq))

    @router.post("/api/flip", dependencies=auth)
    def flip(seq: Seen = None) -> Any:
        return _snap(lambda: service.flip_last("page", seq))

    @router.post("/api/swap", dependencies=auth)
    def swap(seq: Seen = None, body: schemas.SwapIn | None = None) -> Any:
        return _snap(lambda: service.swap_answer("page", seq, body.to if body else None))

    @router.post("/api/seat", dependencies=auth)
    def seat(body: schemas.SeatIn, seq: Seen = None) -> Any:
        return _snap(lambda: service.give_last_to(body.seat, "page", seq))


def _game_routes(router: APIRouter, service: TableService, auth: list[Any]) -> None:
    """The games and what the referee heard: names, settings, a new or stored game, a heard call
    confirmed or dismissed, the table's last sound heard again, and the voices calibrated."""
    @router.put("/api/names", dependencies=auth)
    def names(body: schemas.NamesIn) -> Any:
        return _snap(lambda: service.set_names(body.model_dump()))

    @router.post("/api/settings", dependencies=auth)
    def settings(body: schemas.SettingsIn) -> Any:
        return _snap(lambda: service.new_game(body.given()))

    @router.post("/api/games", dependencies=auth)
    def new_game(body: schemas.NewGameIn | None = None) -> Any:
        settings = body.settings.given() if body and body.settings else None
        names = body.names.model_dump() if body and body.names else None
        return _snap(lambda: service.new_game(settings, names))

    @router.post("/api/games/{game_id}/open", dependencies=auth)
    def open_game(game_id: schemas.RowId) -> Any:
        return _snap(lambda: service.open_game(game_id))

    @router.delete("/api/games/{game_id}", dependencies=auth)
    def delete_game(game_id: schemas.RowId) -> Any:
        return _snap(lambda: service.delete_game(game_id))

    @router.post("/api/heard/{heard_id}/confirm", dependencies=auth)
    def confirm(heard_id: schemas.RowId, body: schemas.ConfirmIn | None = None) -> Any:
        instead = body.instead if body else None
        return _snap(lambda: service.confirm_heard(heard_id, "confirm", instead))

    @router.post("/api/heard/{heard_id}/dismiss", dependencies=auth)
    def dismiss(heard_id: schemas.RowId) -> Any:
        return _snap(lambda: service.dismiss_heard(heard_id))

    @router.post("/api/table-audio", dependencies=auth)
    def table_audio(body: schemas.TableAudioIn) -> Any:
        replay = service.table_sound(body.seconds)
        return Response(replay.wav, media_type="audio/wav",
                        headers={"Cache-Control": "no-store", "X-Table-Audio": replay.id})

    @router.post("/api/table-audio/keep", dependencies=auth)
    def keep_table_audio(body: schemas.TableAudioKeepIn) -> Any:
        return _snap(lambda: service.keep_table_sound(body.id))

    @router.post("/api/calibration", dependencies=auth)
    def calibration(body: schemas.CalibrationIn) -> Any:
        return _snap(lambda: service.calibrate(body.action, body.players, body.index, body.kept,
                                               body.name))


def _pin_routes(router: APIRouter, guard: PinGuard, auth: list[Any]) -> None:
    """The tablet's PIN: checked, or changed."""
    @router.post("/api/pin/check", dependencies=auth)
    def check_pin() -> Any:
        return {"ok": True}

    @router.put("/api/pin", dependencies=auth)
    def change_pin(body: schemas.PinIn) -> Any:
        try:
            guard.change(body.pin)
        except sqlite3.Error as err:
            raise store_failed(err) from err
        return {"ok": True}


async def _serve_page(ws: WebSocket, service: TableService, hub: Hub, handler: MessageHandler,
                      limiter: RateLimiter) -> None:
    """Send the page every snapshot; answer the commands it sends."""
    await ws.accept()
    hub.bind_if_unbound(asyncio.get_running_loop())  # when the app runs without its lifespan
    seq, text = service.current()
    sub = hub.subscribe(ws.send_text, seq, text)
    sender = asyncio.create_task(sub.run())
    key = f"ws:{id(ws)}"
    try:
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                break
            raw = message.get("text")
            if raw is None:
                raw = message.get("bytes") or b""
            reply = await handler.handle(raw, key, _client(ws))
            reply.pop("status", None)
            sub.reply(json.dumps(reply, ensure_ascii=False))
    finally:
        hub.unsubscribe(sub)
        limiter.forget(key)
        sender.cancel()
