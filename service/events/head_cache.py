"""Game heads in memory: one per game, loaded from the latest usable snapshot plus the tail after it,
and one lock per game that serializes its writers."""

from __future__ import annotations

import asyncio

import msgspec

from service.domain.core import find_ruleset

from .errors import GameNotFound
from .event_store import EventStore
from .head import MARKER_TYPES, GameHead, build_head, decode_state


class HeadCache:
    def __init__(self, store: EventStore) -> None:
        self.store = store
        self._heads: dict[str, GameHead] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    def cached(self, game_id: str) -> GameHead | None:
        return self._heads.get(game_id)

    async def get(self, game_id: str) -> GameHead:
        head = self._heads.get(game_id)
        if head is None:
            async with self.lock(game_id):
                head = self._heads.get(game_id)
                if head is None:
                    head = await self.load(game_id)
        return head

    async def get_locked(self, game_id: str) -> GameHead:
        """The head, loading it if needed, for a caller already holding the game's lock."""
        return self._heads.get(game_id) or await self.load(game_id)

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
        return head

    def lock(self, game_id: str) -> asyncio.Lock:
        lock = self._locks.get(game_id)
        if lock is None:
            lock = self._locks[game_id] = asyncio.Lock()
        return lock

    def forget(self, game_id: str) -> None:
        self._heads.pop(game_id, None)

    def note_remote_append(self, game_id: str, seq: int) -> None:
        """Another replica appended up to ``seq``: a cached head that is behind must be refolded."""
        head = self._heads.get(game_id)
        if head is not None and head.seq < seq:
            self.forget(game_id)
