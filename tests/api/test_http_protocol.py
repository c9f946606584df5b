"""The server's HTTP protocol writes a response's head and body in one write, and nothing else changes:
the same bytes in the same order, a lone head (HEAD, 100 Continue, a slow body) out by the end of the
loop turn, a close after what was written, a websocket upgrade on the plain transport."""

from __future__ import annotations

import asyncio
from typing import Any

from service.api.http_protocol import CoalescingHttpToolsProtocol, CoalescingTransport

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
    monkeypatch.setattr("uvicorn.protocols.http.httptools_impl.HttpToolsProtocol.handle_websocket_upgrade",
                        lambda self: handed.append(self.transport))
    protocol.handle_websocket_upgrade()
    loop.close()
    assert handed == [raw]


async def test_the_direct_cycles_flag_is_an_event_for_its_waiters():
    from service.api.http_protocol import _Flag

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
    from service.api.http_protocol import _server_headers

    assert _server_headers([(b"date", b"Tue"), (b"server", b"uvicorn")]) == b"date: Tue\r\nserver: uvicorn\r\n"
    assert _server_headers([(b"x-bad", b"a\nb")]) is None
