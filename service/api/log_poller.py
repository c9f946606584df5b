"""Polling the stored log for the games this process's sockets watch, when no live fan-out tells it of
other replicas' appends: without Redis (two replicas on one database would otherwise never see each
other's events), and with Redis while the replica's subscription is lost (redis_broadcast.py).

Each tick reads the stored head of every watched game (one query) and, for a game whose head is past
what the process has delivered (and was already on the tick before: not its own commit on its way to
being delivered), delivers a bare notification at that seq: its sockets read the store up to it (their
usual gap handling), so they get every event, in order, with no gap, two ticks late at most.
A lone replica pays one small query a tick and delivers nothing (its own commands were delivered).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import Protocol

from service.events.storage_faults import StorageFull, StorageUnavailable

from .broadcast import Item

log = logging.getLogger("salvo.stream")

POLL_EVERY = 1.0  # seconds between polls without Redis
BATCH = 500  # games per query


class Polled(Protocol):
    """What the poller needs of a broadcaster."""

    def watched_games(self) -> set[str]: ...

    def delivered(self, game_id: str) -> int: ...

    def deliver(self, game_id: str, items: list[Item]) -> None: ...


HeadsOf = Callable[[list[str]], Awaitable[dict[str, int]]]


def one_by_one(head_of: Callable[[str], Awaitable[int]]) -> HeadsOf:
    async def heads(game_ids: list[str]) -> dict[str, int]:
        return {g: await head_of(g) for g in game_ids}

    return heads


class LogPoller:
    def __init__(
        self,
        broadcaster: Polled,
        heads_of: HeadsOf,
        every: float = POLL_EVERY,
        active: Callable[[], bool] = lambda: True,
    ) -> None:
        self.broadcaster = broadcaster
        self.heads_of = heads_of
        self.every = every
        self.active = active  # polls only while this says so (Redis: while the subscription is lost)
        self.polls = self.notices = 0  # counters
        self._seen: dict[str, int] = {}  # the last tick's stored heads
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="salvo-log-poller")

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            if self.active():
                try:
                    await self.poll()
                except (StorageUnavailable, StorageFull):
                    pass  # logged by the store; the next tick tries again
                except Exception:  # noqa: BLE001 - a poll must never end the poller
                    log.exception("polling the log failed")

    async def poll(self, games: Iterable[str] | None = None, at_once: bool = False) -> int:
        """One tick (or the given games): notifications delivered. A head past what was delivered is
        notified when the previous tick saw it past already (``at_once``: now): this process's own commit
        may be in the log a moment before its frames are delivered, and is not another replica's append."""
        broadcaster = self.broadcaster
        watched = sorted(broadcaster.watched_games() if games is None else set(games))
        if not watched:
            self._seen = {}
            return 0
        self.polls += 1
        delivered = 0
        seen: dict[str, int] = {}
        for start in range(0, len(watched), BATCH):
            heads = await self.heads_of(watched[start : start + BATCH])
            for game_id, seq in heads.items():
                seen[game_id] = seq
                mark = broadcaster.delivered(game_id)
                if seq > mark and (at_once or self._seen.get(game_id, 0) > mark):
                    broadcaster.deliver(game_id, [(seq, None)])  # its sockets read the store up to it
                    delivered += 1
        if games is None:
            self._seen = seen
        self.notices += delivered
        return delivered

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None
