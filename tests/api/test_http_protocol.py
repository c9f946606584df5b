"""The server's HTTP protocol writes a response's head and body in one write, and nothing else changes:
the same bytes in the same order, a lone head (HEAD, 100 Continue, a slow body) out by the end of the
loop turn, a close after what was written, a websocket upgrade on the plain transport."""

from __future__ import annotations

import asyncio
from typing import Any

from service.api.fast.http_protocol import CoalescingHttpToolsProtocol, CoalescingTransport

HEAD = b"HTTP/1.1 201 Created\r\ncontent-length: 2\r\n\r\n"


class FakeTransport:
    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        assert not self.closed
        self.writes.append(data)

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_write_buffer_size(self) -> int:
        return 0

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 5), "sockname": ("127.0.0.1", 8000)}.get(name, default)


async def test_a_head_and_its_body_go_in_one_write():
    raw = FakeTransport()
    t = CoalescingTransport(raw, asyncio.get_running_loop())
    t.write(HEAD)
    assert raw.writes == [] and t.get_write_buffer_size() == len(HEAD)
    t.write(b"{}")
    assert raw.writes == [HEAD + b"{}"]
    await asyncio.sleep(0)  # the end-of-turn flush finds nothing left
    assert raw.writes == [HEAD + b"{}"]


async def test_a_lone_head_goes_out_by_the_end_of_the_turn():
    raw = FakeTransport()
    t = CoalescingTransport(raw, asyncio.get_running_loop())
    t.write(b"HTTP/1.1 100 Continue\r\n\r\n")
    await asyncio.sleep(0)
    assert raw.writes == [b"HTTP/1.1 100 Continue\r\n\r\n"]
    t.write(b"chunk")  # anything not a head goes straight out
    assert raw.writes[-1] == b"chunk"


async def test_close_sends_what_was_held_first():
    raw = FakeTransport()
    t = CoalescingTransport(raw, asyncio.get_running_loop())
    t.write(HEAD)
    t.close()
    assert raw.writes == [HEAD] and raw.closed and t.is_closing()
    assert t.get_extra_info("peername") == ("127.0.0.1", 5)  # the rest is the transport's own


def test_a_websocket_upgrade_gets_the_plain_transport(monkeypatch):
    handed: list[Any] = []
    raw = FakeTransport()
    protocol = CoalescingHttpToolsProtocol.__new__(CoalescingHttpToolsProtocol)
    loop = asyncio.new_event_loop()
    protocol.transport = CoalescingTransport(raw, loop)  # type: ignore[assignment]
    monkeypatch.setattr(
        "uvicorn.protocols.http.httptools_impl.HttpToolsProtocol.handle_websocket_upgrade",
        lambda self: handed.append(self.transport),
    )
    protocol.handle_websocket_upgrade()
    loop.close()
    assert handed == [raw]


async def test_the_direct_cycles_flag_is_an_event_for_its_waiters():
    from service.api.fast.http_protocol import _Flag

    flag = _Flag()
    assert not flag.is_set()
    waiters = [asyncio.ensure_future(flag.wait()) for _ in range(2)]
    await asyncio.sleep(0)
    assert not any(w.done() for w in waiters)
    flag.set()
    flag.clear()  # a set wakes those already waiting, as asyncio.Event
    assert await asyncio.gather(*waiters) == [True, True]
    assert not flag.is_set()
    late = asyncio.ensure_future(flag.wait())
    await asyncio.sleep(0)
    late.cancel()  # a cancelled waiter leaves nothing behind
    await asyncio.sleep(0)
    assert flag._waiters == []
    flag.set()
    assert await flag.wait() is True  # set: at once


def test_server_headers_that_uvicorn_would_refuse_leave_the_result_to_its_send():
    from service.api.fast.http_protocol import _server_headers

    assert _server_headers([(b"date", b"Tue"), (b"server", b"uvicorn")]) == b"date: Tue\r\nserver: uvicorn\r\n"
    assert _server_headers([(b"x-bad", b"a\nb")]) is None


class FakeLoop:
    """A clock the test moves, and the timers due on it."""

    def __init__(self) -> None:
        self.now = 0.0
        self.timers: list[Any] = []

    def time(self) -> float:
        return self.now

    def call_later(self, delay: float, callback: Any) -> Any:
        loop = self

        class Timer:
            when = self.now + delay
            cancelled = False

            def cancel(self) -> None:
                self.cancelled = True
                loop.timers.remove(self)

        timer = Timer()
        timer.callback = callback  # type: ignore[attr-defined]
        self.timers.append(timer)
        return timer

    def run_until(self, t: float) -> None:
        while self.timers and min(x.when for x in self.timers) <= t:
            timer = min(self.timers, key=lambda x: x.when)
            self.timers.remove(timer)
            self.now = timer.when
            timer.callback()
        self.now = t


def _idle_protocol() -> tuple[Any, FakeTransport, FakeLoop]:
    from collections import deque

    from uvicorn.protocols.http.flow_control import FlowControl
    from uvicorn.server import ServerState

    raw, loop = FakeTransport(), FakeLoop()
    protocol = CoalescingHttpToolsProtocol.__new__(CoalescingHttpToolsProtocol)
    protocol.loop, protocol.transport, protocol.flow = loop, raw, FlowControl(raw)  # type: ignore[assignment]
    protocol.server_state, protocol.pipeline = ServerState(), deque()
    protocol.timeout_keep_alive, protocol.timeout_keep_alive_task = 5, None
    protocol.cycle = None  # type: ignore[assignment]
    protocol.parser = None  # type: ignore[assignment]
    protocol.connections, protocol.client = set(), None
    protocol.logger = __import__("logging").getLogger("uvicorn.error")
    return protocol, raw, loop


def test_an_idle_connection_closes_keep_alive_seconds_after_its_last_response():
    protocol, raw, loop = _idle_protocol()
    protocol.on_response_complete()  # t=0: one timer, due at 5
    assert len(loop.timers) == 1
    loop.run_until(3)
    protocol._unset_keepalive_if_required()  # t=3: the next request comes in...
    loop.run_until(4)
    protocol.on_response_complete()  # ...and is answered at t=4: no second timer
    assert len(loop.timers) == 1
    loop.run_until(8.9)
    assert not raw.closed  # the timer at 5 found it idle since 4: due again at 9
    loop.run_until(9)
    assert raw.closed and protocol.server_state.total_requests == 2


def test_a_busy_connection_is_not_closed_and_the_timer_goes_when_it_does():
    protocol, raw, loop = _idle_protocol()
    protocol.on_response_complete()
    protocol._unset_keepalive_if_required()  # a request in flight over the timeout
    loop.run_until(20)
    assert not raw.closed and loop.timers == []
    protocol.on_response_complete()  # answered at 20: closed at 25 unless another comes
    loop.run_until(24.9)
    assert not raw.closed
    protocol.connection_lost(None)  # gone: no timer left behind
    assert loop.timers == [] and protocol.timeout_keep_alive_task is None
