"""Fan-out across API replicas: a Redis pub/sub channel per game carries its new events' frames.

Local subscribers get the pre-encoded frames at once (as with the in-process broadcaster). Other
replicas get the same frames through Redis, per audience, already redacted (spectator frames are always
encoded when Redis links replicas, since spectators are who a second process serves), so a replica
that serves only sockets writes them to its transports without reading the store; an audience missing
from the message reads the store, and so does anyone after a lost message, so a message lost in
pub/sub costs latency, never correctness (the stream handler also catches up on any gap).

What a replica hears (``SALVO_REDIS_SUBSCRIBE``): ``all`` pattern-subscribes to every game (a command
replica whose cached heads must hear every other replica's appends); ``games`` subscribes to a game's
channel when the process gets its first listener for it and unsubscribes after the last leaves, so a
socket process receives only the games its sockets watch. The subscribe race: a socket reads the store
from the moment it listens, but Redis delivers only what is published after the SUBSCRIBE is applied,
so an event committed and published in between reaches neither. Hence each SUBSCRIBE's confirmation
(and each re-subscription after a reconnect) is followed by a read of the stored head, delivered as a
bare notification: a socket behind it catches up from the store (fanout/stream gap handling), one
already there ignores it. Publishing follows the commit, so after the confirmation every event is
either in that head or arrives through Redis.

Messages: ``F`` + msgpack ``[origin, [[seq, {audience: frame | None} | None], …]]``; the older text form
``"<origin>:<seq>"`` (a bare notification) is still understood.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Awaitable, Callable
from collections.abc import Set as AbstractSet

import msgspec
import redis.asyncio as redis

from .broadcast import InProcessBroadcaster, Item, Subscription
from .fanout import Fanout, Sink

CHANNEL_PREFIX = "salvo:game:"
CONTROL_PREFIX = "salvo:replica:"  # each replica's own channel: keeps its pub/sub connection open
FRAMED = b"F"
MODES = ("all", "games")
_encode = msgspec.msgpack.Encoder().encode
_decode = msgspec.msgpack.Decoder(tuple[str, list[tuple[int, dict[str, bytes | None] | None]]]).decode
log = logging.getLogger("salvo.redis")


class _WatchedFanout(Fanout):
    """The fan-out, telling the broadcaster when a game gets its first sink and loses its last."""

    def __init__(self, limit: int, changed: Callable[[str], None] | None = None) -> None:
        super().__init__(limit)
        self.changed = changed

    def add(self, game_id: str, sink: Sink) -> None:
        first = not self.listening(game_id)
        super().add(game_id, sink)
        if first and self.changed is not None:
            self.changed(game_id)

    def remove(self, game_id: str, sink: Sink) -> None:
        had = bool(self.listening(game_id))
        super().remove(game_id, sink)
        if had and not self.listening(game_id) and self.changed is not None:
            self.changed(game_id)


class RedisBroadcaster(InProcessBroadcaster):
    def __init__(self, url: str, on_remote: Callable[[str, int], None] | None = None,
                 buffer_limit: int = 1 << 20, subscribe: str = "all",
                 head_of: Callable[[str], Awaitable[int]] | None = None) -> None:
        if subscribe not in MODES:
            raise ValueError(f"SALVO_REDIS_SUBSCRIBE: one of {', '.join(MODES)}, not {subscribe!r}")
        super().__init__(buffer_limit)
        self.url = url
        self.on_remote = on_remote  # e.g. GameService.note_remote_append: drop a stale cached head
        self.head_of = head_of  # the stored head (EventStore.head): the check after each SUBSCRIBE
        self.per_game = subscribe == "games"
        self.origin = uuid.uuid4().hex  # this replica, so it ignores its own notifications
        self.fanout = _WatchedFanout(buffer_limit, self._changed if self.per_game else None)
        self._client: redis.Redis | None = None
        self._pubsub: redis.client.PubSub | None = None
        self._listener: asyncio.Task[None] | None = None
        self._syncer: asyncio.Task[None] | None = None
        self._wanted: set[str] = set()  # games with a local listener (per-game mode)
        self._sent: set[str] = set()  # games whose SUBSCRIBE was sent and not since undone
        self._dirty = asyncio.Event()
        self._checks: set[asyncio.Task[None]] = set()
        self.subscribes = self.unsubscribes = self.head_checks = 0  # counters, for tests and /metrics

    async def start(self) -> None:
        # named, so an operator (or a test) can tell the replicas' connections apart in CLIENT LIST
        self._client = redis.Redis.from_url(self.url, client_name=f"salvo-{self.origin}")
        self._pubsub = self._client.pubsub()
        if self.per_game:
            await self._pubsub.subscribe(CONTROL_PREFIX + self.origin)
            self._syncer = asyncio.create_task(self._sync())
        else:
            await self._pubsub.psubscribe(CHANNEL_PREFIX + "*")
        self._listener = asyncio.create_task(self._listen(self._pubsub))

    def listening(self, game_id: str) -> AbstractSet[str]:
        return super().listening(game_id) | {"spectator"}  # other replicas' spectators

    # --- per-game subscriptions ------------------------------------------------------------------------

    def subscribe(self, game_id: str, maxsize: int, audience: str = "spectator") -> Subscription:
        sub = super().subscribe(game_id, maxsize, audience)
        if self.per_game:
            self._changed(game_id)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        super().unsubscribe(sub)
        if self.per_game:
            self._changed(sub.game_id)

    def _changed(self, game_id: str) -> None:
        """A game gained its first local listener or lost its last: the syncer sends the difference (so
        a socket that leaves and one that joins at once cost nothing)."""
        if self.subscribers(game_id) or self.fanout.listening(game_id):
            self._wanted.add(game_id)
        else:
            self._wanted.discard(game_id)
        self._dirty.set()

    def watched(self) -> set[str]:
        """The games this replica has asked Redis for (per-game mode)."""
        return set(self._sent)

    async def _sync(self) -> None:
        while True:
            await self._dirty.wait()
            self._dirty.clear()
            pubsub = self._pubsub
            if pubsub is None:
                return
            join, leave = self._wanted - self._sent, self._sent - self._wanted
            try:
                if join:
                    await pubsub.subscribe(*(CHANNEL_PREFIX + g for g in join))
                    self.subscribes += len(join)
                if leave:
                    await pubsub.unsubscribe(*(CHANNEL_PREFIX + g for g in leave))
                    self.unsubscribes += len(leave)
            except (ConnectionError, OSError, redis.RedisError):
                # Redis away: try again shortly; sockets read the store meanwhile (and on the confirmation)
                await asyncio.sleep(0.5)
                self._dirty.set()
                continue
            self._sent = (self._sent | join) - leave

    def _confirmed(self, game_id: str) -> None:
        """Redis applied a SUBSCRIBE (first or after a reconnect): what was published before it may
        have reached no one here, so compare with the stored head."""
        if game_id not in self._wanted or self.head_of is None:
            return
        task = asyncio.get_running_loop().create_task(self._check_head(game_id, self.head_of))
        self._checks.add(task)
        task.add_done_callback(self._checks.discard)

    async def _check_head(self, game_id: str, head_of: Callable[[str], Awaitable[int]]) -> None:
        try:
            head = await head_of(game_id)
        except Exception:  # the store away: the sockets' own catch-up and the next event's gap cover it
            log.warning("stored head unreadable after subscribing", extra={"game_id": game_id}, exc_info=True)
            return
        self.head_checks += 1
        if head > 0:
            if self.on_remote is not None:
                self.on_remote(game_id, head)
            self.deliver(game_id, [(head, None)])  # anyone behind it reads the store; the rest skip it

    # --- receiving -------------------------------------------------------------------------------------

    async def _listen(self, pubsub: redis.client.PubSub) -> None:
        while True:
            try:
                message = await pubsub.get_message(timeout=1.0)
            except (ConnectionError, OSError, redis.RedisError):
                await asyncio.sleep(0.5)  # Redis away: live fan-out pauses, clients catch up later
                continue
            if message is None:
                continue
            kind = message.get("type")
            channel = message["channel"].decode()
            if not channel.startswith(CHANNEL_PREFIX):
                continue
            game_id = channel[len(CHANNEL_PREFIX):]
            if kind == "subscribe":
                self._confirmed(game_id)
                continue
            if kind not in ("message", "pmessage"):
                continue
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

    async def health(self) -> str:
        """Readiness: "ok", or "degraded: ..." (never a reason to stop serving: see api/readiness.py)."""
        try:
            await asyncio.wait_for(self.ping(), 0.5)
        except Exception as exc:  # noqa: BLE001 - any failure is a degraded fan-out
            return f"degraded: {type(exc).__name__}"
        return "ok"

    async def publish(self, game_id: str, items: list[Item]) -> None:
        self.deliver(game_id, items)
        if self._client is not None and items:
            with contextlib.suppress(redis.RedisError, OSError):
                await self._client.publish(CHANNEL_PREFIX + game_id, FRAMED + _encode((self.origin, items)))

    async def close(self) -> None:
        for task in (self._listener, self._syncer, *self._checks):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        if self._pubsub is not None:
            with contextlib.suppress(redis.RedisError, OSError):
                await self._pubsub.aclose()
            self._pubsub = None
        if self._client is not None:
            await self._client.aclose()
        await super().close()
        self.fanout = _WatchedFanout(self.fanout.limit, self._changed if self.per_game else None)
        self._wanted.clear()
        self._sent.clear()
