"""Live fan-out as pre-framed bytes written straight to the sockets' transports.

Server-to-client websocket frames are unmasked, so one audience's frame (header + payload) is the same
bytes for every socket of that audience: it is built once per event and audience, and each socket costs
one ``transport.write``. No Task, timer or queue per frame: a socket whose transport's write buffer
passes ``limit`` bytes is a slow consumer and is closed (1013 with the seq to resume after) through its
``on_slow`` callback. A socket that is not current (a gap, a bare notification, frames encoded before it
listened) is handed to its ``on_behind`` callback, which reads the store, as today's stream does.

Not wired into routes/stream.py yet (see docs/benchmarks.md): it needs the raw transport of the
accepted websocket, which uvicorn does not put in the ASGI scope.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from .broadcast import Item

TEXT = 0x81  # FIN + text opcode


class Transport(Protocol):
    def write(self, data: bytes) -> None: ...

    def get_write_buffer_size(self) -> int: ...

    def is_closing(self) -> bool: ...


def text_frame(payload: bytes) -> bytes:
    """An unmasked, unfragmented websocket text frame (RFC 6455 §5.2): what the server sends."""
    n = len(payload)
    if n < 126:
        return bytes((TEXT, n)) + payload
    if n < 1 << 16:
        return bytes((TEXT, 126)) + n.to_bytes(2, "big") + payload
    return bytes((TEXT, 127)) + n.to_bytes(8, "big") + payload


@dataclass(eq=False)
class Sink:
    """One socket: its audience, the last seq it has accounted for, and what to do when it cannot be
    written to directly."""

    transport: Transport
    audience: str
    last: int
    on_slow: Callable[[Sink], None]  # close 1013, "resume after=<last>"
    on_behind: Callable[[Sink, int], None]  # read the store up to the seq, then resume live delivery
    behind: bool = False  # while True the socket's own reader owns it; deliver() skips it
    closed: bool = False
    written: int = field(default=0)


class Fanout:
    """Per game: the sinks listening. ``deliver`` is synchronous: nothing waits per socket."""

    def __init__(self, limit: int) -> None:
        self.limit = limit  # write-buffer bytes above which a socket is a slow consumer
        self._sinks: dict[str, set[Sink]] = {}
        self.frames_built = 0  # frames built (once per event and audience, whatever the socket count)

    def add(self, game_id: str, sink: Sink) -> None:
        self._sinks.setdefault(game_id, set()).add(sink)

    def remove(self, game_id: str, sink: Sink) -> None:
        sinks = self._sinks.get(game_id)
        if sinks is not None:
            sinks.discard(sink)
            if not sinks:
                del self._sinks[game_id]

    def listening(self, game_id: str) -> set[str]:
        return {s.audience for s in self._sinks.get(game_id, ())}

    def deliver(self, game_id: str, items: list[Item]) -> None:
        sinks = self._sinks.get(game_id)
        if not sinks:
            return
        for seq, frames in items:
            framed: dict[str, bytes | None] = {}
            for sink in list(sinks):
                if sink.closed or sink.behind or seq <= sink.last:
                    continue
                if seq > sink.last + 1 or frames is None or sink.audience not in frames:
                    sink.behind = True  # its reader catches up from the store, then clears this
                    sink.on_behind(sink, seq)
                    continue
                if sink.audience not in framed:
                    payload = frames[sink.audience]
                    framed[sink.audience] = None if payload is None else text_frame(payload)
                    self.frames_built += payload is not None
                frame = framed[sink.audience]
                if frame is not None:
                    if sink.transport.is_closing():
                        sink.closed = True
                        continue
                    if sink.transport.get_write_buffer_size() > self.limit:
                        sink.closed = True
                        sink.on_slow(sink)  # its resume seq is sink.last: nothing after it was written
                        continue
                    sink.transport.write(frame)
                    sink.written += 1
                sink.last = seq  # sent, or hidden from this audience: accounted for either way
