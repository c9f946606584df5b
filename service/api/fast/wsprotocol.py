"""Salvo's websocket protocol for uvicorn (its ``ws`` setting): uvicorn's websockets-sansio protocol up
to and including the handshake (so authentication, ``accept`` and subprotocols still go through ASGI),
after which a live stream may *detach* the connection from ASGI.

Detached, the transport is handed (``transport.set_protocol``) to a ``Wire``: a slotted protocol that
parses the client's frames itself (RFC 6455: masked, ≤ ``max_size``, fragments, ping, close) and calls
the stream straight from ``data_received`` with each complete text message. The ASGI task, its
middleware coroutines, the scope, Starlette's WebSocket, uvicorn's protocol object, its queue and its
websockets parser are all released; a socket is then its transport, a ``Wire`` and the stream. Frames
to the client are written as before (pre-framed, ``fanout``), the close handshake by ``Wire.close``.

A connection that received anything beyond the handshake before it detached (a client that did not
wait for the 101) is not detached: it stays on the ASGI path, which reads it through uvicorn's queue.
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

from uvicorn.protocols.utils import ClientDisconnected
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.speedups import apply_mask

TEXT, BINARY, CONT, CLOSE, PING, PONG = 0x1, 0x2, 0x0, 0x8, 0x9, 0xA
PROTOCOL_ERROR, UNSUPPORTED, NO_STATUS, BAD_DATA, TOO_BIG = 1002, 1003, 1005, 1007, 1009
_CLIENT_CODES = frozenset((1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014))


class WireHandler(Protocol):
    """What a detached stream implements (``direct_stream.DirectStream``)."""

    def on_text(self, payload: bytes) -> None: ...  # one complete text message, not yet UTF-8 checked

    def on_binary(self) -> None: ...

    def on_closing(self) -> None: ...  # a close frame went out or came in: write nothing more

    def on_lost(self) -> None: ...  # the connection is gone: release everything


def _frame(opcode: int, payload: bytes) -> bytes:
    n = len(payload)
    head = 0x80 | opcode
    if n < 126:
        return bytes((head, n)) + payload
    if n < 1 << 16:
        return bytes((head, 126)) + n.to_bytes(2, "big") + payload
    return bytes((head, 127)) + n.to_bytes(8, "big") + payload


def close_payload(code: int, reason: str) -> bytes:
    """Code and reason, the reason cut to the 123 bytes a control frame has room for (on a character)."""
    raw = reason.encode()
    if len(raw) > 123:
        raw = raw[:123].decode("utf-8", "ignore").encode()
    return code.to_bytes(2, "big") + raw


class Wire(asyncio.Protocol):
    """One detached connection. Writes from the stream go to ``transport`` directly; this object only
    reads, answers pings, tracks write pause/resume, and runs the close handshake."""

    __slots__ = (
        "transport",
        "handler",
        "max_size",
        "connections",
        "paused",
        "_drain",
        "_pending",
        "_parts",
        "_size",
        "_opcode",
        "close_sent",
        "lost",
        "_timer",
        "_read_paused",
    )

    def __init__(
        self, transport: asyncio.Transport, handler: WireHandler, max_size: int, connections: set[Any], paused: bool
    ) -> None:
        self.transport = transport
        self.handler = handler
        self.max_size = max_size
        self.connections = connections  # uvicorn's: its shutdown calls ``shutdown`` and waits for us to leave
        self.paused = paused  # the transport's write buffer is above its high-water mark
        self._drain: asyncio.Future[None] | None = None  # made only when someone waits for the drain
        self._pending = b""  # an incomplete frame's bytes
        self._parts: list[bytes] | None = None  # a fragmented message's payloads so far
        self._size = 0
        self._opcode = 0
        self.close_sent = False
        self.lost = False
        self._timer: asyncio.TimerHandle | None = None
        self._read_paused = False

    # --- the stream's side ------------------------------------------------------------------------------

    def ready(self) -> bool:
        return not (self.close_sent or self.lost or self.transport.is_closing())

    async def drained(self) -> None:
        """Until the transport is below its low-water mark again (or the connection is gone)."""
        if not self.paused or self.lost:
            return
        if self._drain is None:
            self._drain = asyncio.get_running_loop().create_future()
        await asyncio.shield(self._drain)

    def pause_reading(self) -> None:
        if not self._read_paused and not self.lost and not self.transport.is_closing():
            self._read_paused = True
            self.transport.pause_reading()

    def resume_reading(self) -> None:
        if self._read_paused and not self.lost and not self.transport.is_closing():
            self._read_paused = False
            self.transport.resume_reading()

    def close(self, code: int, reason: str, timeout: float) -> None:
        """Send the close frame (behind whatever is buffered) and wait ``timeout`` for the client's
        answer; a client that has not answered (or read its backlog) by then is dropped."""
        if self.close_sent or self.lost:
            return
        self._send_close(close_payload(code, reason))
        self._timer = asyncio.get_running_loop().call_later(timeout, self._expire)

    def _send_close(self, payload: bytes) -> None:
        self.close_sent = True
        self.handler.on_closing()
        if not self.transport.is_closing():
            self.transport.write(_frame(CLOSE, payload))
        self.resume_reading()  # to read the answer

    def _expire(self) -> None:
        self._timer = None
        if not self.lost:
            self.transport.abort()

    def shutdown(self) -> None:
        """uvicorn's graceful shutdown (after ours closed every stream with 1012 and its resume seq)."""
        if not self.close_sent and not self.lost:
            self._send_close(close_payload(1012, ""))
        self.transport.close()

    # --- asyncio.Protocol -------------------------------------------------------------------------------

    def pause_writing(self) -> None:
        self.paused = True

    def resume_writing(self) -> None:
        self.paused = False
        self._wake()

    def _wake(self) -> None:
        drain, self._drain = self._drain, None
        if drain is not None and not drain.done():
            drain.set_result(None)

    def eof_received(self) -> bool | None:
        return None  # the transport closes; connection_lost follows

    def connection_lost(self, exc: Exception | None) -> None:
        if self.lost:
            return
        self.lost = True
        self.paused = False
        self._wake()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.connections.discard(self)
        handler = self.handler
        self.handler = _Gone()  # break the cycle: nothing reaches the stream after this
        handler.on_lost()

    def data_received(self, data: bytes) -> None:
        n = len(data)
        # the usual read: one whole masked text message under 126 bytes (a command), nothing pending, no
        # fragmented message, no close: straight on, as ``_frames`` would (its checks, in short)
        if (
            6 <= n <= 131
            and data[0] == 0x81
            and data[1] == n + 0x7A
            and not self._pending
            and self._parts is None
            and not self.close_sent
            and n - 6 <= self.max_size
            and not self.transport.is_closing()
        ):
            self.handler.on_text(apply_mask(data[6:], data[2:6]))
            return
        self._frames(data)

    def _frames(self, data: bytes) -> None:
        """Whatever the bytes hold: frames (complete ones handled, the rest kept for the next read)."""
        buf = self._pending + data if self._pending else data
        end, at = len(buf), 0
        transport = self.transport
        while end - at >= 2 and not transport.is_closing():  # past a close or a failure: no more
            b0 = buf[at]
            header = self._header(buf, at, end)
            if header is None:  # not all there yet, or refused (``_fail``: the transport closes)
                break
            length, head = header
            stop = head + 4 + length
            if end < stop:
                break
            payload = apply_mask(buf[head + 4 : stop], buf[head : head + 4])
            at = stop
            if b0 == 0x81 and self._parts is None and not self.close_sent:  # the usual: a whole text message
                self.handler.on_text(payload)
            else:
                self._frame_in(b0 & 0x80, b0 & 0x0F, payload)
        self._pending = buf[at:] if at < end and not transport.is_closing() else b""

    def _header(self, buf: bytes, at: int, end: int) -> tuple[int, int] | None:
        """The payload length of the frame at ``at`` and where its mask starts; None when its header is
        not all there yet, or when the frame is refused (``_fail``: the transport closes)."""
        b0, b1 = buf[at], buf[at + 1]
        length, head = b1 & 0x7F, at + 2
        if b0 & 0x70 or not b1 & 0x80:  # reserved bits (no extension is negotiated), or unmasked
            self._fail(PROTOCOL_ERROR, "reserved bits set" if b0 & 0x70 else "unmasked frame")
            return None
        if length == 126:
            if end - head < 2:
                return None
            length, head = int.from_bytes(buf[head : head + 2], "big"), head + 2
        elif length == 127:
            if end - head < 8:
                return None
            length, head = int.from_bytes(buf[head : head + 8], "big"), head + 8
        if b0 & 0x0F >= CLOSE:
            if length > 125 or not b0 & 0x80:
                self._fail(PROTOCOL_ERROR, "bad control frame")
                return None
        elif self._size + length > self.max_size:  # before buffering it: a huge frame never accumulates
            self._fail(TOO_BIG, f"messages are limited to {self.max_size} bytes")
            return None
        return length, head

    def _frame_in(self, fin: int, opcode: int, payload: bytes) -> None:
        if opcode == TEXT or opcode == BINARY:
            if self._parts is not None:
                return self._fail(PROTOCOL_ERROR, "a new message inside a fragmented one")
            if fin:
                return self._message(opcode, payload)
            self._parts, self._size, self._opcode = [payload], len(payload), opcode
        elif opcode == CONT:
            self._continuation(fin, payload)
        elif opcode == PING:
            if not self.close_sent:
                self.transport.write(_frame(PONG, payload))
        elif opcode == PONG:
            pass
        elif opcode == CLOSE:
            self._close_in(payload)
        else:
            self._fail(PROTOCOL_ERROR, f"unknown opcode {opcode}")

    def _continuation(self, fin: int, payload: bytes) -> None:
        parts = self._parts
        if parts is None:
            return self._fail(PROTOCOL_ERROR, "a continuation with no message")
        parts.append(payload)
        self._size += len(payload)
        if fin:
            self._parts, self._size = None, 0
            self._message(self._opcode, b"".join(parts))

    def _message(self, opcode: int, payload: bytes) -> None:
        if self.close_sent:
            return  # past our close: discarded, the reading goes on until the client's close
        if opcode == TEXT:
            self.handler.on_text(payload)
        else:
            self.handler.on_binary()

    def _close_in(self, payload: bytes) -> None:
        if self.close_sent:  # the answer to ours: the handshake is complete
            self.transport.close()
            return
        if len(payload) == 1:
            return self._fail(PROTOCOL_ERROR, "bad close frame")
        if payload:
            code = int.from_bytes(payload[:2], "big")
            if code not in _CLIENT_CODES and not 3000 <= code <= 4999:
                return self._fail(PROTOCOL_ERROR, f"bad close code {code}")
            try:
                payload[2:].decode()
            except UnicodeDecodeError:
                return self._fail(BAD_DATA, "close reason is not UTF-8")
        self._send_close(payload[:2])  # echo the code (none for none)
        self.transport.close()

    def _fail(self, code: int, reason: str) -> None:
        """A frame we will not take: close with its code and stop reading this connection's data."""
        self._pending, self._parts = b"", None
        if not self.close_sent:
            self._send_close(close_payload(code, reason))
            self._timer = asyncio.get_running_loop().call_later(5.0, self._expire)
        self.pause_reading()
        self.transport.close()


class _Gone:
    def on_text(self, payload: bytes) -> None: ...

    def on_binary(self) -> None: ...

    def on_closing(self) -> None: ...

    def on_lost(self) -> None: ...


class SalvoWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's websockets-sansio protocol, plus ``detach``."""

    detached = False

    def detach(self, handler: WireHandler) -> Wire | None:
        """Hand the connection to a ``Wire`` calling ``handler``; None when it cannot be (not straight
        after the handshake, or something was received already). Call with no await since ``accept``."""
        if not self.handshake_complete or self.close_sent or self.disconnected or self.transport.is_closing():
            return None
        reader = getattr(self.conn, "reader", None)  # websockets' unparsed bytes (a changed layout: no detach)
        if not self.queue.empty() or self.frames or reader is None or getattr(reader, "buffer", True):
            return None
        self.stop_keepalive()
        wire = Wire(self.transport, handler, self.config.ws_max_size, self.connections, not self.writable.is_set())
        self.detached = True
        self.transport.set_protocol(wire)
        if self.read_paused:
            self.read_paused = False
            self.transport.resume_reading()
        self.connections.discard(self)
        self.connections.add(wire)  # type: ignore[arg-type]  # uvicorn only calls shutdown() on it
        return wire

    async def run_asgi(self) -> None:
        """As uvicorn's, except that a detached connection outlives the app's return."""
        try:
            result = await self.app(self.scope, self.receive, self.send)
        except ClientDisconnected:
            pass
        except BaseException:
            self.logger.exception("Exception in ASGI application\n")
            self.send_500_response()
        else:
            if self.detached:
                return
            if not self.handshake_complete:
                self.logger.error("ASGI callable returned without completing handshake.")
                self.send_500_response()
            elif result is not None:
                self.logger.error("ASGI callable should return None, but returned '%s'.", result)
        if self.detached:
            return
        if self.close_timer is None:
            self.transport.close()
