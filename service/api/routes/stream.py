"""WS /v1/games/{id}/stream: catch-up from ?after=SEQ, then live envelopes for the caller's view.

Authentication never goes in the URL: send ``Authorization: Bearer <token>`` (non-browser clients) or
offer the subprotocols ``salvo.v1`` and ``salvo.token.<token>`` (browsers); no token is a spectator.
Messages and close codes: openapi/websocket.md.
"""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Query, WebSocket

from service.events.application import audience_key
from service.events.errors import AppError, InvalidRequest
from service.events.inputs import INT64_MAX

from ..deps import bearer
from ..direct_stream import DirectStream, run_direct
from ..rawsocket import raw_socket
from ..security import origin_allowed
from ..streaming import POLICY_CODE, Stream, accepted_subprotocol, error_message, offered_token

router = APIRouter(tags=["stream"])


@router.websocket("/v1/games/{game_id}/stream")
async def stream(ws: WebSocket, game_id: str, after: Annotated[int, Query(ge=0, le=INT64_MAX)] = 0) -> None:
    state = ws.app.state
    settings = state.settings
    if not origin_allowed(ws.headers.get("origin"), ws.headers.get("host"), settings.ws_origins):
        await ws.close(code=POLICY_CODE)  # before the handshake: the browser sees a 403
        return
    token = bearer(ws.headers.get("authorization")) or offered_token(ws)
    address = ws.client.host if ws.client else "unknown"
    try:
        if "token" in ws.query_params:
            raise InvalidRequest("a token in the URL ends up in logs: send it in the Authorization header "
                                 "or as the subprotocol salvo.token.<token>", field="token")
        viewer = await state.gate.viewer(game_id, token, address)
    except AppError as exc:
        await ws.accept(subprotocol=accepted_subprotocol(ws))
        await ws.send_text(error_message(exc))
        await ws.close(code=POLICY_CODE, reason=exc.title)
        return
    await ws.accept(subprotocol=accepted_subprotocol(ws))
    broadcaster = state.broadcaster
    sockets = state.metrics.sockets.labels(viewer.kind)
    raw, fanout = raw_socket(ws.scope), getattr(broadcaster, "fanout", None)
    if raw is not None and fanout is not None:  # pre-framed bytes written to the transport
        sockets.inc()
        try:
            await run_direct(DirectStream(ws, game_id, viewer, token, after, raw, fanout))
        finally:
            sockets.dec()
        return
    # the normal send path (no reachable transport, e.g. the TestClient): a queue per socket.
    # Subscribed before catch-up: nothing falls between
    sub = broadcaster.subscribe(game_id, settings.ws_queue_size, audience_key(viewer))
    s = Stream(ws, game_id, viewer, token, after)
    sockets.inc()
    watcher = asyncio.create_task(s.watch_client(sub))
    try:
        await s.run(sub)
    finally:
        watcher.cancel()
        broadcaster.unsubscribe(sub)
        sockets.dec()
