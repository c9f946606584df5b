"""WS /v1/games/{id}/stream, resumable: frames in order, reconnecting with ?after=<last seq seen> when the
server asks (close 1013, a slow consumer) or the network drops; never a gap or a duplicate event.

    async with GameStream("http://127.0.0.1:8000", game_id, token) as stream:
        async for frame in stream:          # EventFrame, CaughtUpFrame, PingFrame, ResultFrame, ErrorFrame
            ...
        await stream.command({"type": "gsc2.start"}, ref="r1")   # answered by a ResultFrame/ErrorFrame
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack
from typing import Any
from urllib.parse import quote, urlencode

import msgspec
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection as SyncConnection
from websockets.sync.client import connect as sync_connect

from .models import CaughtUpFrame, ErrorFrame, EventFrame, ServerFrame

_decoder: msgspec.json.Decoder[ServerFrame] = msgspec.json.Decoder(ServerFrame)
FATAL = 1008  # the server refused the connection (bad token, unknown game): do not retry
MAX_RETRIES = 5


def stream_url(base_url: str, game_id: str, after: int) -> str:
    ws_base = base_url.rstrip("/").replace("https://", "wss://", 1).replace("http://", "ws://", 1)
    return f"{ws_base}/v1/games/{quote(game_id, safe='')}/stream?{urlencode({'after': str(after)})}"


def stream_headers(token: str | None) -> dict[str, str]:
    """The token goes in the upgrade request's Authorization header, never in the URL (logs record URLs)."""
    return {"Authorization": f"Bearer {token}"} if token else {}


def command_frame(command: Any, ref: str | None = None, salt: str = "", expected_version: int | None = None) -> str:
    frame: dict[str, Any] = {"kind": "command", "command": command, "salt": salt}
    if ref is not None:
        frame["ref"] = ref
    if expected_version is not None:
        frame["expected_version"] = expected_version
    return json.dumps(frame)


class _Resume:
    """What a reconnect needs: the last seq seen, and whether the server said stop."""

    def __init__(self, after: int) -> None:
        self.last = after
        self.fatal = False
        self.retries = 0

    def seen(self, frame: ServerFrame) -> bool:
        """Track the frame; False for an event already seen (a reconnect's overlap)."""
        if isinstance(frame, EventFrame):
            if frame.event.seq <= self.last:
                return False
            self.last = frame.event.seq
        elif isinstance(frame, CaughtUpFrame):
            self.last = max(self.last, frame.seq)
            self.retries = 0
        elif isinstance(frame, ErrorFrame) and frame.ref is None:
            self.fatal = True
        return True

    def again(self, closed: ConnectionClosed) -> bool:
        code = closed.rcvd.code if closed.rcvd else None
        self.retries += 1
        return not self.fatal and code not in (1000, FATAL) and self.retries <= MAX_RETRIES


class GameStream:
    def __init__(self, base_url: str, game_id: str, token: str | None = None, after: int = 0) -> None:
        self.base_url, self.game_id, self.token = base_url, game_id, token
        self.resume = _Resume(after)
        self.ws: ClientConnection | None = None

    async def __aenter__(self) -> GameStream:
        await self._connect()
        return self

    async def __aexit__(self, *_exc: object) -> None:
        if self.ws is not None:
            await self.ws.close()

    async def _connect(self) -> None:
        self.ws = await connect(
            stream_url(self.base_url, self.game_id, self.resume.last), additional_headers=stream_headers(self.token)
        )

    async def command(
        self, command: Any, ref: str | None = None, salt: str = "", expected_version: int | None = None
    ) -> None:
        assert self.ws is not None, "use GameStream as an async context manager"
        await self.ws.send(command_frame(command, ref, salt, expected_version))

    async def __aiter__(self) -> AsyncIterator[ServerFrame]:
        while self.ws is not None:
            try:
                async for text in self.ws:
                    frame = _decoder.decode(text)
                    if self.resume.seen(frame):
                        yield frame
                return
            except ConnectionClosed as closed:
                if not self.resume.again(closed):
                    return
                await self._connect()


class SyncGameStream:
    """The same, blocking (websockets' threading client): ``for frame in stream.frames(timeout=...)``."""

    def __init__(self, base_url: str, game_id: str, token: str | None = None, after: int = 0) -> None:
        self.base_url, self.game_id, self.token = base_url, game_id, token
        self.resume = _Resume(after)
        self.ws: SyncConnection | None = None
        self._connections = ExitStack()

    def _connect(self) -> None:
        url = stream_url(self.base_url, self.game_id, self.resume.last)
        self.ws = self._connections.enter_context(sync_connect(url, additional_headers=stream_headers(self.token)))

    def __enter__(self) -> SyncGameStream:
        self._connect()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._connections.close()

    def command(
        self, command: Any, ref: str | None = None, salt: str = "", expected_version: int | None = None
    ) -> None:
        assert self.ws is not None, "use SyncGameStream as a context manager"
        self.ws.send(command_frame(command, ref, salt, expected_version))

    def frames(self, timeout: float | None = None) -> Iterator[ServerFrame]:
        """Frames until the server closes (or ``timeout`` seconds pass with nothing: TimeoutError)."""
        while self.ws is not None:
            try:
                while True:
                    frame = _decoder.decode(self.ws.recv(timeout))
                    if self.resume.seen(frame):
                        yield frame
            except ConnectionClosed as closed:
                if not self.resume.again(closed):
                    return
                self._connect()
