"""A detached ``DirectStream`` (as ``wsprotocol`` leaves it after the handshake) on a fake transport, with
a stand-in gate: the socket side of a websocket command alone (``Wire.data_received`` → ``on_text`` →
the socket's worker → ``reply`` → ``transport.write``), for tests.

    stream, transport = detached_stream(gate, "g1")
    transport.wire.data_received(masked(b'{"kind":"command",...}'))
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import types
from collections.abc import Callable
from typing import Any

from websockets.speedups import apply_mask

from service.api.fast.direct_stream import DirectStream
from service.api.fast.fanout import Fanout
from service.api.fast.rawsocket import RawSocket
from service.api.fast.wsprotocol import Wire
from service.domain.core import Viewer, seat
from service.settings import Settings

MASK = b"\x11\x22\x33\x44"


def masked(payload: bytes, opcode: int = 0x1) -> bytes:
    """A client's (masked, unfragmented) frame."""
    n = len(payload)
    head = bytes((0x80 | opcode, 0x80 | n)) if n < 126 else bytes((0x80 | opcode, 0x80 | 126)) + n.to_bytes(2, "big")
    return head + MASK + apply_mask(payload, MASK)


class FakeTransport:
    """Keeps what is written; ``on_write`` (if set) is called with each write, after it is kept."""

    def __init__(self) -> None:
        self.wire: Wire | None = None
        self.chunks: list[bytes] = []
        self.on_write: Callable[[bytes], None] | None = None
        self.closing = False
        self.buffered = 0

    def write(self, data: bytes) -> None:
        self.chunks.append(data)
        if self.on_write is not None:
            self.on_write(data)

    def get_write_buffer_size(self) -> int:
        return self.buffered

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True

    def pause_reading(self) -> None: ...

    def resume_reading(self) -> None: ...

    def abort(self) -> None:
        self.closing = True

    def set_protocol(self, protocol: Any) -> None: ...

    def messages(self) -> list[Any]:
        """The unmasked text frames written, parsed (what the client reads)."""
        return text_frames(self.chunks)


def text_frames(chunks: list[bytes]) -> list[Any]:
    """Server-to-client (unmasked) text frames in the bytes written, each parsed as JSON."""
    out, data = [], b"".join(chunks)
    while data:
        assert data[0] == 0x81, data[:2]
        n, at = data[1], 2
        if n == 126:
            n, at = int.from_bytes(data[2:4], "big"), 4
        elif n == 127:
            n, at = int.from_bytes(data[2:10], "big"), 10
        out.append(json.loads(data[at : at + n]))
        data = data[at + n :]
    return out


def detached_stream(
    gate: Any,
    game_id: str,
    viewer: Viewer | None = None,
    *,
    own_events: bool = True,
    settings: Settings | None = None,
    fanout: Fanout | None = None,
    last: int = 0,
) -> tuple[DirectStream, FakeTransport]:
    """A live (caught up at ``last``), detached stream whose commands go to ``gate.command``. Call inside
    the running loop."""
    settings = settings or Settings()
    state = types.SimpleNamespace(settings=settings, reader=None, gate=gate, metrics=None)
    ws = types.SimpleNamespace(
        app=types.SimpleNamespace(state=state),
        client=types.SimpleNamespace(host="127.0.0.1"),
        query_params={"own_events": "result"} if own_events else {},
    )
    transport = FakeTransport()
    raw = RawSocket(transport, asyncio.Event(), None)
    raw.writable.set()
    stream = DirectStream(
        ws,
        game_id,
        viewer or seat("red"),
        "token",
        last,
        raw,  # type: ignore[arg-type]
        fanout or Fanout(1 << 20),
    )
    wire = Wire(transport, stream, settings.max_body_bytes, set(), False)  # type: ignore[arg-type]
    transport.wire = wire
    stream.wire, stream.raw, stream.ws = wire, wire, None  # type: ignore[assignment]
    stream._context = contextvars.copy_context()
    stream.fanout.add(game_id, stream.sink)
    stream._caught_up_sent, stream.sink.behind = True, False
    return stream, transport
