"""The accepted websocket's own transport, for writing pre-framed bytes to it (``fanout``).

ASGI hands the app only ``send``; uvicorn's websocket protocols (websockets-sansio and wsproto) pass
their bound ``send`` method, so the outermost middleware finds the protocol object as ``send.__self__``
and puts a ``RawSocket`` in the scope. Anything else (another server, another protocol class, the
TestClient) leaves the scope without one and the stream takes the normal send path.

Writing frames beside the protocol is sound because both uvicorn protocols write complete messages
only (no fragmented message is ever open between two of our writes) and keep no per-frame state for
outgoing data frames; the close handshake still goes through ASGI ``websocket.close`` (or, once the
stream has detached from ASGI under Salvo's own protocol, through ``wsprotocol.Wire``).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Protocol

SCOPE_KEY = "salvo.raw_socket"


class RawTransport(Protocol):
    def write(self, data: bytes) -> None: ...

    def get_write_buffer_size(self) -> int: ...

    def is_closing(self) -> bool: ...

    def abort(self) -> None: ...


@dataclass(eq=False, slots=True)
class RawSocket:
    transport: RawTransport
    writable: asyncio.Event  # cleared while the transport is paused above its high-water mark
    protocol: Any = None  # uvicorn's protocol object (its handshake and close state)

    @property
    def paused(self) -> bool:
        """The transport's write buffer is above its high-water mark."""
        return not self.writable.is_set()

    async def drained(self) -> None:
        await self.writable.wait()

    def ready(self) -> bool:
        """Accepted, not closing: frames written now reach the client in order after the handshake."""
        p = self.protocol
        if p is not None and (not getattr(p, "handshake_complete", False) or getattr(p, "close_sent", True)):
            return False
        return not self.transport.is_closing()


def _uvicorn_protocols() -> tuple[type, ...]:
    found: list[type] = []
    try:
        from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

        found.append(WebSocketsSansIOProtocol)
    except ImportError:  # pragma: no cover - websockets not installed
        pass
    try:
        from uvicorn.protocols.websockets.wsproto_impl import WSProtocol

        found.append(WSProtocol)
    except ImportError:  # wsproto not installed
        pass
    return tuple(found)


_PROTOCOLS: tuple[type, ...] | None = None


def from_send(send: Any) -> RawSocket | None:
    """The raw socket behind uvicorn's ``send``, or None when it is not one of the known protocols or
    does not look as expected (a changed uvicorn falls back rather than breaks)."""
    global _PROTOCOLS
    if _PROTOCOLS is None:
        _PROTOCOLS = _uvicorn_protocols()
    protocol = getattr(send, "__self__", None)
    if protocol is None or not isinstance(protocol, _PROTOCOLS):
        return None
    transport = getattr(protocol, "transport", None)
    writable = getattr(protocol, "writable", None)
    if not isinstance(writable, asyncio.Event) or not all(
        callable(getattr(transport, m, None)) for m in ("write", "get_write_buffer_size", "is_closing", "abort")
    ):
        return None
    return RawSocket(transport, writable, protocol)  # type: ignore[arg-type]  # checked above


def raw_socket(scope: Any) -> RawSocket | None:
    raw = scope.get(SCOPE_KEY)
    return raw if isinstance(raw, RawSocket) and raw.ready() else None


class RawSocketMiddleware:
    """Outermost: sees the server's own ``send`` before any middleware wraps it."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "websocket" and SCOPE_KEY not in scope:
            raw = from_send(send)
            if raw is not None:
                scope[SCOPE_KEY] = raw
        await self.app(scope, receive, send)
