"""WS /v1/games/{id}/stream: catch-up from ?after=SEQ, then live envelopes for the caller's view.

Messages: {"kind":"event","event":ENVELOPE}, {"kind":"caught_up","seq":N}, {"kind":"ping"},
{"kind":"error",...}. A client too slow for its bounded queue is closed with code 1013 and a reason
"resume after=N"; reconnecting with that ``after`` loses and repeats nothing.
"""

from __future__ import annotations

import asyncio

import msgspec
from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from service.domain.core import Viewer
from service.events.application import audience_key
from service.events.errors import AppError

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
    sub = broadcaster.subscribe(game_id, settings.ws_queue_size)  # before catch-up: nothing falls between
    s = _Stream(ws, viewer, max(0, after))

    async def watch_client() -> None:
        """Clients only ever close; noticing it at once frees the connection (and a server shutdown)."""
        try:
            while (await ws.receive())["type"] != "websocket.disconnect":
                pass
        except RuntimeError:
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
            if seq > s.last + 1 or frames is None:
                await s.catch_up(game_id, upto=seq)  # a gap or a bare notification: read the store
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
