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
from typing import Any

import msgspec
import redis.asyncio as redis

from service.api.encoding import VIEW, view_body, with_view
from service.events.fresh import labelled_audiences
from service.events.storage_faults import StorageFull, StorageUnavailable

from .broadcast import InProcessBroadcaster, Item, Subscription
from .fast.fanout import Fanout, Sink
from .log_poller import HeadsOf, LogPoller, one_by_one
from .redis_publisher import RedisPublisher

CHANNEL_PREFIX = "salvo:game:"
CONTROL_PREFIX = "salvo:replica:"  # each replica's own channel: keeps its pub/sub connection open
FRAMED = b"F"
MODES = ("all", "games")
HEALTH_EVERY = 0.5  # seconds of silence on the subscription after which it is pinged
LOST_AFTER = 1.5  # seconds without a message (a pong at least) after which the subscription is lost
POLL_EVERY = 0.5  # seconds between polls of the log while it is lost
SUBSCRIBE_TIMEOUT = 2.0  # seconds a (re)connection and its SUBSCRIBE may take
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
    def __init__(
        self,
        url: str,
        on_remote: Callable[[str, int], None] | None = None,
        buffer_limit: int = 1 << 20,
        subscribe: str = "all",
        head_of: Callable[[str], Awaitable[int]] | None = None,
    ) -> None:
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
        # games whose messages wait, in order, for the views this replica's frames=view sockets need
        self._viewing: dict[str, list[list[Item]]] = {}
        self.views_built = 0  # views built here for another replica's update (a counter, for tests)
        self._listener: asyncio.Task[None] | None = None
        self._syncer: asyncio.Task[None] | None = None
        self._wanted: set[str] = set()  # games with a local listener (per-game mode)
        self._sent: set[str] = set()  # games whose SUBSCRIBE was sent and not since undone
        self._dirty = asyncio.Event()
        self._checks: set[asyncio.Task[None]] = set()
        self.subscribes = self.unsubscribes = self.head_checks = 0  # counters, for tests and /metrics
        # Redis is an accelerator: a lost (or never made) subscription is noticed (no message, not even a
        # pong, for LOST_AFTER), and until it is back this replica checks the stored head on reads
        # (``heads.verify_reads``) and polls the log for its sockets; back, it catches up (``_recover``)
        self.heads: Any = None  # the service's HeadCache (set by the app)
        self.heads_of: HeadsOf | None = None  # the store's batched heads (set by the app; else ``head_of``'s)
        self.subscribed = False
        self.losses = self.recoveries = 0  # counters
        self.publisher: RedisPublisher | None = None
        self._base_subscribed = False
        self._heard = 0.0  # loop time of the last message on the subscription
        self._verify_reads: bool | None = None  # the head cache's own setting, kept while it is forced on
        self._watcher: asyncio.Task[None] | None = None
        self._recovering: asyncio.Task[None] | None = None
        self.poller: LogPoller | None = None

    async def start(self) -> None:
        """Subscribe (briefly waited for: a replica starts, degraded, with Redis away), start publishing
        and listening, the health watch and the log poller (idle while subscribed)."""
        # named, so an operator (or a test) can tell the replicas' connections apart in CLIENT LIST
        self._client = redis.Redis.from_url(
            self.url, client_name=f"salvo-{self.origin}", socket_connect_timeout=1.0, socket_timeout=SUBSCRIBE_TIMEOUT
        )
        self._pubsub = self._client.pubsub()
        self.publisher = RedisPublisher(self.url, f"salvo-pub-{self.origin}")
        self.publisher.notice = lambda seq: FRAMED + _encode((self.origin, [(seq, None)]))
        self.publisher.start()
        heads_of = self.heads_of or (one_by_one(self.head_of) if self.head_of is not None else None)
        if heads_of is not None:
            self.poller = LogPoller(self, heads_of, POLL_EVERY, lambda: not self.subscribed)
        if self.heads is not None:
            self._verify_reads = self.heads.verify_reads
        try:
            await asyncio.wait_for(self._subscribe_base(self._pubsub), SUBSCRIBE_TIMEOUT)
            self.subscribed = True
            self._heard = asyncio.get_running_loop().time()
        except (ConnectionError, OSError, redis.RedisError, TimeoutError) as exc:
            self._lost(exc)
        if self.per_game:
            self._syncer = asyncio.create_task(self._sync())
        self._listener = asyncio.create_task(self._listen(self._pubsub))
        self._watcher = asyncio.create_task(self._watch())
        if self.poller is not None:
            self.poller.start()

    async def _subscribe_base(self, pubsub: redis.client.PubSub) -> None:
        if self.per_game:
            await pubsub.subscribe(CONTROL_PREFIX + self.origin)
        else:
            await pubsub.psubscribe(CHANNEL_PREFIX + "*")
        self._base_subscribed = True  # redis-py subscribes it again on each reconnection

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
                    await asyncio.wait_for(pubsub.subscribe(*(CHANNEL_PREFIX + g for g in join)), SUBSCRIBE_TIMEOUT)
                    self.subscribes += len(join)
                if leave:
                    await asyncio.wait_for(pubsub.unsubscribe(*(CHANNEL_PREFIX + g for g in leave)), SUBSCRIBE_TIMEOUT)
                    self.unsubscribes += len(leave)
            except (ConnectionError, OSError, redis.RedisError, TimeoutError):
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
        except (StorageUnavailable, StorageFull):  # logged by the store; the sockets' own catch-up covers it
            return
        except Exception:  # the sockets' own catch-up and the next event's gap cover it
            log.warning("stored head unreadable after subscribing", extra={"game_id": game_id}, exc_info=True)
            return
        self.head_checks += 1
        if head > 0:
            if self.on_remote is not None:
                self.on_remote(game_id, head)
            self.deliver(game_id, [(head, None)])  # anyone behind it reads the store; the rest skip it

    # --- receiving -------------------------------------------------------------------------------------

    async def _listen(self, pubsub: redis.client.PubSub) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                if not self._base_subscribed:  # never subscribed yet (Redis was away at the start)
                    await asyncio.wait_for(self._subscribe_base(pubsub), SUBSCRIBE_TIMEOUT)
                message = await pubsub.get_message(timeout=1.0)
            except (ConnectionError, OSError, RuntimeError, redis.RedisError, TimeoutError) as exc:
                self._lost(exc)  # Redis away: the log is polled until the subscription is back
                await asyncio.sleep(0.5)
                continue
            if message is not None:
                self._on_message(message, loop)

    def _on_message(self, message: dict[str, Any], loop: asyncio.AbstractEventLoop) -> None:
        """One message from the subscription: a game's channel confirmed, or another replica's update
        delivered (this replica's own, and pongs, ignored)."""
        self._heard = loop.time()
        if not self.subscribed and self._recovering is None:  # a message again: the subscription is back
            self._recovering = loop.create_task(self._recover())
        kind = message.get("type")
        raw_channel = message.get("channel")
        if not isinstance(raw_channel, bytes):  # a pong
            return
        channel = raw_channel.decode()
        if not channel.startswith(CHANNEL_PREFIX):
            return
        game_id = channel[len(CHANNEL_PREFIX) :]
        if kind == "subscribe":
            self._confirmed(game_id)
            return
        if kind not in ("message", "pmessage"):
            return
        remote = self._remote_items(message["data"])
        if remote is None or not remote[1]:
            return
        origin, items = remote
        if origin == self.origin:
            return
        if self.on_remote is not None:
            self.on_remote(game_id, max(seq for seq, _ in items))
        self._deliver_remote(game_id, items)

    # --- frames=view sockets of another replica's update ---------------------------------------------

    def _deliver_remote(self, game_id: str, items: list[Item]) -> None:
        """Another replica's update: delivered at once, unless this replica's frames=view sockets need a
        view it did not send (it builds views only for its own sockets); that view is built here, once per
        audience and update (``_with_views``), and the game's messages wait for it, in order."""
        waiting = self._viewing.get(game_id)
        if waiting is not None:
            waiting.append(items)
        elif self.heads is not None and self._views_missing(game_id, items):
            self._viewing[game_id] = [items]
            asyncio.get_running_loop().create_task(self._with_views(game_id))
        else:
            self.deliver(game_id, items)

    def _views_missing(self, game_id: str, items: list[Item]) -> list[str]:
        frames = items[-1][1]
        if frames is None:  # a bare notification: the sockets read the store (and its head's view)
            return []
        return [
            k for k in self.listening(game_id) if k.startswith(VIEW) and k not in frames and k[len(VIEW) :] in frames
        ]

    async def _with_views(self, game_id: str) -> None:
        waiting = self._viewing[game_id]
        try:
            while waiting:
                items = waiting.pop(0)
                missing = self._views_missing(game_id, items)
                if missing:
                    seq, frames = items[-1]
                    try:
                        head = await self.heads.get(game_id)  # refolded up to the remote append (on_remote)
                    except Exception:  # noqa: BLE001 - no view then: those sockets read the store
                        log.warning("no head for a remote update's view", exc_info=True)
                        head = None
                    if head is not None and head.seq == seq and frames is not None:
                        viewers = {label: viewer for viewer, label in labelled_audiences(head)}
                        for key in missing:
                            label = key[len(VIEW) :]
                            if label in viewers:
                                frames[key] = with_view(frames[label], seq, view_body(head, viewers[label], label))
                                self.views_built += 1
                self.deliver(game_id, items)
        finally:
            self._viewing.pop(game_id, None)

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

    # --- the subscription's health --------------------------------------------------------------------

    async def _watch(self) -> None:
        """Ping a quiet subscription; no message at all for LOST_AFTER (a frozen Redis answers nothing,
        and raises nothing either) and it is lost."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(HEALTH_EVERY)
            pubsub = self._pubsub
            quiet = loop.time() - self._heard
            if pubsub is not None and self._base_subscribed and quiet >= HEALTH_EVERY:
                with contextlib.suppress(ConnectionError, OSError, RuntimeError, redis.RedisError, TimeoutError):
                    await asyncio.wait_for(pubsub.ping(), HEALTH_EVERY)  # its pong comes to ``_listen``
            if self.subscribed and loop.time() - self._heard > LOST_AFTER:
                self._lost(TimeoutError(f"no message for {LOST_AFTER} s"))

    def _lost(self, why: BaseException) -> None:
        """The subscription is gone: reads check the stored head, the poller polls the log."""
        if self.heads is not None:
            if self._verify_reads is None:
                self._verify_reads = self.heads.verify_reads
            self.heads.verify_reads = True
        if not self.subscribed:
            return
        self.subscribed = False
        self.losses += 1
        log.warning(
            "redis subscription lost (%s): polling the log every %.1f s until it is back",
            type(why).__name__,
            POLL_EVERY,
        )

    async def _recover(self) -> None:
        """The subscription is back: what was missed meanwhile reaches the sockets (a bare notification at
        each watched game's stored head: they read the store up to it, no gap) and every cached head is
        checked against the log, then reads trust the cache again."""
        try:
            if self.poller is not None:
                await self.poller.poll(at_once=True)
                heads = self.heads
                if heads is not None and self.on_remote is not None:
                    cached = heads.games()
                    for start in range(0, len(cached), 500):
                        stored = await self.poller.heads_of(cached[start : start + 500])
                        for game_id, seq in stored.items():
                            self.on_remote(game_id, seq)
        except Exception:  # noqa: BLE001 - the store away too: still lost; the next message tries again
            return
        finally:
            self._recovering = None
        if self.heads is not None and self._verify_reads is not None:
            self.heads.verify_reads = self._verify_reads
        if not self.subscribed:
            self.subscribed = True
            self.recoveries += 1
            log.warning("redis subscription back: caught up from the log")

    async def ping(self) -> None:
        """One round trip to Redis."""
        if self._client is None:
            raise ConnectionError("not started")
        await self._client.ping()

    async def health(self) -> str:
        """Readiness: "ok", or "degraded: ..." (never a reason to stop serving: see api/readiness.py).
        Answered from what the listener and the publisher know: no round trip, nothing to wait for."""
        problems = []
        if not self.subscribed:
            problems.append("subscription lost, polling the log")
        if self.publisher is not None and self.publisher.breaker.tripped:
            problems.append("publishes failing (circuit open)")
        return "degraded: " + "; ".join(problems) if problems else "ok"

    def publish(self, game_id: str, items: list[Item]) -> None:
        """Delivered here at once; queued for Redis (``RedisPublisher``: never awaited by the command)."""
        self.deliver(game_id, items)
        publisher = self.publisher
        if publisher is not None and items:
            top = items[0][0] if len(items) == 1 else max(seq for seq, _ in items)
            publisher.send(CHANNEL_PREFIX + game_id, FRAMED + _encode((self.origin, items)), top)

    async def flush(self) -> None:
        """Until what was published has been sent to Redis (or dropped)."""
        if self.publisher is not None:
            await self.publisher.flush()

    async def close(self) -> None:
        for task in (self._listener, self._syncer, self._watcher, self._recovering, *self._checks):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._listener = self._syncer = self._watcher = self._recovering = None
        if self.poller is not None:
            await self.poller.close()
        if self.publisher is not None:
            await self.publisher.close()
            self.publisher = None
        if self._pubsub is not None:
            with contextlib.suppress(redis.RedisError, OSError, TimeoutError):
                await asyncio.wait_for(self._pubsub.aclose(), 1.0)
            self._pubsub = None
        if self._client is not None:
            with contextlib.suppress(redis.RedisError, OSError, TimeoutError):
                await asyncio.wait_for(self._client.aclose(), 1.0)
        await super().close()
        self.fanout = _WatchedFanout(self.fanout.limit, self._changed if self.per_game else None)
        self._wanted.clear()
        self._sent.clear()
