"""Fan-out across API replicas: a Redis pub/sub channel per game carries "events up to seq N".

Local subscribers get the pre-encoded frames at once (as with the in-process broadcaster); other
replicas get only the seq and read the events from the store, so a message lost in pub/sub costs
latency, never correctness (the stream handler also catches up on any gap).
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Callable

import redis.asyncio as redis

from .broadcast import InProcessBroadcaster, Item

CHANNEL_PREFIX = "salvo:game:"


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
            origin, _, seq = message["data"].decode().partition(":")
            if origin != self.origin and seq.isdigit():
                if self.on_remote is not None:
                    self.on_remote(game_id, int(seq))
                self.deliver(game_id, [(int(seq), None)])

    async def ping(self) -> None:
        """Readiness: one round trip to Redis."""
        if self._client is None:
            raise ConnectionError("not started")
        await self._client.ping()

    async def publish(self, game_id: str, items: list[Item]) -> None:
        self.deliver(game_id, items)
        if self._client is not None and items:
            with contextlib.suppress(redis.RedisError, OSError):
                await self._client.publish(CHANNEL_PREFIX + game_id, f"{self.origin}:{max(s for s, _ in items)}")

    async def close(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
        if self._client is not None:
            await self._client.aclose()
        await super().close()
