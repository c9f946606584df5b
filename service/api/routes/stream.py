"""WS /v1/games/{id}/stream: catch-up from ?after=SEQ, then live envelopes for the caller's view.

Messages: {"kind":"event","event":ENVELOPE}, {"kind":"caught_up","seq":N}, {"kind":"ping"},
{"kind":"error",...}. A client may also send commands ({"kind":"command",...}) and gets a "result" or
an "error". A client too slow for its bounded queue is closed with code 1013 and a reason
"resume after=N"; reconnecting with that ``after`` loses and repeats nothing.
"""

from __future__ import annotations

import asyncio

import msgspec
from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from service.domain.core import RuleViolation, Viewer
from service.events.application import GameService, audience_key
from service.events.errors import AppError, InvalidRequest, field_of

from ..deps import bearer

router = APIRouter(tags=["stream"])
CATCH_UP_PAGE = 500
RESUME_CODE = 1013  # "try again later": the client should reconnect with after=<last seq seen>
_encode = msgspec.json.Encoder().encode


class _Stream:
    def __init__(self, ws: WebSocket, viewer: Viewer, last: int) -> None:
        self.ws = ws
        self.viewer = viewer
        self.audience = audience_key(viewer)
        self.last = last  # the last seq accounted for (sent, or hidden from this viewer)
        self.settings = ws.app.state.settings
        self.reader = ws.app.state.reader

    async def send(self, text: str) -> None:
        await asyncio.wait_for(self.ws.send_text(text), self.settings.ws_send_timeout)

    async def catch_up(self, game_id: str, upto: int | None = None) -> None:
        """Send everything after ``last`` from the store (up to ``upto``), in pages."""
        while upto is None or self.last < upto:
            # the store, not a cached head, says how far the log goes (another replica may have written)
            stored = await self.reader.store.head(game_id)
            target = stored if upto is None else min(upto, stored)
            if self.last >= target:
                return
            page_end = min(target, self.last + CATCH_UP_PAGE)
            for env in await self.reader.events(game_id, self.viewer, after=self.last, upto=page_end):
                await self.send(_encode({"kind": "event", "event": env}).decode())
            self.last = page_end


class _SocketCommand(msgspec.Struct, forbid_unknown_fields=True):
    kind: str
    command: msgspec.Raw
    ref: str | None = None
    salt: str = ""
    idempotency_key: str | None = None
    expected_version: int | None = None


async def _command(service: GameService, game_id: str, viewer: Viewer, text: str) -> str:
    """{"kind":"command","command":{...},"ref":"r1"} → {"kind":"result","ref":"r1","version":N,"events":[…]}
    or {"kind":"error","ref":"r1",problem…}: the same decide path and errors as POST /commands."""
    ref = None
    try:
        request = msgspec.json.decode(text, type=_SocketCommand)
        ref = request.ref
        if request.kind != "command":
            raise InvalidRequest(f"unknown message kind {request.kind!r}", field="kind")
        body = b'{"command":' + bytes(request.command) + b',"salt":' + msgspec.json.encode(request.salt) + b"}"
        result = await service.handle_command(game_id, viewer, body, request.idempotency_key,
                                              request.expected_version)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        return _encode({"kind": "error", "ref": ref, "status": 422, "title": "Malformed message",
                        "detail": str(exc), "field": field_of(str(exc))}).decode()
    except RuleViolation as exc:
        return _encode({"kind": "error", "ref": ref, "status": exc.status, "title": "Rule violation",
                        "detail": exc.detail, "rule": exc.rule}).decode()
    except AppError as exc:
        return _encode({"kind": "error", "ref": ref, "status": exc.status, "title": exc.title,
                        "detail": exc.detail, "field": exc.field}).decode()
    answer = msgspec.json.decode(result.body)
    return _encode({"kind": "result", "ref": ref, **answer}).decode()


@router.websocket("/v1/games/{game_id}/stream")
async def stream(ws: WebSocket, game_id: str, after: int = 0, token: str | None = None) -> None:
    app = ws.app
    try:
        viewer = await app.state.service.authenticate(game_id, token or bearer(ws.headers.get("authorization")))
    except AppError as exc:
        await ws.accept()
        await ws.send_text(_encode({"kind": "error", "status": exc.status, "title": exc.title,
                                    "detail": exc.detail}).decode())
        await ws.close(code=1008, reason=exc.title)
        return
    await ws.accept()
    broadcaster = app.state.broadcaster
    settings = app.state.settings
    # before catch-up: nothing falls between
    sub = broadcaster.subscribe(game_id, settings.ws_queue_size, audience_key(viewer))
    s = _Stream(ws, viewer, max(0, after))

    async def watch_client() -> None:
        """Reads what the client sends: commands (answered on this socket) and, at once, its close."""
        try:
            while True:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    return
                if message.get("text"):
                    await s.send(await _command(app.state.service, game_id, viewer, message["text"]))
        except (RuntimeError, TimeoutError, WebSocketDisconnect):
            pass
        finally:
            sub.close()

    watcher = asyncio.create_task(watch_client())
    try:
        await s.catch_up(game_id)
        await s.send(_encode({"kind": "caught_up", "seq": s.last}).decode())
        while True:
            item = await sub.next(settings.heartbeat_seconds)
            if sub.closed:
                return
            if sub.overflowed:
                await ws.close(code=RESUME_CODE, reason=f"slow consumer; resume after={s.last}")
                return
            if item is None:
                await s.send('{"kind":"ping"}')
                continue
            seq, frames = item
            if seq <= s.last:
                continue  # already sent during catch-up
            if seq > s.last + 1 or frames is None or s.audience not in frames:
                # a gap, a bare notification, or frames encoded before this socket listened: read the store
                await s.catch_up(game_id, upto=seq)
                continue
            frame = frames.get(s.audience)
            if frame is not None:
                await s.send(frame.decode())
            s.last = seq
    except (WebSocketDisconnect, TimeoutError, RuntimeError):
        return
    finally:
        watcher.cancel()
        broadcaster.unsubscribe(sub)
