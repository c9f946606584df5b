"""One store test suite, run against SQLite, PostgreSQL and the in-memory store."""

from __future__ import annotations

import asyncio

import msgspec
import pytest

from service.domain.core import seat
from service.events.application import GameService
from service.events.event_store import EventStore
from service.events.head import decode_state, head_from_rows
from service.events.memory_store import MemoryEventStore
from service.events.reading import GameReader
from service.events.store import Conflict, SqlEventStore, WriteBatch


def _event(game_id: str, seq: int) -> dict:
    return {
        "game_id": game_id,
        "seq": seq,
        "type": "tiny.phase_done",
        "v": 1,
        "data": '{"seat":"red"}',
        "rolls": "[]",
        "turn": 1,
        "phase": "fire",
        "actor": "seat:red",
        "command_id": None,
        "recorded_at": "2026-11-30T00:00:00Z",
        "dice": None,
    }


class StoreSuite:
    """Subclasses provide the `store` fixture for one backend."""

    async def test_append_and_read_ranges(self, store: EventStore):
        await store.write(WriteBatch("g_a", events=[_event("g_a", s) for s in range(1, 11)]))
        rows = await store.read_events("g_a", after=3, upto=7)
        assert [r.seq for r in rows] == [4, 5, 6, 7]
        assert [r.seq for r in await store.read_events("g_a", after=8)] == [9, 10]
        assert [r.seq for r in await store.read_events("g_a", limit=2)] == [1, 2]
        assert await store.head("g_a") == 10
        assert await store.read_events("g_other") == []

    async def test_duplicate_seq_is_a_conflict_and_writes_nothing(self, store: EventStore):
        await store.write(WriteBatch("g_b", events=[_event("g_b", 1)]))
        with pytest.raises(Conflict):
            await store.write(WriteBatch("g_b", events=[_event("g_b", 2), _event("g_b", 1)]))
        assert [r.seq for r in await store.read_events("g_b")] == [1]

    async def test_group_commit_isolates_a_conflicting_batch(self, store: EventStore):
        await store.write(WriteBatch("g_c", events=[_event("g_c", 1)]))
        results = await asyncio.gather(
            *(store.write(WriteBatch(f"g_c{i}", events=[_event(f"g_c{i}", 1)])) for i in range(20)),
            store.write(WriteBatch("g_c", events=[_event("g_c", 1)])),
            return_exceptions=True,
        )
        assert all(r is None for r in results[:20]) and isinstance(results[20], Conflict)
        for i in range(20):
            assert await store.head(f"g_c{i}") == 1

    async def test_idempotent_retry_returns_the_original_result(self, store: EventStore):
        service = GameService(store)
        game = await service.create_game("tiny", "duel")
        body = b'{"command":{"type":"tiny.shoot","shooter":"red","target":"blue"}}'
        first = await service.handle_command(game.game_id, seat("red"), body, idempotency_key="k1")
        again = await service.handle_command(game.game_id, seat("red"), body, idempotency_key="k1")
        assert again.body == first.body
        assert await store.head(game.game_id) == 3  # created, committed, one shot: nothing doubled

    async def test_snapshot_plus_tail_equals_full_fold(self, store: EventStore):
        service = GameService(store, snapshot_every=7)
        game = await service.create_game("tiny", "long")
        for i in range(30):
            who = "red" if i % 2 == 0 else "blue"
            body = msgspec.json.encode(
                {"command": {"type": "tiny.shoot", "shooter": who, "target": "blue" if who == "red" else "red"}}
            )
            await service.handle_command(game.game_id, seat(who), body)
        head = await service.head(game.game_id)
        snap = await store.snapshot(game.game_id, head.seq)
        assert snap is not None and 0 < snap.seq <= head.seq
        game_row = await store.game(game.game_id)
        full = head_from_rows(game.game_id, game_row, await store.read_events(game.game_id)).state
        reader = GameReader(service)
        for at in (5, 12, 20, head.seq):
            _, from_snapshots, _ = await reader.state_at(game.game_id, at)
            fresh = head_from_rows(game.game_id, game_row, await store.read_events(game.game_id, upto=at)).state
            assert from_snapshots == fresh
        assert full == head.state
        assert (
            decode_state(head.ruleset, bytes(snap.state))
            == head_from_rows(game.game_id, game_row, await store.read_events(game.game_id, upto=snap.seq)).state
        )
        await store.drop_snapshots(game.game_id)  # a cache: dropping it changes no answer
        _, after_drop, _ = await reader.state_at(game.game_id, 20)
        assert (
            after_drop == head_from_rows(game.game_id, game_row, await store.read_events(game.game_id, upto=20)).state
        )

    async def test_game_records_its_ruleset_version(self, store: EventStore):
        game = await GameService(store).create_game("tiny", "duel")
        row = await store.game(game.game_id)
        assert (row.ruleset, row.ruleset_version) == ("tiny", "1.0")


class TestSqliteStore(StoreSuite):
    @pytest.fixture
    def store(self, sqlite_url):
        store = SqlEventStore(sqlite_url)
        store.start()
        yield store
        store.close()


class TestPostgresStore(StoreSuite):
    @pytest.fixture
    def store(self, postgres_url):
        store = SqlEventStore(postgres_url)
        store.start()
        assert store.backend == "postgresql"
        yield store
        store.close()


class TestMemoryStore(StoreSuite):
    @pytest.fixture
    def store(self):
        store = MemoryEventStore()
        store.start()
        yield store
        store.close()
