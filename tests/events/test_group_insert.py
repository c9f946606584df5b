"""The writer inserts a whole group commit with one executemany per table, parents before children,
wakes the loop once per group, and a conflicting batch in the group still costs only itself; a failed
commit fails its group (and what was decided on it) and the writer goes on (SQLite and PostgreSQL)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import create_engine

from service.events import sql_writer
from service.events.event_store import PredecessorFailed
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
        "command_id": "c_1",
        "recorded_at": "2026-11-30T00:00:00Z",
        "dice": None,
    }


def _batch(game_id: str) -> WriteBatch:
    return WriteBatch(
        game_id,
        game={
            "id": game_id,
            "ruleset": "tiny",
            "ruleset_version": "1",
            "scenario_name": None,
            "setup": "{}",
            "created_at": "2026-11-30T00:00:00Z",
            "forked_from": None,
            "forked_at": None,
        },
        seats=[
            {"token_hash": f"h_{game_id}_{s}", "game_id": game_id, "role": "seat", "seat": s} for s in ("red", "blue")
        ],
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


class _Recording:
    """The writer's driver connection, noting each INSERT it is given (table, rows)."""

    def __init__(self, connection: Any, seen: list[tuple[str, int]], fail: list[Exception]) -> None:
        self._connection, self._seen, self._fail = connection, seen, fail

    def cursor(self) -> Any:
        return _RecordingCursor(self._connection.cursor(), self._seen, self._fail)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._connection, name)


class _RecordingCursor:
    """Notes the table and row count of each statement: an executemany (SQLite) or a COPY (psycopg)."""

    def __init__(self, cursor: Any, seen: list[tuple[str, int]], fail: list[Exception]) -> None:
        self._cursor, self._seen, self._fail = cursor, seen, fail

    def executemany(self, sql: str, values: list[Any]) -> None:
        if self._fail:
            raise self._fail.pop()
        self._seen.append((sql.split()[2], len(values)))
        self._cursor.executemany(sql, values)

    def execute(self, sql: str, params: list[Any]) -> None:  # a multi-row INSERT (psycopg, few rows)
        if self._fail:
            raise self._fail.pop()
        columns = sql.split("(", 2)[1].count(",") + 1
        self._seen.append((sql.split()[2], len(params) // columns))
        self._cursor.execute(sql, params)

    @contextlib.contextmanager
    def copy(self, sql: str) -> Iterator[Any]:
        if self._fail:
            raise self._fail.pop()
        rows: list[Any] = []
        with self._cursor.copy(sql) as copy:
            yield SimpleNamespace(write_row=lambda row: (rows.append(row), copy.write_row(row)))
        self._seen.append((sql.split()[1], len(rows)))


def _record(store: SqlEventStore, monkeypatch: pytest.MonkeyPatch) -> tuple[list[tuple[str, int]], list[Exception]]:
    seen: list[tuple[str, int]] = []
    fail: list[Exception] = []
    writer = store._writer
    connect = writer._connect
    monkeypatch.setattr(writer, "_connect", lambda: _Recording(connect(), seen, fail))
    return seen, fail


def test_a_group_is_one_insert_per_table_in_parent_order(store: SqlEventStore, monkeypatch) -> None:
    seen, _ = _record(store, monkeypatch)
    store._writer._write([_batch(f"g_{i}") for i in range(12)])  # what the writer thread does for a group
    assert seen == [
        ("games", 12),
        ("seats", 24),
        ("dice_seeds", 12),
        ("events", 24),
        ("idempotency", 12),
        ("snapshots", 12),
    ]
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("select count(*) from events").scalar() == 24
        assert conn.exec_driver_sql("select response from idempotency where game_id = 'g_3'").scalar() == b"{}"
        assert conn.exec_driver_sql("select state from snapshots where game_id = 'g_3'").scalar() == b"\x00\x01"
        assert conn.exec_driver_sql("select dice from events where game_id = 'g_3'").scalars().all() == [None, None]


def test_a_small_group_is_one_insert_per_table_too(store: SqlEventStore, monkeypatch) -> None:
    seen, _ = _record(store, monkeypatch)
    store._writer._write([_batch("g_small")])  # few rows a table: one multi-row INSERT on PostgreSQL
    assert seen == [("games", 1), ("seats", 2), ("dice_seeds", 1), ("events", 2), ("idempotency", 1), ("snapshots", 1)]
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("select count(*) from seats where game_id = 'g_small'").scalar() == 2
        assert conn.exec_driver_sql("select state from snapshots").scalar() == b"\x00\x01"


def test_rows_of_another_shape_get_their_own_insert(store: SqlEventStore, monkeypatch) -> None:
    seen, _ = _record(store, monkeypatch)
    plain = _batch("g_shape")
    short = dict(_event("g_shape", 3))
    del short["rolls"], short["dice"]  # left to the columns' defaults
    plain.events.append(short)
    store._writer._write([plain])
    assert [t for t, _ in seen].count("events") == 2
    with store.engine.connect() as conn:
        rolls = conn.exec_driver_sql("select rolls from events where game_id = 'g_shape' order by seq").all()
    assert [r[0] for r in rolls] == ["[]", "[]", "[]"]


async def test_a_group_is_one_transaction_a_failure_in_a_later_table_leaves_nothing_of_the_earlier(
    store: SqlEventStore,
) -> None:
    broken = _batch("g_atomic")
    broken.events[1]["type"] = None  # NOT NULL: fails after the game, its seats and seeds went in
    with pytest.raises(Conflict):
        await store.write(broken)
    assert await store.game("g_atomic") is None and await store.head("g_atomic") == 0
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("select count(*) from seats where game_id = 'g_atomic'").scalar() == 0
        assert conn.exec_driver_sql("select count(*) from dice_seeds where game_id = 'g_atomic'").scalar() == 0
    await store.write(_batch("g_atomic"))  # and the connection is out of that transaction
    assert await store.head("g_atomic") == 2


@pytest.mark.parametrize("shape", ["whole", "events", "odd"])
def test_a_lone_batchs_rows_are_what_the_group_path_makes_of_them(shape: str) -> None:
    writer = sql_writer.GroupWriter(create_engine("sqlite://"))
    lone = _batch("g_lone")  # a game's creation: every table
    if shape == "events":  # a command: its events only
        lone = WriteBatch("g_lone", events=[_event("g_lone", 3), _event("g_lone", 4)])
    if shape == "odd":  # rows of another shape in one table, a single row in another
        short = dict(_event("g_lone", 5))
        del short["rolls"]
        lone.events.append(short)
        lone.seats = lone.seats[:1]
    nothing = WriteBatch("g_other")  # adds no row: the group path, with the lone batch's rows alone
    assert list(writer.rows([lone])) == list(writer.rows([lone, nothing]))


async def test_one_loop_wake_up_per_group_commit(store: SqlEventStore) -> None:
    loop = asyncio.get_running_loop()
    calls = 0
    original = loop.call_soon_threadsafe

    def counting(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        return original(*args, **kwargs)

    loop.call_soon_threadsafe = counting  # type: ignore[method-assign]
    try:
        commits = store.commits
        await asyncio.gather(*(store.write(_batch(f"g_w{i}")) for i in range(60)))
    finally:
        loop.call_soon_threadsafe = original  # type: ignore[method-assign]
    assert store.commits - commits == calls and calls < 60  # grouped, and one wake-up per group


async def test_a_failed_commit_fails_its_group_and_what_follows_it_then_the_writer_goes_on(
    store: SqlEventStore, monkeypatch
) -> None:
    _, fail = _record(store, monkeypatch)
    first = _batch("g_f")
    on_top = WriteBatch("g_f", events=[_event("g_f", 3)], follows=first)
    fail.append(RuntimeError("disk on fire"))
    futures = [store.submit(first), store.submit(on_top)]
    results = await asyncio.gather(*futures, return_exceptions=True)
    assert isinstance(results[0], RuntimeError) and first.failed is results[0]
    assert isinstance(results[1], (RuntimeError, PredecessorFailed)) and on_top.failed is results[1]
    assert await store.head("g_f") == 0 and await store.game("g_f") is None  # nothing of either written
    await store.write(_batch("g_f"))  # the writer and its connection still work
    assert await store.head("g_f") == 2


async def test_a_connection_that_broke_between_groups_is_replaced(postgres_url: str) -> None:
    s = SqlEventStore(postgres_url)
    s.start()
    try:
        await s.write(_batch("g_before"))
        pid = s._writer._connection.driver_connection.info.backend_pid
        with s.engine.connect() as conn:  # as a server restart or an idle timeout would
            conn.exec_driver_sql(f"select pg_terminate_backend({pid})")
        await s.write(_batch("g_after"))  # retried on a fresh connection: nothing had been committed
        assert await s.head("g_after") == 2
        assert s._writer._connection.driver_connection.info.backend_pid != pid
    finally:
        s.close()


async def test_a_conflict_in_a_group_fails_only_its_batch(store: SqlEventStore) -> None:
    await store.write(_batch("g_taken"))
    again = _batch("g_taken")
    again.game = None
    again.seats = []
    results = await asyncio.gather(
        *(store.write(_batch(f"g_ok{i}")) for i in range(10)), store.write(again), return_exceptions=True
    )
    assert results[:10] == [None] * 10 and isinstance(results[10], Conflict)
    assert [r.seq for r in await store.read_events("g_taken")] == [1, 2]
    assert all([await store.head(f"g_ok{i}") == 2 for i in range(10)])


async def test_a_failing_observer_neither_fails_a_durable_write_nor_stops_the_writer(store: SqlEventStore) -> None:
    seen: list[float] = []

    def broken(_n: int) -> None:
        raise ValueError("metrics bug")

    store.observe_group = broken
    store.observe_write = seen.append
    await store.write(_batch("g_o1"))  # durable, so acknowledged
    store.observe_group = None
    await store.write(_batch("g_o2"))
    assert await store.head("g_o1") == 2 and await store.head("g_o2") == 2
    assert len(seen) == 2 and min(seen) >= 0  # seconds from submission to commit, for both


def test_text_and_bytes_come_back_as_written_through_copy(store: SqlEventStore) -> None:
    awkward = 'tab\there, newline\nthere, back\\slash, \\N, quote", é, ✓'
    batch = WriteBatch(
        "g_text", events=[dict(_event("g_text", s), data=awkward, command_id=None) for s in range(1, 9)]
    )  # > VALUES_ROWS: COPY on PostgreSQL
    batch.idempotency = {
        "game_id": "g_text",
        "key": "k",
        "request_hash": "h",
        "status": 201,
        "response": bytes(range(256)),
    }
    store._writer._write([batch])
    with store.engine.connect() as conn:
        rows = conn.exec_driver_sql("select data, command_id from events where game_id = 'g_text'").all()
        response = conn.exec_driver_sql("select response from idempotency where game_id = 'g_text'").scalar()
    assert [tuple(r) for r in rows] == [(awkward, None)] * 8
    assert bytes(response) == bytes(range(256))


async def test_what_a_loop_submits_in_one_pass_is_one_group(store: SqlEventStore) -> None:
    commits = store.commits
    futures = [store.submit(_batch(f"g_p{i}")) for i in range(20)]  # no await in between: one hand-off
    await asyncio.gather(*futures)
    assert store.commits - commits == 1
    assert all([await store.head(f"g_p{i}") == 2 for i in range(20)])


async def test_a_hand_off_beyond_the_group_limit_commits_in_order_over_several_groups(
    store: SqlEventStore, monkeypatch
) -> None:
    monkeypatch.setattr(sql_writer, "GROUP_LIMIT", 4)
    commits = store.commits
    first = _batch("g_l")
    chain = [first] + [WriteBatch("g_l", events=[_event("g_l", seq)]) for seq in range(3, 13)]
    for before, batch in zip(chain, chain[1:], strict=False):
        batch.follows = before
    await asyncio.gather(*(store.submit(b) for b in chain))  # 11 batches: groups of 4, 4 and 3
    assert store.commits - commits == 3
    assert [r.seq for r in await store.read_events("g_l")] == list(range(1, 13))


async def test_a_failed_group_fails_what_follows_it_in_the_next_group_of_the_same_hand_off(
    store: SqlEventStore, monkeypatch
) -> None:
    monkeypatch.setattr(sql_writer, "GROUP_LIMIT", 1)  # one hand-off, one batch a group
    _, fail = _record(store, monkeypatch)
    first = _batch("g_n")
    on_top = WriteBatch("g_n", events=[_event("g_n", 3)], follows=first)
    other = _batch("g_n_other")
    fail.append(RuntimeError("disk on fire"))
    results = await asyncio.gather(
        store.submit(first), store.submit(on_top), store.submit(other), return_exceptions=True
    )
    assert isinstance(results[0], RuntimeError)
    assert isinstance(results[1], PredecessorFailed) and on_top.failed is results[1]  # never written
    assert results[2] is None  # not decided on the failed one: committed in its own group
    assert await store.head("g_n") == 0 and await store.head("g_n_other") == 2


async def test_stop_commits_what_was_submitted_but_not_yet_handed_off(sqlite_url: str) -> None:
    s = SqlEventStore(sqlite_url)
    s.start()
    future = s.submit(_batch("g_late"))  # its hand-off is still scheduled on this loop
    s.close()  # from the loop's own thread, before that hand-off ran
    again = SqlEventStore(sqlite_url)
    again.start()
    try:
        assert await again.head("g_late") == 2
    finally:
        again.close()
    await asyncio.wait_for(future, 30)  # and acknowledged (the bound only keeps a regression from hanging)


def _note_threads(store: SqlEventStore, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, list[str]]]:
    """(committing thread's name, the groups' game ids) for each group the writer writes."""
    seen: list[tuple[str, list[str]]] = []
    write = store._writer._write

    def noting(batches: list[WriteBatch]) -> None:
        seen.append((threading.current_thread().name, [b.game_id for b in batches]))
        write(batches)

    monkeypatch.setattr(store._writer, "_write", noting)
    return seen


async def test_a_lone_batch_with_the_writer_idle_commits_on_the_loop_thread(sqlite_url: str, monkeypatch) -> None:
    s = SqlEventStore(sqlite_url)
    s.start()
    try:
        seen = _note_threads(s, monkeypatch)
        await s.write(_batch("g_lone"))  # the only batch of its pass, nothing in the writer's hands
        await asyncio.gather(s.write(_batch("g_two_a")), s.write(_batch("g_two_b")))  # two: the thread's
        assert seen == [(threading.current_thread().name, ["g_lone"]), ("salvo-writer", ["g_two_a", "g_two_b"])]
        assert await s.head("g_lone") == 2 and await s.head("g_two_b") == 2
    finally:
        s.close()


async def test_a_lone_batch_waits_behind_what_the_thread_has_in_hand(sqlite_url: str, monkeypatch) -> None:
    s = SqlEventStore(sqlite_url)  # the thread not started yet: what is handed to it stays in its hands
    seen = _note_threads(s, monkeypatch)
    try:
        group = [s.submit(_batch("g_first_a")), s.submit(_batch("g_first_b"))]
        await asyncio.sleep(0)  # handed off (to the thread's queue)
        lone = s.submit(WriteBatch("g_first_a", events=[_event("g_first_a", 3)]))
        await asyncio.sleep(0)
        assert not lone.done() and seen == []  # not committed inline ahead of the group
        s.start()
        await asyncio.gather(*group, lone)
        assert [g for _, games in seen for g in games] == ["g_first_a", "g_first_b", "g_first_a"]  # in order
        assert {thread for thread, _ in seen} == {"salvo-writer"}
        assert [r.seq for r in await s.read_events("g_first_a")] == [1, 2, 3]
    finally:
        s.close()


async def test_postgresql_commits_every_batch_in_the_writer_thread(postgres_url: str, monkeypatch) -> None:
    s = SqlEventStore(postgres_url)  # a commit there is a server round trip: the loop never blocks on it
    s.start()
    try:
        seen = _note_threads(s, monkeypatch)
        await s.write(_batch("g_pg_lone"))
        assert seen == [("salvo-writer", ["g_pg_lone"])]
    finally:
        s.close()


@pytest.fixture
def noted(sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[SqlEventStore, list[Any], str]]:
    """A started SQLite store, its groups noted (``_note_threads``), this thread's name, and an inline back-off
    no busy machine outlasts between two awaits (20 ms did, once, under valgrind load)."""
    s = SqlEventStore(sqlite_url)
    s.start()
    monkeypatch.setattr(sql_writer, "INLINE_BACK_OFF", 60.0)
    try:
        yield s, _note_threads(s, monkeypatch), threading.current_thread().name
    finally:
        s.close()


async def test_inline_commits_back_off_once_commands_queue_up_behind_one(noted, monkeypatch) -> None:
    s, seen, here = noted
    await s.write(_batch("g_b1"))  # lone, writer idle: inline
    await asyncio.gather(s.write(_batch("g_b2")), s.write(_batch("g_b3")))  # two queued up behind it
    await s.write(_batch("g_b4"))  # lone, writer idle, but inside the back-off: the thread's
    monkeypatch.setattr(sql_writer, "INLINE_BACK_OFF", 0.0)
    await asyncio.gather(s.write(_batch("g_b5")), s.write(_batch("g_b6")))  # not after an inline commit
    s._writer._inline_from = 0.0  # the back-off over
    await s.write(_batch("g_b7"))
    await s.write(_batch("g_b8"))  # lone after lone: inline again
    assert seen == [
        (here, ["g_b1"]),
        ("salvo-writer", ["g_b2", "g_b3"]),
        ("salvo-writer", ["g_b4"]),
        ("salvo-writer", ["g_b5", "g_b6"]),
        (here, ["g_b7"]),
        (here, ["g_b8"]),
    ]


async def test_after_two_lone_passes_a_pass_commits_its_first_batch_at_once(noted) -> None:
    """One game commanded one command at a time: once two passes in a row each brought one batch, committed
    inline by their hand-off, ``submit`` commits the next pass's first batch itself (its future is settled
    when ``submit`` returns, no loop pass before the commit); a batch submitted after it in the same pass
    is queued up behind it, so it goes to the thread and inline commits back off."""
    s, seen, here = noted
    first = s.submit(_batch("g_e1"))
    assert not first.done()  # the first lone pass: committed by the hand-off, a pass later
    await first
    await s.write(_batch("g_e2"))  # the second
    third = s.submit(_batch("g_e3"))
    assert third.done() and third.result() is None  # committed before submit returned
    assert seen[-1] == (here, ["g_e3"])
    await asyncio.sleep(0)  # the pass's (empty) hand-off: a third lone pass
    fourth, fifth = s.submit(_batch("g_e4")), s.submit(_batch("g_e5"))  # two in one pass
    assert fourth.done() and not fifth.done()  # the first at once, the second behind it
    await fifth
    assert seen == [(here, ["g_e1"]), (here, ["g_e2"]), (here, ["g_e3"]), (here, ["g_e4"]), ("salvo-writer", ["g_e5"])]
    sixth = s.submit(_batch("g_e6"))  # backing off (commands queued up behind one): the thread's
    assert not sixth.done()
    await sixth
    assert seen[-1] == ("salvo-writer", ["g_e6"])
    assert [await s.head(f"g_e{i}") for i in range(1, 7)] == [2] * 6


async def test_a_batch_committed_at_once_is_answered_before_submit_returns(sqlite_url: str, monkeypatch) -> None:
    """The batch's early answer (``on_durable``) is called after its commit, inside ``submit``, before the
    future is settled; a failed commit settles the future with its error and answers nothing."""
    s = SqlEventStore(sqlite_url)
    s.start()
    try:
        writer = s._writer
        for game in ("g_a1", "g_a2"):  # two lone passes
            await s.write(_batch(game))
        heard: list[tuple[int, bool]] = []
        batch = _batch("g_a3")
        future: asyncio.Future[None] | None = None
        batch.on_durable = lambda: heard.append((writer.commits, future is None))
        commits = writer.commits
        future = s.submit(batch)
        assert heard == [(commits + 1, True)] and future.done()  # answered, then settled, before the return
        await asyncio.sleep(0)
        again = _batch("g_a1")  # a duplicate game: the commit fails
        again.on_durable = lambda: heard.append((-1, False))
        failed = s.submit(again)
        assert failed.done() and isinstance(failed.exception(), Conflict)
        assert heard == [(commits + 1, True)]
    finally:
        s.close()


async def test_groups_on_one_connection_share_a_cursor_and_a_new_connection_gets_its_own(store: SqlEventStore) -> None:
    writer = store._writer
    await store.write(_batch("g_cursor_a"))
    cursor = writer._cursor
    assert cursor is not None and writer._cursor_of is writer._connection.driver_connection
    await asyncio.gather(store.write(_batch("g_cursor_b")), store.write(_batch("g_cursor_c")))
    assert writer._cursor is cursor
    writer._rollback()  # (nothing open) the connection stays, and so does its cursor
    assert writer._cursor is cursor
    writer._release()  # back to the pool: the next group checks out a connection and makes its cursor anew
    assert writer._cursor is None
    await store.write(_batch("g_cursor_d"))
    assert writer._cursor is not None and writer._cursor is not cursor
    assert writer._cursor_of is writer._connection.driver_connection
    assert [await store.head(g) for g in ("g_cursor_a", "g_cursor_b", "g_cursor_c", "g_cursor_d")] == [2, 2, 2, 2]
