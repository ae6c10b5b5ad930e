"""HTTP and WebSocket routes: reading is open to all, changing needs the table PIN."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import sqlite3
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Query, Request, WebSocket
from fastapi.responses import JSONResponse, Response, StreamingResponse
from starlette.background import BackgroundTask

from web_scoreboard import record, schemas
from web_scoreboard.access import PinGuard, RateLimiter
from web_scoreboard.hub import Hub
from web_scoreboard.messages import MessageHandler, require_pin
from web_scoreboard.service import ActionError, TableService, store_failed

# Pages opened from these addresses are on the serving machine: they may read the PIN.
LOOPBACK = frozenset({"127.0.0.1", "::1", "localhost"})
# The snapshot a page showed when it asked to change the last line (``?seq=``).
Seen = Annotated[int | None, Query(ge=0, le=schemas.MAX_ROW)]


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
    def clip(clip_id: str, request: Request) -> Any:
        found = service.clip(clip_id)
        if found is None:
            raise ActionError("no-such-clip", f"no hay audio ni foto con el id {clip_id!r}", 404)
        data, mime = found
        kind = record.EXTENSION.get(mime, "bin")
        return _media(request, data, mime, f"{clip_id}.{kind}")

    @router.get("/api/calibration/voices/{player}")
    def voice_sample(player: int, request: Request) -> Any:
        wav = service.voice_sample(player)
        if wav is None:
            raise ActionError("no-such-voice", f"no hay un jugador {player} entre las voces "
                              "calibradas guardadas", 404)
        return _media(request, wav, "audio/wav", f"jugador-{player}.wav")

    @router.get("/api/pin")
    def host_pin(request: Request) -> Any:
        if _client(request) not in host_addresses:
            raise ActionError("host-only", "el PIN sólo se muestra en la máquina que sirve", 403)
        return {"pin": guard.pin}


def _media(request: Request, data: bytes, mime: str, name: str) -> Response:
    """A clip, a picture or a voice, whole or the one byte range asked for: Safari plays audio
    only from a server that answers ``Range: bytes=0-1`` with a 206."""
    headers = {"Content-Disposition": f'inline; filename="{name}"', "Accept-Ranges": "bytes"}
    span = _byte_range(request.headers.get("range", ""), len(data))
    if span is None:  # none asked, several, or malformed: all of it
        return Response(data, media_type=mime, headers=headers)
    start, end = span
    if start > end:
        error = ActionError("bad-range", f"el rango pedido cae fuera del archivo, que tiene "
                            f"{len(data)} bytes", 416)
        return JSONResponse(error.to_dict(), status_code=416,
                            headers={"Content-Range": f"bytes */{len(data)}"})
    headers["Content-Range"] = f"bytes {start}-{end}/{len(data)}"
    return Response(data[start:end + 1], status_code=206, media_type=mime, headers=headers)


def _byte_range(header: str, size: int) -> tuple[int, int] | None:
    """The first and last byte of one ``bytes=a-b``, ``a-`` or ``-n`` range (first > last when
    it starts past the end); None for anything else, which is then ignored."""
    found = re.fullmatch(r"bytes=(\d*)-(\d*)", header.strip())
    if found is None or found.groups() == ("", ""):
        return None
    first, last = found.groups()
    if not first:
        return max(size - int(last), 0), size - 1
    if last and int(last) < int(first):
        return None
    return int(first), min(int(last), size - 1) if last else size - 1


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
            if not sub.reply(json.dumps(reply, ensure_ascii=False)):
                # it sends and never reads (or is gone): its answers would pile up unbounded
                with contextlib.suppress(RuntimeError, OSError):
                    await ws.close(1008, "la página no lee lo que se le manda")
                break
    finally:
        hub.unsubscribe(sub)
        limiter.forget(key)
        sender.cancel()
