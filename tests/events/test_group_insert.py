"""The writer inserts a whole group commit with one executemany per table, parents before children,
and a conflicting batch in the group still costs only itself (SQLite and PostgreSQL)."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import event

from service.events.store import Conflict, SqlEventStore, WriteBatch


def _event(game_id: str, seq: int) -> dict:
    return {"game_id": game_id, "seq": seq, "type": "tiny.phase_done", "v": 1, "data": '{"seat":"red"}',
            "rolls": "[]", "turn": 1, "phase": "fire", "actor": "seat:red", "command_id": "c_1",
            "recorded_at": "2026-11-30T00:00:00Z", "dice": None}


def _batch(game_id: str) -> WriteBatch:
    return WriteBatch(
        game_id,
        game={"id": game_id, "ruleset": "tiny", "ruleset_version": "1", "scenario_name": None, "setup": "{}",
              "created_at": "2026-11-30T00:00:00Z", "forked_from": None, "forked_at": None},
        seats=[{"token_hash": f"h_{game_id}_{s}", "game_id": game_id, "role": "seat", "seat": s}
               for s in ("red", "blue")],
        seeds=[{"game_id": game_id, "turn": 1, "seed": "00", "commitment": "ff"}],
        events=[_event(game_id, 1), _event(game_id, 2)],
        idempotency={"game_id": game_id, "key": "k", "request_hash": "h", "status": 201, "response": b"{}"},
        snapshot={"game_id": game_id, "seq": 2, "state": b"\x00\x01"},
    )


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest):
    url = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "postgres_url")
    s = SqlEventStore(url)
    s.start()
    yield s
    s.close()


def _count_inserts(store: SqlEventStore) -> list[tuple[str, int]]:
    seen: list[tuple[str, int]] = []

    @event.listens_for(store.engine, "before_cursor_execute")
    def _seen(_conn, _cursor, statement, parameters, _context, executemany) -> None:  # noqa: ANN001
        if statement.startswith("INSERT"):
            seen.append((statement.split()[2], len(parameters) if executemany else 1))

    return seen


def test_a_group_is_one_insert_per_table_in_parent_order(store: SqlEventStore) -> None:
    seen = _count_inserts(store)
    jobs = [_batch(f"g_{i}") for i in range(12)]
    with store.engine.begin() as conn:
        store._insert_group(conn, jobs)
    assert seen == [("games", 12), ("seats", 24), ("dice_seeds", 12), ("events", 24), ("idempotency", 12),
                    ("snapshots", 12)]
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("select count(*) from events").scalar() == 24
        assert conn.exec_driver_sql("select response from idempotency where game_id = 'g_3'").scalar() == b"{}"


async def test_a_conflict_in_a_group_fails_only_its_batch(store: SqlEventStore) -> None:
    await store.write(_batch("g_taken"))
    again = _batch("g_taken")
    again.game = None
    again.seats = []
    results = await asyncio.gather(*(store.write(_batch(f"g_ok{i}")) for i in range(10)), store.write(again),
                                   return_exceptions=True)
    assert results[:10] == [None] * 10 and isinstance(results[10], Conflict)
    assert [r.seq for r in await store.read_events("g_taken")] == [1, 2]
    assert all([await store.head(f"g_ok{i}") == 2 for i in range(10)])
