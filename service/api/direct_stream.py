"""A stream written straight to the socket's transport: live events arrive as pre-framed bytes from
``fanout.Fanout`` (built once per audience, one ``transport.write`` per socket), catch-up and results
are framed here and written the same way. Per socket there is the ASGI task (reading what the client
sends), one heartbeat timer, and a Task only while it catches up from the store or closes.

The socket is live (``sink.behind`` False) only when it has everything the fan-out has published for
the game; while it reads the store, or waits for the result of its own command (``own_events=result``),
the fan-out skips it and it catches up afterwards: no gap, no duplicate. A socket whose unsent bytes
pass ``SALVO_WS_BUFFER_LIMIT`` during live delivery, or that does not drain within
``SALVO_WS_SEND_TIMEOUT`` during catch-up, is closed with 1013 and the seq to resume after.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Coroutine
from typing import Any

from fastapi import WebSocket, WebSocketDisconnect

from service.domain.core import Viewer
from service.events.decide_append import CommandResult

from .fanout import Fanout, Sink, text_frame
from .rawsocket import RawSocket
from .streaming import RESTART_CODE, Stream

PING = text_frame(b'{"kind":"ping"}')
INTERNAL_CODE = 1011
log = logging.getLogger("salvo.stream")


class _NoSubscription:
    def close(self) -> None:
        return None


class DirectStream(Stream):
    def __init__(self, ws: WebSocket, game_id: str, viewer: Viewer, token: str | None, after: int,
                 raw: RawSocket, fanout: Fanout) -> None:
        self.raw = raw
        self.fanout = fanout
        # behind from the start: the fan-out skips it until its catch-up has reached what was published
        self.sink = Sink(raw.transport, "", after, on_slow=self._on_slow, on_behind=self._on_behind,
                         on_restart=self._on_restart, behind=True, stamp=time.monotonic())
        super().__init__(ws, game_id, viewer, token, after)
        self.sink.audience = self.audience
        self._pump: asyncio.Task[None] | None = None  # the catch-up in progress, if any
        self._closer: asyncio.Task[None] | None = None
        self._in_flight = 0  # own_events=result commands awaiting their result
        self._caught_up_sent = False
        self._heartbeat: asyncio.TimerHandle | None = None

    # ``last`` is the sink's: the fan-out advances it as it writes
    @property  # type: ignore[override]
    def last(self) -> int:
        return self.sink.last

    @last.setter
    def last(self, seq: int) -> None:
        self.sink.last = seq

    async def serve(self) -> None:
        """Listen, catch up in the background, and read the client until it (or a close) ends it."""
        self.fanout.add(self.game_id, self.sink)
        loop = asyncio.get_running_loop()
        self._heartbeat = loop.call_later(self.settings.heartbeat_seconds, self._beat)
        self._pump = self._spawn(self._catch_up_then_resume())
        try:
            await self.watch_client(_NoSubscription())  # type: ignore[arg-type]
        finally:
            self.sink.closed = True
            self.fanout.remove(self.game_id, self.sink)
            if self._heartbeat is not None:
                self._heartbeat.cancel()
            for task in (self._pump, self._closer):
                if task is not None and not task.done():
                    task.cancel()

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        return asyncio.get_running_loop().create_task(coro)

    # --- writing ---------------------------------------------------------------------------------------

    def write(self, payload: bytes) -> None:
        self.raw.transport.write(text_frame(payload))
        self.sink.stamp = time.monotonic()

    async def send(self, text: str) -> None:
        """Catch-up, snapshot and results: written at once (so in call order), then, when the transport
        is paused above its high-water mark, wait for it to drain (at most ``ws_send_timeout``)."""
        if self.sink.closed or self.raw.transport.is_closing():
            raise WebSocketDisconnect(1006)
        self.write(text.encode())
        if not self.raw.writable.is_set():
            await asyncio.wait_for(self.raw.writable.wait(), self.settings.ws_send_timeout)

    def _beat(self) -> None:
        """The one timer: a ping when nothing was written for ``heartbeat_seconds``."""
        sink, every = self.sink, self.settings.heartbeat_seconds
        if sink.closed:
            return
        idle = time.monotonic() - sink.stamp
        if idle >= every * 0.999 and not sink.behind:
            transport = self.raw.transport
            if transport.is_closing():
                return
            if transport.get_write_buffer_size() > self.fanout.limit:
                sink.closed = True
                self._on_slow(sink)
                return
            transport.write(PING)
            sink.stamp, idle = time.monotonic(), 0.0
        self._heartbeat = asyncio.get_running_loop().call_later(max(every - idle, 0.001), self._beat)

    # --- catching up, and back to live ------------------------------------------------------------------

    async def _catch_up_then_resume(self) -> None:
        try:
            if not self._caught_up_sent:
                if self.join_present:
                    await self.send_present()
                await self.catch_up()
                self.write(b'{"kind":"caught_up","seq":%d}' % self.last)
                self._caught_up_sent = True
            else:  # live again after a gap: up to what was published, hidden seqs announced as the queued path does
                await self.catch_up(upto=max(self.fanout.head(self.game_id), self.last))
        except TimeoutError:  # the client stopped reading during catch-up
            self._pump = None
            self.sink.closed = True
            self._closer = self._spawn(self.slow_consumer())
            return
        except (WebSocketDisconnect, RuntimeError, ConnectionError, asyncio.CancelledError):
            self._pump = None
            return
        except Exception:
            log.exception("catch-up failed")
            self._pump = None
            self.sink.closed = True
            self._closer = self._spawn(self.close(INTERNAL_CODE, f"internal error; resume after={self.last}"))
            return
        self._pump = None
        self._resume()

    def _resume(self) -> None:
        """Back to live delivery if nothing was published past what this socket has; else read more."""
        sink = self.sink
        if self._pump is not None or self._in_flight or sink.closed or not self._caught_up_sent:
            return
        if self.fanout.head(self.game_id) <= sink.last:
            sink.behind = False  # synchronously: the next delivery reaches it
        else:
            self._pump = self._spawn(self._catch_up_then_resume())

    def _on_behind(self, sink: Sink, seq: int) -> None:
        self._resume()

    def _on_slow(self, sink: Sink) -> None:
        if self._closer is None:
            self._closer = self._spawn(self.slow_consumer())

    def _on_restart(self, sink: Sink) -> None:
        sink.closed = True
        if self._closer is None:
            self._closer = self._spawn(self.close(RESTART_CODE, f"server restarting; resume after={sink.last}"))

    async def close(self, code: int, reason: str) -> None:
        """Through ASGI (the close handshake is the protocol's): queued behind what was written, for at
        most ``ws_close_timeout``; past that the connection is dropped."""
        if self.closing:
            return
        self.closing = True
        self.sink.closed = True
        try:
            await asyncio.wait_for(self.ws.close(code=code, reason=reason), self.settings.ws_close_timeout)
        except TimeoutError:
            self.raw.transport.abort()
        except (RuntimeError, WebSocketDisconnect):
            pass

    async def slow_consumer(self) -> None:
        self.sink.closed = True
        await super().slow_consumer()

    # --- commands on this socket ------------------------------------------------------------------------

    async def command(self, raw: bytes) -> tuple[str, CommandResult | None]:
        """As the queued stream's, but with ``own_events=result`` the fan-out holds this socket's frames
        while the command is in flight (the result carries them); afterwards it resumes or catches up."""
        if not self.results_carry_events:
            return await super().command(raw)
        self._in_flight += 1
        self.sink.behind = True
        try:
            return await super().command(raw)
        finally:
            self._in_flight -= 1
            # after the caller has accounted for the result and written it (both synchronous): then
            # live again, or the frames after it (another seat's, say) come from the store
            asyncio.get_running_loop().call_soon(self._resume)


async def run_direct(stream: DirectStream) -> None:
    with contextlib.suppress(WebSocketDisconnect):
        await stream.serve()
