"""uvicorn's httptools protocol, writing each response's head and body in one ``write``.

uvicorn writes the status line and headers when the app sends ``http.response.start`` and the body
when it sends ``http.response.body``: two ``write`` calls, and with uvloop two ``send`` syscalls and
two TCP segments for a response that fits in one. Here the connection's transport holds a response
head back until the next write (the body, in the same turn of the event loop) or, at the latest, the
end of that turn, so the bytes and their order on the wire are the same, only fewer writes carry them.

A websocket upgrade hands the protocol that takes the connection the plain transport (the fan-out
writes frames to it directly, see rawsocket.py).
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


class CoalescingTransport:
    """The connection's transport, holding a response head back for the write that follows it."""

    __slots__ = ("transport", "_held", "_loop")

    def __init__(self, transport: Any, loop: asyncio.AbstractEventLoop) -> None:
        self.transport = transport
        self._held: bytes | None = None
        self._loop = loop

    def write(self, data: bytes) -> None:
        held = self._held
        if held is not None:
            self._held = None
            self.transport.write(held + data)
        elif data[-4:] == b"\r\n\r\n" and data[:5] == b"HTTP/":  # a head: its body comes next
            self._held = data
            self._loop.call_soon(self.flush)
        else:
            self.transport.write(data)

    def flush(self) -> None:
        held = self._held
        if held is not None:
            self._held = None
            self.transport.write(held)

    def close(self) -> None:
        self.flush()
        self.transport.close()

    def get_write_buffer_size(self) -> int:
        return int(self.transport.get_write_buffer_size()) + len(self._held or b"")

    # what uvicorn calls per request, spelled out (a __getattr__ miss costs a microsecond)
    def is_closing(self) -> bool:
        return bool(self.transport.is_closing())

    def pause_reading(self) -> None:
        self.transport.pause_reading()

    def resume_reading(self) -> None:
        self.transport.resume_reading()

    def __getattr__(self, name: str) -> Any:  # everything else is the transport's own
        return getattr(self.transport, name)


class CoalescingHttpToolsProtocol(HttpToolsProtocol):
    def connection_made(self, transport: Any) -> None:  # type: ignore[override]
        super().connection_made(CoalescingTransport(transport, self.loop))  # type: ignore[arg-type]

    def handle_websocket_upgrade(self) -> None:
        coalescing = self.transport
        if isinstance(coalescing, CoalescingTransport):
            coalescing.flush()
            self.transport = coalescing.transport
        super().handle_websocket_upgrade()
