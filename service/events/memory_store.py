"""An in-memory EventStore: the same contract as the SQL store (tests/events/test_store.py runs the
same suite against both), for tests, tools and benchmarks that need no database."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from .event_store import Conflict, WriteBatch, predecessor_failure


def _row(values: dict[str, Any]) -> SimpleNamespace:
    return SimpleNamespace(**values)


class MemoryEventStore:
    backend = "memory"

    def __init__(self) -> None:
        self._games: dict[str, SimpleNamespace] = {}
        self._seats: dict[str, SimpleNamespace] = {}
        self._seeds: dict[tuple[str, int], SimpleNamespace] = {}
        self._events: dict[str, dict[int, SimpleNamespace]] = {}
        self._idempotency: dict[tuple[str, str], SimpleNamespace] = {}
        self._snapshots: dict[str, dict[int, SimpleNamespace]] = {}
        self.commits = 0
        self.batches = 0
        self.observe_write: Callable[[float], None] | None = None
        self.observe_group: Callable[[int], None] | None = None

    def start(self) -> None:
        return None

    def close(self) -> None:
        return None

    async def write(self, batch: WriteBatch) -> None:
        await self.submit(batch)

    def submit(self, batch: WriteBatch) -> asyncio.Future[None]:
        """Applied at once; the future says how it went (the same contract as the SQL store)."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        try:
            failure = predecessor_failure(batch)
            if failure is not None:
                raise failure
            self._apply(batch)
        except Exception as exc:  # noqa: BLE001 - handed to the waiting command
            batch.failed = exc
            future.set_exception(exc)
        else:
            future.set_result(None)
        return future

    def _apply(self, batch: WriteBatch) -> None:
        self._check(batch)  # all or nothing: every key is checked before anything is applied
        if batch.game is not None:
            self._games[batch.game["id"]] = _row(batch.game)
        for seat in batch.seats:
            self._seats[seat["token_hash"]] = _row(seat)
        for seed in batch.seeds:
            self._seeds[(seed["game_id"], seed["turn"])] = _row(seed)
        for event in batch.events:
            self._events.setdefault(event["game_id"], {})[event["seq"]] = _row(event)
        if batch.idempotency is not None:
            self._idempotency[(batch.idempotency["game_id"], batch.idempotency["key"])] = _row(batch.idempotency)
        for snap in [batch.snapshot] if batch.snapshot is not None else batch.snapshots:
            self._snapshots.setdefault(snap["game_id"], {})[snap["seq"]] = _row(snap)
        self.commits += 1
        self.batches += 1
        if self.observe_group is not None:
            self.observe_group(1)
        if self.observe_write is not None:
            self.observe_write(0.0)

    async def ping(self) -> None:
        return None

    def _check(self, batch: WriteBatch) -> None:
        def clash(what: str) -> Conflict:
            return Conflict(f"duplicate {what} in game {batch.game_id}")

        if batch.game is not None and batch.game["id"] in self._games:
            raise clash("game id")
        if any(s["token_hash"] in self._seats for s in batch.seats):
            raise clash("token")
        if any((s["game_id"], s["turn"]) in self._seeds for s in batch.seeds):
            raise clash("seed turn")
        keys = [(e["game_id"], e["seq"]) for e in batch.events]
        if len(set(keys)) != len(keys) or any(seq in self._events.get(g, {}) for g, seq in keys):
            raise clash("seq")
        idem = batch.idempotency
        if idem is not None and (idem["game_id"], idem["key"]) in self._idempotency:
            raise clash("idempotency key")
        snap = batch.snapshot
        if snap is not None and snap["seq"] in self._snapshots.get(snap["game_id"], {}):
            raise clash("snapshot")

    async def read_events(
        self, game_id: str, after: int = 0, upto: int | None = None, limit: int | None = None
    ) -> list[Any]:
        rows = [
            r
            for seq, r in sorted(self._events.get(game_id, {}).items())
            if seq > after and (upto is None or seq <= upto)
        ]
        return rows if limit is None else rows[:limit]

    async def read_events_of_types(self, game_id: str, types: tuple[str, ...]) -> list[Any]:
        return [r for _seq, r in sorted(self._events.get(game_id, {}).items()) if r.type in types]

    async def head(self, game_id: str) -> int:
        return max(self._events.get(game_id, {}), default=0)

    async def game(self, game_id: str) -> Any | None:
        return self._games.get(game_id)

    async def games_of_ruleset(self, ruleset: str) -> list[str]:
        return [gid for gid, g in self._games.items() if g.ruleset == ruleset]

    async def games_with_event_types(self, types: tuple[str, ...]) -> list[str]:
        return sorted(gid for gid, rows in self._events.items() if any(r.type in types for r in rows.values()))

    async def rows_of_types(self, types: tuple[str, ...]) -> list[Any]:
        return [
            row for gid in sorted(self._events) for _seq, row in sorted(self._events[gid].items()) if row.type in types
        ]

    async def seat_for_token(self, token_hash: str) -> Any | None:
        return self._seats.get(token_hash)

    async def idempotency(self, game_id: str, key: str) -> Any | None:
        return self._idempotency.get((game_id, key))

    async def snapshot(self, game_id: str, at_most: int) -> Any | None:
        usable = [seq for seq in self._snapshots.get(game_id, {}) if seq <= at_most]
        return self._snapshots[game_id][max(usable)] if usable else None

    async def seed(self, game_id: str, turn: int) -> Any | None:
        return self._seeds.get((game_id, turn))

    async def all_seeds(self, game_id: str) -> dict[int, str]:
        return {turn: row.seed for (g, turn), row in sorted(self._seeds.items()) if g == game_id}

    async def drop_snapshots(self, game_id: str | None = None) -> None:
        if game_id is None:
            self._snapshots.clear()
        else:
            self._snapshots.pop(game_id, None)

    async def turn_bounds(self, game_id: str, turn: int, phase: str | None = None) -> tuple[int, int] | None:
        seqs = [
            seq
            for seq, r in self._events.get(game_id, {}).items()
            if r.turn == turn and (phase is None or r.phase == phase)
        ]
        return (min(seqs), max(seqs)) if seqs else None
