"""Publishing to Redis without a command ever waiting for it.

``RedisPublisher.send`` queues a message and returns at once (a command's answer never waits on Redis);
one task sends the queue in order, each PUBLISH bounded by ``TIMEOUT`` (100 ms: a socket timeout on its
own connection, no retries). A circuit breaker opens after ``TRIP_AFTER`` failures in a row: for
``OPEN_FOR`` seconds messages are dropped unsent (no 100 ms wait each), then one is tried again. What was
dropped is not lost: the log has it, and the first message that goes through after a drop is followed by
a bare notification of each game's latest dropped seq, so the other replicas' sockets read the store up to
it (and a replica whose own subscription broke meanwhile polls the log; redis_broadcast.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable

import redis.asyncio as redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

log = logging.getLogger("salvo.redis")

TIMEOUT = 0.1  # seconds one PUBLISH may take (connect included)
TRIP_AFTER = 3  # failures in a row that open the breaker
OPEN_FOR = 1.0  # seconds the breaker stays open before one message is tried again
QUEUE_LIMIT = 10_000  # messages waiting; past it the oldest is dropped (and announced later as above)


class CircuitBreaker:
    """Closed (send), open (drop, until ``retry_at``), then half-open: the next try closes or reopens it."""

    def __init__(
        self, trip_after: int = TRIP_AFTER, open_for: float = OPEN_FOR, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.trip_after = trip_after
        self.open_for = open_for
        self.clock = clock
        self.failures = 0  # in a row
        self.retry_at = 0.0  # while open: when the next message may be tried
        self.opened = 0  # times it opened (a counter)

    @property
    def open(self) -> bool:
        return self.failures >= self.trip_after and self.clock() < self.retry_at

    @property
    def tripped(self) -> bool:
        """Open, or half-open (the last tries failed): publishes are not reaching Redis."""
        return self.failures >= self.trip_after

    def allows(self) -> bool:
        return not self.open

    def succeeded(self) -> None:
        self.failures = 0

    def failed(self) -> None:
        self.failures += 1
        if self.failures >= self.trip_after:
            if self.failures == self.trip_after:
                self.opened += 1
            self.retry_at = self.clock() + self.open_for


class RedisPublisher:
    def __init__(
        self,
        url: str,
        client_name: str,
        timeout: float = TIMEOUT,
        breaker: CircuitBreaker | None = None,
        limit: int = QUEUE_LIMIT,
    ) -> None:
        # its own connection: a publish never queues behind a slow command of another task, and its socket
        # timeout bounds it (no retries: the breaker decides when to try again)
        self.client = redis.Redis.from_url(
            url,
            client_name=client_name,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            retry=Retry(NoBackoff(), 0),
        )
        self.timeout = timeout
        self.breaker = breaker or CircuitBreaker()
        self.limit = limit
        self._queue: deque[tuple[str, bytes, int]] = deque()  # (channel, message, its highest seq)
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._dropped: dict[str, int] = {}  # channel -> the highest seq dropped since the last send
        self._task: asyncio.Task[None] | None = None
        self.notice: Callable[[int], bytes] | None = None  # a bare notification of a seq (set by the owner)
        self.sent = self.dropped = self.failed = 0  # counters

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="salvo-redis-publisher")

    def send(self, channel: str, message: bytes, seq: int) -> None:
        """Queue ``message`` (never waits). With the breaker open it is dropped at once."""
        if not self.breaker.allows():
            self._drop(channel, seq)
            return
        if len(self._queue) >= self.limit:
            old_channel, _, old_seq = self._queue.popleft()
            self._drop(old_channel, old_seq)
        self._queue.append((channel, message, seq))
        self._idle.clear()
        self._wake.set()

    def _drop(self, channel: str, seq: int) -> None:
        self.dropped += 1
        if seq > self._dropped.get(channel, 0):
            self._dropped[channel] = seq

    async def flush(self) -> None:
        """Until everything queued was sent or dropped (tests; a graceful stop)."""
        await self._idle.wait()

    async def _run(self) -> None:
        queue = self._queue
        while True:
            if not queue:
                self._idle.set()
                self._wake.clear()
                await self._wake.wait()
                continue
            channel, message, seq = queue.popleft()
            if not self.breaker.allows():
                self._drop(channel, seq)
                continue
            if await self._publish(channel, message):
                if self._dropped:
                    await self._announce_dropped()
            else:
                self._drop(channel, seq)

    async def _publish(self, channel: str, message: bytes) -> bool:
        try:
            await asyncio.wait_for(self.client.publish(channel, message), self.timeout * 2)
        except (redis.RedisError, OSError, TimeoutError) as exc:
            self.failed += 1
            was_open = self.breaker.failures >= self.breaker.trip_after
            self.breaker.failed()
            if not was_open and self.breaker.failures >= self.breaker.trip_after:
                log.warning(
                    "redis publishes failing (%s): dropped for %.1f s at a time; replicas poll the log",
                    type(exc).__name__,
                    self.breaker.open_for,
                )
            return False
        self.breaker.succeeded()
        self.sent += 1
        return True

    async def _announce_dropped(self) -> None:
        """Back after drops: each game's latest dropped seq as a bare notification (readers catch up)."""
        notice = self.notice
        dropped, self._dropped = self._dropped, {}
        if notice is None:
            return
        for channel, seq in list(dropped.items()):
            if not await self._publish(channel, notice(seq)):
                for left, left_seq in dropped.items():  # announced after the next message that goes through
                    if left_seq > self._dropped.get(left, 0):
                        self._dropped[left] = left_seq
                return
            del dropped[channel]

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        with contextlib.suppress(redis.RedisError, OSError, TimeoutError):
            await asyncio.wait_for(self.client.aclose(), 1.0)
