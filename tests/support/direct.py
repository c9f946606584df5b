"""The pre-framed fan-out under the TestClient: the TestClient has no transport to write frames to, so
this wraps the app and hands each websocket a transport that parses the exact bytes the server writes
(unmasked RFC 6455 text frames) back into the messages the TestClient reads. Everything else (catch-up,
settling, per-audience frames, heartbeats, 1013) is the server's own direct path.

    with direct_client(app) as client: ...      # a TestClient whose streams take the direct path
    stalled(client, game_id)                    # make every socket of the game look like a stalled reader
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from starlette.testclient import TestClient

from service.api.fast.rawsocket import SCOPE_KEY, RawSocket


class FramedTestTransport:
    def __init__(self, send: Any) -> None:
        self._stream = send.__self__  # the TestClient's unbounded memory stream (send_nowait never blocks)
        self.buffered = 0  # what get_write_buffer_size reports: raise it to play a stalled reader
        self.closing = False
        self.frames = 0

    def write(self, data: bytes) -> None:
        assert not self.closing, "written after close"
        while data:
            assert data[0] == 0x81, data[:2]  # FIN + text, unmasked (bit 0x80 of byte 1 clear)
            n, at = data[1], 2
            assert n & 0x80 == 0
            if n == 126:
                n, at = int.from_bytes(data[2:4], "big"), 4
            elif n == 127:
                n, at = int.from_bytes(data[2:10], "big"), 10
            assert len(data) >= at + n, "a partial frame"
            self._stream.send_nowait({"type": "websocket.send", "text": data[at : at + n].decode()})
            self.frames += 1
            data = data[at + n :]

    def get_write_buffer_size(self) -> int:
        return self.buffered

    def is_closing(self) -> bool:
        return self.closing

    def abort(self) -> None:
        self.closing = True
        self._stream.send_nowait({"type": "websocket.close", "code": 1006, "reason": "aborted"})


class DirectShim:
    def __init__(self, app: Any) -> None:
        self.app = app
        self.transports: list[FramedTestTransport] = []

    def __getattr__(self, name: str) -> Any:  # client.app.state and friends
        return getattr(self.app, name)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":
            transport = FramedTestTransport(send)
            self.transports.append(transport)
            writable = asyncio.Event()
            writable.set()
            scope[SCOPE_KEY] = RawSocket(transport, writable)
        await self.app(scope, receive, send)


def direct_client(app: Any) -> TestClient:
    """Skips the test under SALVO_FAST_PATH=off: the pre-framed fan-out is the fast transport's."""
    if not app.state.settings.fast_path:
        pytest.skip("the direct send path is the fast transport's (SALVO_FAST_PATH=off)")
    return TestClient(DirectShim(app))


@contextmanager
def client_on_path(app: Any, path: str) -> Iterator[TestClient]:
    """A TestClient on one of both send paths: "queued", or "direct" (the pre-framed fan-out written to a
    transport). On leaving, a direct client checks the frames really went through its transports."""
    with TestClient(app) if path == "queued" else direct_client(app) as c:
        yield c
        if path == "direct":
            assert any(t.frames for t in c.app.transports)


def stalled(client: TestClient, game_id: str, buffered: int = 1 << 30) -> int:
    """Every socket of the game reports ``buffered`` unsent bytes; returns how many there were."""
    sinks = client.app.state.broadcaster.fanout.sinks(game_id)
    for sink in sinks:
        sink.transport.buffered = buffered
    return len(sinks)
