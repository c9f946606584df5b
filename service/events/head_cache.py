"""Game heads in memory: at most ``capacity``, least recently used evicted, each loaded from the latest
usable snapshot plus the tail after it; one lock per game in use, serializing its writers.

Evicting a head is always safe: the store is the truth, and a head is only ever changed after its
events are durable. A lock lives while someone holds it (a weak mapping), so idle games cost nothing.
"""

from __future__ import annotations

import asyncio
import weakref
from collections import OrderedDict

import msgspec

from service.domain.core import find_ruleset

from .errors import GameNotFound
from .event_store import EventStore
from .head import MARKER_TYPES, GameHead, build_head, decode_state

DEFAULT_CAPACITY = 2000


class GameLock(asyncio.Lock):
    """A game's lock, with a synchronous ``try_acquire`` for the uncontended case: the command pipeline
    takes a free lock without the ``async with`` coroutines (``acquire``/``release`` as asyncio's)."""

    _locked: bool  # asyncio.Lock's own flag (acquire's first test, done here synchronously)

    def try_acquire(self) -> bool:
        """Take the lock now if ``acquire`` would without waiting (free, and nobody queued for it)."""
        if not self._locked and (not self._waiters or all(w.cancelled() for w in self._waiters)):
            self._locked = True
            return True
        return False

    def release(self) -> None:
        """asyncio's ``release``, without its call to wake a waiter when nobody waits (the usual case)."""
        if self._locked and not self._waiters:
            self._locked = False
        else:
            super().release()


class HeadCache:
    def __init__(self, store: EventStore, capacity: int = DEFAULT_CAPACITY, verify_reads: bool = False) -> None:
        self.store = store
        self.capacity = max(1, capacity)
        # without a broadcaster telling this process about other replicas' appends, a cached head may
        # be behind the log: reads then compare it with the stored head seq first
        self.verify_reads = verify_reads
        self._heads: OrderedDict[str, GameHead] = OrderedDict()
        self._locks: weakref.WeakValueDictionary[str, GameLock] = weakref.WeakValueDictionary()
        # the locks of cached heads, held strongly while the head is (one per cached game at most): the
        # weak mapping's lookup and a fresh Lock per command were a measurable part of a command
        self._held: dict[str, GameLock] = {}
        # the highest seq this process has queued for a game: a stored head up to it is our own commit
        # whose head update is on its way (the command pipeline), not another writer's append
        self._own: dict[str, int] = {}
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._heads)

    def cached(self, game_id: str) -> GameHead | None:
        head = self._heads.get(game_id)
        if head is not None:
            self._heads.move_to_end(game_id)
        return head

    def peek(self, game_id: str) -> GameHead | None:
        """The cached head, its place in the eviction order left as it is (a caller that just used it)."""
        return self._heads.get(game_id)

    def hit(self, game_id: str) -> GameHead | None:
        """The cached head, counted as a hit (None: ``get`` must load it); ``cached`` inlined (once a command)."""
        head = self._heads.get(game_id)
        if head is not None:
            self._heads.move_to_end(game_id)
            self.hits += 1
        return head

    async def get(self, game_id: str) -> GameHead:
        head = self.cached(game_id)
        if head is not None:
            self.hits += 1
            return head
        async with self.lock(game_id):  # one load per game, however many ask at once
            return await self.get_locked(game_id)

    async def get_fresh(self, game_id: str) -> GameHead:
        """The head, checked against the stored head seq when other writers may exist unannounced."""
        head = await self.get(game_id)
        if self.verify_reads and await self.store.head(game_id) > max(head.seq, self._own.get(game_id, 0)):
            async with self.lock(game_id):
                current = self.cached(game_id)
                if current is None or await self.store.head(game_id) > max(current.seq, self._own.get(game_id, 0)):
                    self.forget(game_id)
                    current = await self.load(game_id)
                head = current
        return head

    async def get_locked(self, game_id: str) -> GameHead:
        """The head, loading it if needed, for a caller already holding the game's lock."""
        head = self.cached(game_id)
        if head is not None:
            self.hits += 1
            return head
        self.misses += 1
        return await self.load(game_id)

    async def load(self, game_id: str) -> GameHead:
        """Latest usable snapshot + the tail after it (a snapshot taken after the earliest rewind target
        cannot be used: the fold must pass that target to restore it). Call it holding the game's lock."""
        game_row = await self.store.game(game_id)
        if game_row is None:
            raise GameNotFound(f"no game {game_id!r}")
        ruleset = find_ruleset(game_row.ruleset)
        setup = ruleset.parse_setup(msgspec.json.decode(game_row.setup))
        markers = await self.store.read_events_of_types(game_id, MARKER_TYPES)
        targets = [int(msgspec.json.decode(m.data)["to_seq"]) for m in markers if m.type == "game.rewound"]
        limit = min(targets) if targets else None
        snap = await self.store.snapshot(game_id, limit if limit is not None else 2**31 - 1)
        if snap is None:
            start_state, start_seq = ruleset.initial_state(setup), 0
        else:
            start_state, start_seq = decode_state(ruleset, bytes(snap.state)), int(snap.seq)
        tail = await self.store.read_events(game_id, after=start_seq)
        head = build_head(game_id, ruleset, setup, start_state, start_seq, tail, markers)
        self._heads[game_id] = head
        self._heads.move_to_end(game_id)
        while len(self._heads) > self.capacity:
            evicted, _ = self._heads.popitem(last=False)
            self._own.pop(evicted, None)
            self._held.pop(evicted, None)
        return head

    def lock(self, game_id: str) -> GameLock:
        lock = self._held.get(game_id)  # a game being commanded: a plain dict lookup
        if lock is not None:
            return lock
        lock = self._locks.get(game_id)
        if lock is None:
            lock = GameLock()
            self._locks[game_id] = lock
        if game_id in self._heads:
            self._held[game_id] = lock
        return lock

    def forget(self, game_id: str) -> None:
        self._heads.pop(game_id, None)
        self._own.pop(game_id, None)
        self._held.pop(game_id, None)

    def note_own_write(self, game_id: str, seq: int) -> None:
        """This process queued rows of ``game_id`` up to ``seq`` (they reach the cached head once durable)."""
        own = self._own
        if seq > own.get(game_id, 0):
            own[game_id] = seq
        if len(own) > 2 * self.capacity:  # games no longer held
            for gid in [g for g in own if g not in self._heads]:
                del own[gid]

    def note_remote_append(self, game_id: str, seq: int) -> None:
        """Another replica appended up to ``seq``: a cached head that is behind must be refolded."""
        head = self._heads.get(game_id)
        if head is not None and head.seq < seq:
            self.forget(game_id)

    def hit_ratio(self) -> float:
        total = self.hits + self.misses
        return self.hits / total if total else 0.0
