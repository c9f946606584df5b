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

from .errors import GameNotFound, GameTooLarge
from .event_store import Conflict, EventStore, WriteBatch
from .head import MARKER_TYPES, GameHead, HeadBuilder, decode_state, encode_state

DEFAULT_CAPACITY = 2000
DEFAULT_BUDGET_BYTES = 256 * 2**20  # all cached heads' states, as encoded (SALVO_HEAD_CACHE_BYTES)
DEFAULT_MAX_GAME_BYTES = 16 * 2**20  # one game's state, as encoded (SALVO_MAX_GAME_BYTES)
PAGE_ROWS = 1000  # rows read from the store at a time while folding a log


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
    """``budget_bytes``: the cached heads' states together, measured as their encoded size (a state's
    objects in memory take a few times that: docs/benchmarks.md); the least recently used are evicted
    past it as past ``capacity``. ``max_game_bytes``: one game's state; a load that folds past it is
    refused (GameTooLarge), never an out-of-memory. ``snapshot_every``: a load that folds more events
    than this writes snapshots on its way (imports, forks and rewound games get them as commands do)."""

    def __init__(
        self,
        store: EventStore,
        capacity: int = DEFAULT_CAPACITY,
        verify_reads: bool = False,
        snapshot_every: int = 500,
        budget_bytes: int = DEFAULT_BUDGET_BYTES,
        max_game_bytes: int = DEFAULT_MAX_GAME_BYTES,
    ) -> None:
        self.store = store
        self.capacity = max(1, capacity)
        self.snapshot_every = max(1, snapshot_every)
        self.budget_bytes = budget_bytes
        self.max_game_bytes = max_game_bytes
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
        cannot be used: the fold must pass that target to restore it). Call it holding the game's lock.
        The tail is read and folded a page at a time; every ``snapshot_every`` events folded a snapshot is
        written (at a command boundary), so the next load of this game folds at most that many."""
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
        # snapshots past the earliest rewind target would never be used (see above): none written there
        builder = HeadBuilder(game_id, ruleset, setup, start_state, start_seq, markers, watch_boundaries=limit is None)
        last_snapshot = start_seq
        after = start_seq
        while True:
            rows = await self.store.read_events(game_id, after=after, limit=PAGE_ROWS)
            if not rows:
                break
            builder.feed(rows)
            after = int(rows[-1].seq)
            for seq, state in builder.boundaries:
                if seq - last_snapshot >= self.snapshot_every:
                    await self._snapshot(game_id, seq, state)
                    last_snapshot = seq
            builder.boundaries.clear()
            if len(rows) < PAGE_ROWS:
                break
        head = builder.finish()
        size = len(encode_state(head.state))
        if size > self.max_game_bytes:
            raise GameTooLarge(
                f"game {game_id} holds {size:,} bytes of state, more than this server's budget of "
                f"{self.max_game_bytes:,} for one game (SALVO_MAX_GAME_BYTES)"
            )
        head.state_bytes = size
        self._heads[game_id] = head
        self._heads.move_to_end(game_id)
        total = self.bytes
        while len(self._heads) > 1 and (len(self._heads) > self.capacity or total > self.budget_bytes):
            evicted, gone = self._heads.popitem(last=False)
            self._drop(evicted)
            total -= gone.state_bytes
        return head

    @property
    def bytes(self) -> int:
        """The cached heads' states, as encoded when last measured (at a load, at each snapshot)."""
        return sum(head.state_bytes for head in self._heads.values())

    async def _snapshot(self, game_id: str, seq: int, state: object) -> None:
        data = encode_state(state)
        if len(data) > self.max_game_bytes:
            raise GameTooLarge(
                f"game {game_id} holds {len(data):,} bytes of state at seq {seq}, more than this "
                f"server's budget of {self.max_game_bytes:,} for one game (SALVO_MAX_GAME_BYTES)"
            )
        try:
            await self.store.write(
                WriteBatch(game_id=game_id, snapshot={"game_id": game_id, "seq": seq, "state": data})
            )
        except Conflict:  # written meanwhile (by a command or another replica): the same state
            pass

    def _drop(self, game_id: str) -> None:
        self._own.pop(game_id, None)
        self._held.pop(game_id, None)

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

    def games(self) -> list[str]:
        """The games whose head is cached (a replica back from a lost fan-out checks each)."""
        return list(self._heads)

    def forget(self, game_id: str) -> None:
        self._heads.pop(game_id, None)
        self._drop(game_id)

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
