"""Live fan-out. The interface carries "game X has events up to seq N", optionally with the frames
already encoded per audience; a subscriber that gets no frames (or sees a gap) reads the store, so a
lost message costs latency, never correctness. The Redis implementation plugs in behind the same
interface."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .log_poller import HeadsOf, LogPoller

Frames = dict[str, bytes | None]  # audience ("umpire", "spectator", "seat:red") -> frame, None = hidden
Item = tuple[int, Frames | None]


class Subscription:
    """One connection's bounded queue. Overflow marks it; the socket is then closed as resumable."""

    def __init__(self, game_id: str, maxsize: int, audience: str = "spectator") -> None:
        self.game_id = game_id
        self.audience = audience
        self.maxsize = maxsize
        self.overflowed = False
        self.closed = False  # the client went away: stop waiting at once
        self.restarting = False  # the server is shutting down: close with 1012 and the resume seq
        self.view: str | None = None  # frames=view: "view:<audience>", listened for too (frames.VIEW)
        self._items: deque[Item] = deque()
        self._ready = asyncio.Event()

    def push(self, item: Item) -> None:
        if len(self._items) >= self.maxsize:
            self.overflowed = True
        else:
            self._items.append(item)
        self._ready.set()

    def close(self) -> None:
        self.closed = True
        self._ready.set()

    def restart(self) -> None:
        self.restarting = True
        self._ready.set()

    def empty(self) -> bool:
        return not self._items

    async def next(self, timeout: float) -> Item | None:
        """The next item, or None on timeout (time for a heartbeat) or overflow (check ``overflowed``)."""
        if not self._items and not self.overflowed and not self.closed:
            self._ready.clear()
            try:
                await asyncio.wait_for(self._ready.wait(), timeout)
            except TimeoutError:
                return None
        if self.overflowed or self.closed or self.restarting or not self._items:
            return None
        return self._items.popleft()


class Broadcaster(Protocol):
    def subscribe(self, game_id: str, maxsize: int, audience: str = "spectator") -> Subscription: ...

    def listening(self, game_id: str) -> AbstractSet[str]: ...

    def unsubscribe(self, sub: Subscription) -> None: ...

    def publish(self, game_id: str, items: list[Item]) -> Awaitable[None] | None:
        """Hand the items to live streams; an awaitable only when delivery has to wait (Redis)."""

    def restart_all(self) -> int: ...

    async def start(self) -> None: ...

    async def close(self) -> None: ...


class InProcessBroadcaster:
    """Queued subscriptions (the stream's normal send path, and the bots) and the pre-framed fan-out
    (sockets whose transport is written directly, ``fanout``); every delivery reaches both."""

    def __init__(self, buffer_limit: int = 1 << 20) -> None:
        from .fast.fanout import Fanout  # fanout imports Item from here

        self._subs: dict[str, set[Subscription]] = {}
        self.fanout = Fanout(buffer_limit)
        self._delivered: dict[str, int] = {}  # game -> the highest seq delivered here (the log poller's mark)
        self.poller: LogPoller | None = None

    def subscribe(self, game_id: str, maxsize: int, audience: str = "spectator") -> Subscription:
        sub = Subscription(game_id, maxsize, audience)
        self._subs.setdefault(game_id, set()).add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        subs = self._subs.get(sub.game_id)
        if subs is not None:
            subs.discard(sub)
            if not subs:
                del self._subs[sub.game_id]

    def publish(self, game_id: str, items: list[Item]) -> Awaitable[None] | None:
        """Delivered at once: nothing to await (no coroutine per command)."""
        self.deliver(game_id, items)
        return None

    def deliver(self, game_id: str, items: list[Item]) -> None:
        subs = self._subs.get(game_id)
        if subs:
            for sub in list(subs):
                for item in items:
                    sub.push(item)
        self.fanout.deliver(game_id, items)
        if items:
            top = items[0][0] if len(items) == 1 else max(seq for seq, _ in items)
            if top > self._delivered.get(game_id, 0):
                self._delivered[game_id] = top

    def delivered(self, game_id: str) -> int:
        """The highest seq delivered to this process's listeners of the game (0: none yet)."""
        return self._delivered.get(game_id, 0)

    def watched_games(self) -> set[str]:
        """The games with a listener here (a queued subscription or a directly written socket)."""
        watched = set(self._subs) | set(self.fanout.games())
        for game_id in [g for g in self._delivered if g not in watched]:
            del self._delivered[game_id]  # nobody listens any more: forgotten
        return watched

    def poll_log(self, heads_of: HeadsOf, every: float | None = None) -> None:
        """Without a live fan-out between replicas: poll the stored log for the watched games (started
        with the broadcaster), so a socket here gets another replica's events within ``every`` seconds."""
        from .log_poller import POLL_EVERY, LogPoller  # (log_poller imports Item from here)

        self.poller = LogPoller(self, heads_of, every or POLL_EVERY)

    def listening(self, game_id: str) -> AbstractSet[str]:
        heard = self.fanout.listening(game_id)  # a view: copied only when subscriptions add to it
        subs = self._subs.get(game_id)
        if subs:
            return heard | {sub.audience for sub in subs} | {sub.view for sub in subs if sub.view is not None}
        return heard

    def restart_all(self) -> int:
        """Ask every stream to close as resumable (graceful shutdown); returns how many there were."""
        subs = [sub for group in self._subs.values() for sub in group]
        for sub in subs:
            sub.restart()
        return len(subs) + self.fanout.restart_all()

    def open_streams(self) -> int:
        return sum(len(group) for group in self._subs.values()) + self.fanout.count()

    def subscribers(self, game_id: str) -> int:
        return len(self._subs.get(game_id, ()))

    async def start(self) -> None:
        if self.poller is not None:
            self.poller.start()

    async def close(self) -> None:
        if self.poller is not None:
            await self.poller.close()
        self._subs.clear()
        self._delivered.clear()
        self.fanout = type(self.fanout)(self.fanout.limit)
