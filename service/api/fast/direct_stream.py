"""A stream written straight to the socket's transport: live events arrive as pre-framed bytes from
``fanout.Fanout`` (built once per audience, one ``transport.write`` per socket), catch-up and results
are framed here and written the same way. Per socket there is its reader (``wsprotocol.Wire``, or the
ASGI task under another protocol), one heartbeat timer, and a Task only while it catches up from the
store, answers a command or closes.

The socket is live (``sink.behind`` False) only when it has everything the fan-out has published for
the game; while it reads the store the fan-out skips it and it catches up afterwards: no gap, no
duplicate. While it waits for the result of its own command (``own_events=result``) the fan-out
*holds* its frames (``Sink.held``) and ``reply`` writes them around the result, so a busy game costs no
store read per command; a hold that overflows falls back to the store. A socket whose unsent bytes
pass ``SALVO_WS_BUFFER_LIMIT`` during live delivery, or that does not drain within
``SALVO_WS_SEND_TIMEOUT`` during catch-up, is closed with 1013 and the seq to resume after.

Under Salvo's own uvicorn protocol (``wsprotocol``) the stream *detaches* right after the handshake:
the ASGI task returns, and the ``Wire`` calls ``on_text`` from ``data_received`` with each message (a
Task runs only while a command is being answered) and ``on_lost`` when the connection is gone. Under
any other uvicorn protocol it reads the client through ASGI (``watch_client``), as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import WebSocket, WebSocketDisconnect

from service.domain.core import Viewer
from service.events.decide_append import CommandResult
from service.events.errors import AppError
from service.events.inputs import check_json
from service.events.storage_faults import StorageFull, StorageUnavailable

from ..encoding import command_body
from ..streaming import (
    BAD_DATA_CODE,
    RESTART_CODE,
    RESUME_CODE,
    TOO_BIG_CODE,
    UNSUPPORTED_CODE,
    Stream,
    command_error,
    command_request,
    result_payload,
    socket_message,
)
from .fanout import Fanout, Sink, text_frame
from .rawsocket import RawSocket
from .wsprotocol import Wire

PING = text_frame(b'{"kind":"ping"}')
# a game watched by more sockets than this answers its commands after their fan-out, not before: there
# the fan-out is the node's limiting work (~9 µs a socket), and a result written after it paces the
# commanding client to what the audience can be sent (answered first, its next command would wait in the
# loop behind the fan-out, and every spectator's frame behind both: 5,000 spectators at 20 events/s,
# send-to-receipt p50 ~25 → ~67 ms, p99 ~60 → ~110 ms); with fewer, the fan-out is short and the answer
# comes first
EARLY_ANSWER_SOCKETS = 256
INTERNAL_CODE = 1011
log = logging.getLogger("salvo.stream")


class _NoSubscription:
    def close(self) -> None:
        return None


class DirectStream(Stream):
    def __init__(
        self, ws: WebSocket, game_id: str, viewer: Viewer, token: str | None, after: int, raw: RawSocket, fanout: Fanout
    ) -> None:
        self.raw = raw
        self.fanout = fanout
        # behind from the start: the fan-out skips it until its catch-up has reached what was published
        self.sink = Sink(
            raw.transport,
            "",
            after,
            on_slow=self._on_slow,
            on_behind=self._on_behind,
            on_restart=self._on_restart,
            behind=True,
            stamp=time.monotonic(),
        )
        super().__init__(ws, game_id, viewer, token, after)
        self.sink.audience = self.audience
        self.sink.view = self.view_key  # frames=view: the update's last frame with the view in it
        self._pump: asyncio.Task[None] | None = None  # the catch-up in progress, if any
        self._closer: asyncio.Task[None] | None = None
        self._in_flight = 0  # own_events=result commands awaiting their result
        self._replying = 0  # results waiting for the store read in progress (``reply``)
        self._caught_up_sent = False
        self._heartbeat: asyncio.TimerHandle | None = None
        # detached (wsprotocol): the connection's reader, the messages waiting for the command Task
        self.wire: Wire | None = None
        self._inbox: list[bytes] | None = None
        self._worker: asyncio.Task[None] | None = None  # made at the first command, lives with the socket
        self._wake: asyncio.Future[None] | None = None  # set while the worker waits for a message
        self._reading_paused = False  # on_text paused the connection's reading (a message waits)
        self._context: contextvars.Context | None = None  # the request's (log fields) for our Tasks
        self._on_end: Callable[[], object] | None = None
        self._ref: str | None = None  # the command message's ref, while it is answered (``_answer_durable``)
        self._answered = False  # ``_answer_durable`` wrote its result

    # ``last`` is the sink's: the fan-out advances it as it writes
    @property  # type: ignore[override]
    def last(self) -> int:
        return self.sink.last

    @last.setter
    def last(self, seq: int) -> None:
        self.sink.last = seq

    async def serve(self) -> None:
        """Listen, catch up in the background, and read the client until it (or a close) ends it."""
        self._start()
        try:
            await self.watch_client(_NoSubscription())  # type: ignore[arg-type]
        finally:
            self._release()

    def detach(self, on_end: Callable[[], object]) -> bool:
        """Leave ASGI (called straight after ``accept``, no await between): the connection is read by a
        ``wsprotocol.Wire`` calling this stream, and the caller's task may return. False when the
        server's protocol cannot (not Salvo's, or the client sent something early): then ``serve``."""
        detach = getattr(self.raw.protocol, "detach", None)
        wire = detach(self) if detach is not None else None
        if wire is None:
            return False
        self.wire, self.raw = wire, wire  # type: ignore[assignment]  # same transport/paused/drained
        self.ws = None  # type: ignore[assignment]  # Starlette's WebSocket (and the scope) go with the task
        self._context = contextvars.copy_context()
        self._on_end = on_end
        self._start()
        return True

    def _start(self) -> None:
        self.fanout.add(self.game_id, self.sink)
        loop = asyncio.get_running_loop()
        self._heartbeat = loop.call_later(self.settings.heartbeat_seconds, self._beat)
        self._pump = self._spawn(self._catch_up_then_resume())

    def _release(self) -> None:
        self.sink.closed = True
        self.closing = True
        self.fanout.remove(self.game_id, self.sink)
        if self._heartbeat is not None:
            self._heartbeat.cancel()
            self._heartbeat = None
        wake, self._wake = self._wake, None
        if wake is not None:  # the worker waits for a message: it ends (``closing``)
            wake.set_result(None)
        # a command in flight is not cancelled (its append goes on; its answer finds the socket closed)
        for task in (self._pump, self._closer):
            if task is not None and not task.done():
                task.cancel()

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        return asyncio.get_running_loop().create_task(coro, context=self._context)

    # --- a detached connection's reader (wsprotocol.Wire calls these) -----------------------------------

    def on_text(self, payload: bytes) -> None:
        """A command message, checked as ``watch_client`` checks it, answered in order by one Task that
        lives while messages wait; with one waiting, the connection stops reading (as uvicorn's queue)."""
        if self.closing:
            return
        limit = self.settings.max_body_bytes
        if len(payload) > limit:
            self._close_now(TOO_BIG_CODE, f"messages are limited to {limit} bytes")
            return
        try:
            check_json(payload, integers=False)  # not UTF-8, nested too deep (integers: ``socket_message``)
        except AppError as exc:
            self._close_now(BAD_DATA_CODE, exc.detail[:120])
            return
        inbox = self._inbox
        if inbox is None:
            inbox = self._inbox = []
        inbox.append(payload)
        wake = self._wake
        if wake is not None:  # the worker waits: on to it (a Future's wake-up, not a new Task per message)
            self._wake = None
            wake.set_result(None)
        elif self._worker is None:
            self._worker = self._spawn(self._answer())
        elif self.wire is not None:
            self._reading_paused = True
            self.wire.pause_reading()

    def on_binary(self) -> None:
        self._close_now(UNSUPPORTED_CODE, "send JSON text frames")

    def on_closing(self) -> None:
        self.closing = True
        self.sink.closed = True

    def on_lost(self) -> None:
        self._release()
        on_end, self._on_end = self._on_end, None
        if on_end is not None:
            on_end()

    async def _answer(self) -> None:
        """The socket's worker: the inbox's commands, one at a time, each answered straight after its
        result: ``command`` (and ``Stream.command``, ``Gate.command``) inline, so a command resumes through
        three coroutine levels (this, the pipeline's ``handle``, the store's future), not seven. With the
        inbox empty it waits for ``on_text`` (``_wake``), until the socket closes: one Task per commanding
        socket, not one per message."""
        inbox, wire = self._inbox, self.wire
        assert inbox is not None and wire is not None
        gate, carry, sink = self.gate, self.results_carry_events, self.sink
        game_id, viewer, token, address = self.game_id, self.viewer, self.token, self.address
        early = self._answer_durable if carry else None
        loop = asyncio.get_running_loop()
        try:
            while not self.closing:
                if not inbox:
                    wake = self._wake = loop.create_future()
                    await wake
                    continue
                raw = inbox.pop(0)
                self._taking(wire, carry, sink)
                message = ruleset = None
                self._answered = False
                try:
                    message = socket_message(raw)
                    request = command_request(message)
                    ruleset = gate.ruleset(game_id)  # ``gate.command``'s steps, its coroutine level left out
                    self._ref = message.ref
                    done = await gate.start(
                        game_id,
                        viewer,
                        token,
                        address,
                        b"",
                        message.idempotency_key,
                        message.expected_version,
                        request,
                        early,
                    )
                    gate.accepted(ruleset, viewer, done)
                    answer, result = result_payload(message.ref, command_body(done)), done
                except Exception as exc:  # noqa: BLE001 - every failure is answered with its problem
                    answer, result = self._refused(exc, message, ruleset)
                except BaseException as exc:
                    self._abandoned(exc, ruleset, carry, loop)
                    raise
                waiting = self._replying_to(answer, result, carry, wire, sink)
                if waiting is not None:
                    await waiting
        except TimeoutError:  # the client stopped reading: its result waited past ws_send_timeout
            self._worker = None
            await self.slow_consumer()
        except (WebSocketDisconnect, RuntimeError, ConnectionError):
            pass
        finally:
            if self._worker is asyncio.current_task():
                self._worker = self._wake = None  # a wake left by a cancel is done: not to be set

    def _taking(self, wire: Wire, carry: bool, sink: Sink) -> None:
        """A command taken from the inbox: reading again if the inbox had paused it; while it flies the
        fan-out holds this socket's frames (as ``command``), when results carry their events."""
        if self._reading_paused:
            self._reading_paused = False
            wire.resume_reading()
        if carry:
            self._in_flight += 1
            if sink.held is None and not sink.behind:
                sink.held, sink.held_bytes = [], 0

    def _refused(self, exc: Exception, message: Any, ruleset: Any) -> tuple[bytes, None]:
        """A command that failed: its problem to answer, or nothing when its result was written already
        (durable and answered: what failed after that is the server's, logged)."""
        if ruleset is not None:
            self.gate.failed(ruleset, self.viewer, exc)
        if self._answered:
            log.exception("after a command's result was written")
            return b"", None
        return command_error(exc, message).encode(), None

    def _abandoned(self, exc: BaseException, ruleset: Any, carry: bool, loop: asyncio.AbstractEventLoop) -> None:
        """A command cancelled (or the worker stopped) in flight: counted as failed; an unanswered one's
        hold is let go (``_resume``, soon)."""
        if ruleset is not None:
            self.gate.failed(ruleset, self.viewer, exc)
        if carry and not self._answered:
            self._in_flight -= 1
            loop.call_soon(self._resume)

    def _replying_to(
        self, answer: bytes, result: CommandResult | None, carry: bool, wire: Wire, sink: Sink
    ) -> Coroutine[Any, Any, None] | None:
        """The answer written (the usual case, synchronously: no coroutine), or the coroutine that writes
        it or waits for the transport to drain (None: nothing left to wait for)."""
        if self._answered:  # written by ``_answer_durable`` before the game's landing
            self._answered = False
            return self._drained_then_resume(wire) if wire.paused else None
        if not carry:
            return self.reply(answer, result)
        self._in_flight -= 1
        held = sink.held
        if held is None or self._pump is not None:
            return self._then_resume(self.reply(answer, result))
        try:  # ``reply``'s usual case, with no coroutine
            self._write_reply(held, answer, result)
        except BaseException:
            self._resume()  # live again, or the frames after it (another seat's, say) from the store
            raise
        if wire.paused:
            return self._drained_then_resume(wire)
        return None  # left live, reading the store, or closed: nothing for ``_resume`` to do

    async def _drained_then_resume(self, wire: Wire) -> None:
        try:
            await asyncio.wait_for(wire.drained(), self.settings.ws_send_timeout)
        finally:
            self._resume()

    async def _then_resume(self, replying: Coroutine[Any, Any, None]) -> None:
        try:
            await replying
        finally:  # live again, or the frames after it (another seat's, say) from the store
            self._resume()

    def _answer_durable(self, result: CommandResult) -> None:
        """The pipeline's ``on_durable``: ``reply``'s usual case written as soon as the command is durable
        (and acknowledged in order), before the game's heads and other sockets learn of it: that work then
        overlaps the client's reading of the result, not precedes it (one game commanded one command at a
        time waits for it otherwise). The other cases (no hold, a store read in progress, a closed socket,
        a game with a large audience: ``EARLY_ANSWER_SOCKETS``) are left to the worker, after the command
        returns, as before. Never raises."""
        sink = self.sink
        held = sink.held
        if (
            held is None
            or self._pump is not None
            or sink.closed
            or self.raw.transport.is_closing()
            or self.fanout.size(self.game_id) > EARLY_ANSWER_SOCKETS
        ):
            return
        self._in_flight -= 1
        self._answered = True
        self._write_reply(held, result_payload(self._ref, command_body(result)), result)

    # --- writing ---------------------------------------------------------------------------------------

    def write(self, payload: bytes) -> None:
        if self.sink.closed:  # past a close frame nothing more may go out
            return
        self.raw.transport.write(text_frame(payload))
        self.sink.stamp = time.monotonic()

    async def send(self, text: str, seq: int | None = None) -> None:
        """Catch-up, snapshot and results: written at once (so in call order), then, when the transport
        is paused above its high-water mark, wait for it to drain (at most ``ws_send_timeout``). The
        event ``seq`` it carries is accounted for once written, before that wait (see ``Stream.send``)."""
        if self.sink.closed or self.raw.transport.is_closing():
            raise WebSocketDisconnect(1006)
        self.write(text.encode())
        if seq is not None and seq > self.sink.last:
            self.sink.last = seq
        if self.raw.paused:
            await asyncio.wait_for(self.raw.drained(), self.settings.ws_send_timeout)

    async def reply(self, answer: str | bytes, result: CommandResult | None) -> None:
        """With the frames held while the command was in flight (``Sink.held``), all written now, in one
        synchronous step (``_write_reply``); then live again, or the store for what the fan-out could not
        hold. A result that comes while the socket reads the store (holding what lands meanwhile) waits
        for that read. ``answer``: the message's JSON (bytes from the worker, text from ``command``)."""
        sink = self.sink
        if sink.held is not None and self._pump is not None:
            self._replying += 1  # the read's end leaves the hold to this reply (``_resume``)
            try:
                while sink.held is not None and self._pump is not None and not sink.closed:
                    await asyncio.wait((self._pump,))
            finally:
                self._replying -= 1
        held = sink.held
        if held is None:  # not held (behind when it started, or the hold overflowed): as before
            self.fanout.replies_unheld += 1
            await super().reply(answer if isinstance(answer, str) else answer.decode(), result)
            if not self._in_flight:
                self._resume()  # from the store what was published past it, holding meanwhile
            return
        self._write_reply(held, answer if isinstance(answer, bytes) else answer.encode(), result)
        if self.raw.paused:
            await asyncio.wait_for(self.raw.drained(), self.settings.ws_send_timeout)

    def _write_reply(self, held: list[tuple[int, bytes]], answer: bytes, result: CommandResult | None) -> None:
        """``reply``'s writes, with ``held`` the sink's hold (messages, framed here): those up to the result's
        ``after``, the result (its events accounted for), then those past it, in one write; then live, holding
        on while another command of this socket flies, or behind (the store) for what was published but not
        held."""
        sink = self.sink
        transport = self.raw.transport
        if sink.closed or transport.is_closing():
            raise WebSocketDisconnect(1006)
        sink.held, sink.held_bytes = None, 0
        fanout = self.fanout
        if held and transport.get_write_buffer_size() > fanout.limit:
            sink.closed = True  # a slow consumer, as Fanout.deliver would find it: 1013 after ``last``
            self._on_slow(sink)
            return
        if (
            result is not None
            and (after := result.after) is not None
            and after == sink.last
            and (version := result.version) is not None
            and self.results_carry_events
            and (not held or (held[0][0] > after and held[-1][0] <= version))
        ):
            # the usual case: nothing arrived while it flew but its own events (held contiguous), which the
            # result carries: the result alone, accounted for (as the general case below would find)
            sink.last = version
            transport.write(text_frame(answer))
            fanout.frames_written += 1
        else:
            # one write for the lot (as one frame each from the fan-out, but one syscall, not one per frame)
            out = self._around(held, answer, result)
            transport.write(b"".join(out) if len(out) > 1 else out[0])
            fanout.frames_written += len(out)
            sink.written += len(out) - 1
        fanout.replies_held += 1
        fanout.writes += 1
        sink.stamp = time.monotonic()
        sink.behind = False
        if self._in_flight:  # another command of this socket flies: hold on from here
            sink.held, sink.hold_after = [], sink.last
        elif fanout.published.get(self.game_id, 0) > sink.last:  # (``fanout.head``, one call fewer)
            sink.behind = True  # published but not held (the hold began behind the head): the store
            self._resume()

    def _around(self, held: list[tuple[int, bytes]], answer: bytes, result: CommandResult | None) -> list[bytes]:
        """The frames of ``held`` up to the result's ``after`` (all of them, for an error), the result (its
        events accounted for), then those past it: each frame once, ``sink.last`` moved past it."""
        sink = self.sink
        out: list[bytes] = []
        i, n, after = 0, len(held), result.after if result is not None else None
        while i < n and (after is None or held[i][0] <= after):  # no ``after`` (an error): all of them
            seq, message = held[i]
            i += 1
            if seq > sink.last:
                out.append(text_frame(message))
                sink.last = seq
        if result is not None:
            self.account_for(result)  # last = its version when it follows straight on
        out.append(text_frame(answer))
        for seq, message in held[i:]:
            if seq > sink.last:  # <= last: the result's own events
                out.append(text_frame(message))
                sink.last = seq
        return out

    def _write_held(self) -> None:
        """The end of a store read with no command of its own in flight: what the fan-out held
        meanwhile (contiguous after ``last``) in one write, then live."""
        sink = self.sink
        held, sink.held, sink.held_bytes = sink.held or [], None, 0
        out = [text_frame(message) for seq, message in held if seq > sink.last]
        if out:
            transport = self.raw.transport
            if transport.is_closing():
                sink.closed = True
                return
            if transport.get_write_buffer_size() > self.fanout.limit:
                sink.closed = True  # 1013, resume after ``last``: none of these were written
                self._on_slow(sink)
                return
            transport.write(b"".join(out) if len(out) > 1 else out[0])
            self.fanout.writes += 1
            self.fanout.frames_written += len(out)
            sink.written += len(out)
            sink.stamp = time.monotonic()
            sink.last = held[-1][0]
        sink.behind = False

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
                if self.view_key is None:
                    self.write(b'{"kind":"caught_up","seq":%d}' % self.last)
                else:
                    self.write((await self.caught_up_frame()).encode())
                self._caught_up_sent = True
            else:  # live again after a gap: up to where the hold begins (what was published when the
                # read began), hidden seqs announced as the queued path does
                sink = self.sink
                upto = sink.hold_after if sink.held is not None else self.fanout.head(self.game_id)
                await self.catch_up(upto=max(upto, self.last))
        except TimeoutError:  # the client stopped reading during catch-up
            self._pump = None
            self.sink.closed = True
            self._closer = self._spawn(self.slow_consumer())
            return
        except (WebSocketDisconnect, RuntimeError, ConnectionError, asyncio.CancelledError):
            self._pump = None
            return
        except (StorageUnavailable, StorageFull):  # the store away (logged there): come back later, resumable
            self._pump = None
            self.sink.closed = True
            self._closer = self._spawn(self.close(RESUME_CODE, f"storage unavailable; resume after={self.last}"))
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
        """Back to live delivery if nothing was published past what this socket has (holding, while a
        command of its own flies); else read the store, the fan-out holding what lands meanwhile."""
        sink = self.sink
        if self._pump is not None or sink.closed or not self._caught_up_sent:
            return
        if sink.held is not None:
            if sink.last < sink.hold_after:  # the read stopped short of the hold: drop it, as a gap
                sink.held, sink.held_bytes = None, 0
                sink.behind = True
            elif self._in_flight or self._replying:
                sink.behind = False  # holding for the command in flight: ``reply`` goes on from there
                return
            else:  # a read's end (or a command that ended with no reply): what was held, then live
                self._write_held()
                return
        head = self.fanout.head(self.game_id)
        if head <= sink.last:
            sink.behind = False  # synchronously: the next delivery reaches it
            if self._in_flight:  # caught up while its own command flies: hold from here, not from the store
                sink.held, sink.held_bytes, sink.hold_after = [], 0, sink.last
        elif not (self._in_flight or self._replying):  # in flight: the store would have its own events
            # ahead of the result. Read up to the head as it is now, and hold what lands meanwhile (in
            # a busy game something always does: without the hold the read would end behind again)
            sink.behind = True
            sink.held, sink.held_bytes, sink.hold_after = [], 0, head
            self.fanout.catch_ups += 1
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
        if self.wire is not None:
            self._close_now(code, reason)
            return
        self.closing = True
        self.sink.closed = True
        try:
            await asyncio.wait_for(self.ws.close(code=code, reason=reason), self.settings.ws_close_timeout)
        except TimeoutError:
            self.raw.transport.abort()
        except (RuntimeError, WebSocketDisconnect):
            pass

    def _close_now(self, code: int, reason: str) -> None:
        """Detached: the close frame goes out now, behind what was written (``Wire.close``)."""
        if self.closing or self.wire is None:
            return
        self.closing = True
        self.sink.closed = True
        self.wire.close(code, reason, self.settings.ws_close_timeout)

    async def slow_consumer(self) -> None:
        self.sink.closed = True
        await super().slow_consumer()

    # --- commands on this socket ------------------------------------------------------------------------

    async def command(self, raw: bytes) -> tuple[str, CommandResult | None]:
        """As the queued stream's, but with ``own_events=result`` the fan-out holds this socket's frames
        while the command is in flight (the result carries its own); ``reply`` writes them. Commands on
        one socket are answered one at a time; should two overlap, the hold goes on until the last."""
        if not self.results_carry_events:
            return await super().command(raw)
        self._in_flight += 1
        sink = self.sink
        if sink.held is None:
            if sink.behind:  # catching up already: it reads the store afterwards, as before
                pass
            else:  # live: the fan-out holds its frames until ``reply``
                sink.held, sink.held_bytes, sink.hold_after = [], 0, sink.last
        try:
            return await super().command(raw)
        finally:
            self._in_flight -= 1
            # after the caller's ``reply`` (synchronous up to its writes): live again, or the frames
            # after it (another seat's, say) come from the store
            asyncio.get_running_loop().call_soon(self._resume)


async def run_direct(stream: DirectStream) -> None:
    with contextlib.suppress(WebSocketDisconnect):
        await stream.serve()
