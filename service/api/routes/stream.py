"""WS /v1/games/{id}/stream: catch-up from ?after=SEQ, then live envelopes for the caller's view.

Authentication never goes in the URL: send ``Authorization: Bearer <token>`` (non-browser clients) or
offer the subprotocols ``salvo.v1`` and ``salvo.token.<token>`` (browsers); no token is a spectator.
Messages and close codes: openapi/websocket.md.
"""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, WebSocket
from starlette.routing import WebSocketRoute

from service.events.application import audience_key
from service.events.errors import AppError, InvalidRequest
from service.events.inputs import INT64_MAX
from service.events.storage_faults import StorageFull, StorageUnavailable

from ..deps import bearer
from ..fast.direct_stream import DirectStream, run_direct
from ..fast.rawsocket import raw_socket
from ..security import origin_allowed
from ..streaming import POLICY_CODE, RESUME_CODE, Stream, accepted_subprotocol, error_message, offered_token


def _after(raw: str | None) -> int | None:
    """?after=SEQ: an integer from 0 to 2**63-1 (absent: 0); None when it is not one."""
    if raw is None:
        return 0
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 19 and int(raw) <= INT64_MAX else None


def _nothing() -> None:
    return None


async def stream(ws: WebSocket) -> None:
    """A plain Starlette websocket endpoint, not a FastAPI one: a live socket keeps its handler's frames
    for its whole life, and FastAPI's dependency machinery (its exit stacks, its solved parameters) is
    several KB per socket held for nothing."""
    game_id: str = ws.path_params["game_id"]
    after = _after(ws.query_params.get("after"))
    if after is None:  # before the handshake, as a failed parameter validation was
        await ws.close(code=POLICY_CODE, reason="after: an integer from 0 to 2**63-1")
        return
    state = ws.app.state
    settings = state.settings
    if not origin_allowed(ws.headers.get("origin"), ws.headers.get("host"), settings.ws_origins):
        await ws.close(code=POLICY_CODE)  # before the handshake: the browser sees a 403
        return
    token = bearer(ws.headers.get("authorization")) or offered_token(ws)
    address = ws.client.host if ws.client else "unknown"
    try:
        if "token" in ws.query_params:
            raise InvalidRequest(
                "a token in the URL ends up in logs: send it in the Authorization header "
                "or as the subprotocol salvo.token.<token>",
                field="token",
            )
        viewer = await state.gate.viewer(game_id, token, address)
    except AppError as exc:
        await ws.accept(subprotocol=accepted_subprotocol(ws))
        await ws.send_text(error_message(exc))
        if isinstance(exc, StorageUnavailable | StorageFull):  # not the client's fault: come back later
            await ws.close(code=RESUME_CODE, reason=f"storage unavailable; resume after={after}")
        else:
            await ws.close(code=POLICY_CODE, reason=exc.title)
        return
    await ws.accept(subprotocol=accepted_subprotocol(ws))
    broadcaster = state.broadcaster
    sockets = state.metrics.sockets.labels(viewer.kind)
    raw, fanout = raw_socket(ws.scope), getattr(broadcaster, "fanout", None)
    # the spectators' channel, live (issue 39): spectators' and the umpire's sockets, never a seat's
    chat = getattr(state, "spectator_chat", None) if viewer.kind != "seat" else None
    if raw is not None and fanout is not None and settings.fast_path:  # pre-framed bytes to the transport
        direct = DirectStream(ws, game_id, viewer, token, after, raw, fanout)
        sockets.inc()
        unlisten = chat.listen(game_id, direct.write) if chat is not None else _nothing

        def ended() -> None:
            sockets.dec()
            unlisten()

        if direct.detach(on_end=ended):  # no await since accept: Salvo's protocol reads it from now on
            return  # the connection outlives this task (api/fast/wsprotocol.py)
        try:
            await run_direct(direct)
        finally:
            ended()
        return
    # the normal send path (no reachable transport, e.g. the TestClient): a queue per socket.
    # Subscribed before catch-up: nothing falls between
    sub = broadcaster.subscribe(game_id, settings.ws_queue_size, audience_key(viewer))
    s = Stream(ws, game_id, viewer, token, after)
    unlisten = chat.listen(game_id, chat.sender(s.send)) if chat is not None else _nothing
    sub.view = s.view_key  # frames=view: its audience's view is encoded with each update
    sockets.inc()
    watcher = asyncio.create_task(s.watch_client(sub))
    try:
        await s.run(sub)
    finally:
        watcher.cancel()
        broadcaster.unsubscribe(sub)
        sockets.dec()
        unlisten()


router = APIRouter(tags=["stream"])
router.routes.append(WebSocketRoute("/v1/games/{game_id}/stream", stream))
