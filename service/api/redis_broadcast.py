"""Fan-out across API replicas: a Redis pub/sub channel per game carries its new events' frames.

Local subscribers get the pre-encoded frames at once (as with the in-process broadcaster). Other
replicas get the same frames through Redis, per audience, already redacted (spectator frames are always
encoded when Redis links replicas, since spectators are who a second process serves), so a replica
that serves only sockets writes them to its transports without reading the store; an audience missing
from the message reads the store, and so does anyone after a lost message, so a message lost in
pub/sub costs latency, never correctness (the stream handler also catches up on any gap).

Messages: ``F`` + msgpack ``[origin, [[seq, {audience: frame | None} | None], …]]``; the older text form
``"<origin>:<seq>"`` (a bare notification) is still understood.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Callable

import msgspec
import redis.asyncio as redis

from .broadcast import InProcessBroadcaster, Item

CHANNEL_PREFIX = "salvo:game:"
FRAMED = b"F"
_encode = msgspec.msgpack.Encoder().encode
_decode = msgspec.msgpack.Decoder(tuple[str, list[tuple[int, dict[str, bytes | None] | None]]]).decode


class RedisBroadcaster(InProcessBroadcaster):
    def __init__(self, url: str, on_remote: Callable[[str, int], None] | None = None,
                 buffer_limit: int = 1 << 20) -> None:
        super().__init__(buffer_limit)
        self.url = url
        self.on_remote = on_remote  # e.g. GameService.note_remote_append: drop a stale cached head
        self.origin = uuid.uuid4().hex  # this replica, so it ignores its own notifications
        self._client: redis.Redis | None = None
        self._listener: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._client = redis.Redis.from_url(self.url)
        pubsub = self._client.pubsub()
        await pubsub.psubscribe(CHANNEL_PREFIX + "*")
        self._listener = asyncio.create_task(self._listen(pubsub))

    def listening(self, game_id: str) -> set[str]:
        return super().listening(game_id) | {"spectator"}  # other replicas' spectators

    async def _listen(self, pubsub: redis.client.PubSub) -> None:
        while True:
            try:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
            except (ConnectionError, OSError, redis.RedisError):
                await asyncio.sleep(0.5)  # Redis away: live fan-out pauses, clients catch up later
                continue
            if message is None or message.get("type") != "pmessage":
                continue
            game_id = message["channel"].decode()[len(CHANNEL_PREFIX):]
            remote = self._remote_items(message["data"])
            if remote is None or not remote[1]:
                continue
            origin, items = remote
            if origin == self.origin:
                continue
            if self.on_remote is not None:
                self.on_remote(game_id, max(seq for seq, _ in items))
            self.deliver(game_id, items)

    @staticmethod
    def _remote_items(data: bytes) -> tuple[str, list[Item]] | None:
        if data[:1] == FRAMED:
            try:
                origin, items = _decode(data[1:])
            except (msgspec.DecodeError, msgspec.ValidationError):
                return None
            return origin, list(items)
        origin, _, seq = data.decode(errors="replace").partition(":")
        return (origin, [(int(seq), None)]) if seq.isdigit() else None

    async def ping(self) -> None:
        """Readiness: one round trip to Redis."""
        if self._client is None:
            raise ConnectionError("not started")
        await self._client.ping()

    async def publish(self, game_id: str, items: list[Item]) -> None:
        self.deliver(game_id, items)
        if self._client is not None and items:
            with contextlib.suppress(redis.RedisError, OSError):
                await self._client.publish(CHANNEL_PREFIX + game_id, FRAMED + _encode((self.origin, items)))

    async def close(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
        if self._client is not None:
            await self._client.aclose()
        await super().close()
