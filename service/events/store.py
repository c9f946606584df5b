"""The event store on SQLAlchemy (SQLite by default, PostgreSQL by URL).

Writes go through one writer thread that groups whatever is waiting into a single transaction (group
commit): a command is acknowledged only after its transaction committed durably (SQLite WAL with
synchronous=FULL; PostgreSQL's own commit). Reads run on a small thread pool. A duplicate
(game_id, seq) from a racing writer raises Conflict and writes nothing of that batch.
"""

from __future__ import annotations

import asyncio
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, func, select, text
from sqlalchemy.exc import IntegrityError

from .event_store import Conflict, WriteBatch, predecessor_failure
from .schema import migrate
from .tables import EVENTS, GAMES, IDEMPOTENCY, SEATS, SEEDS, SNAPSHOTS

GROUP_LIMIT = 256  # batches per transaction; bounds latency of a very busy writer


@dataclass
class _Job:
    batch: WriteBatch
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[None]


def normalize_url(url: str) -> str:
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


def make_engine(url: str) -> Engine:
    url = normalize_url(url)
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30}, pool_size=8)

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=FULL")  # an acknowledged command survives power loss
            cursor.execute("PRAGMA busy_timeout=30000")
            cursor.close()

        return engine
    return create_engine(url, pool_size=8, max_overflow=8, pool_pre_ping=True)


class SqlEventStore:
    def __init__(self, url: str) -> None:
        self.url = normalize_url(url)
        self.engine = make_engine(self.url)
        self._queue: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._writer: threading.Thread | None = None
        self._readers = ThreadPoolExecutor(max_workers=4, thread_name_prefix="salvo-read")
        self._prepared: dict[tuple[str, tuple[str, ...]], str] = {}  # (table, columns) -> INSERT text
        self.commits = 0  # transactions committed (group commit makes this < batches)
        self.batches = 0
        # observers (metrics): seconds from a batch's submission to its durable commit; batches per commit
        self.observe_write: Callable[[float], None] | None = None
        self.observe_group: Callable[[int], None] | None = None

    @property
    def backend(self) -> str:
        return self.engine.dialect.name

    # --- life cycle ------------------------------------------------------------------------------

    def start(self) -> None:
        migrate(self.engine)
        if self._writer is None:
            self._writer = threading.Thread(target=self._write_loop, name="salvo-writer", daemon=True)
            self._writer.start()

    def close(self) -> None:
        if self._writer is not None:
            self._queue.put(None)
            self._writer.join()
            self._writer = None
        self._readers.shutdown(wait=True)
        self.engine.dispose()

    # --- writes ------------------------------------------------------------------------------------

    async def write(self, batch: WriteBatch) -> None:
        await self.submit(batch)

    def submit(self, batch: WriteBatch) -> asyncio.Future[None]:
        """Queue the batch at once (the single writer commits in queue order) and return its future."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        if self.observe_write is not None:
            started, observe = time.perf_counter(), self.observe_write
            future.add_done_callback(lambda _f: observe(time.perf_counter() - started))
        self._queue.put(_Job(batch, loop, future))
        return future

    def _write_loop(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                return
            jobs = [job]
            stop = False
            while len(jobs) < GROUP_LIMIT:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    stop = True
                    break
                jobs.append(more)
            self._commit_group(jobs)
            if stop:
                return

    def _commit_group(self, jobs: list[_Job]) -> None:
        ready = []
        for job in jobs:  # a batch decided on one that failed is not written (batches come in order)
            failure = predecessor_failure(job.batch)
            if failure is None:
                ready.append(job)
            else:
                _resolve(job, failure)
        jobs = ready
        if not jobs:
            return
        try:
            with self.engine.begin() as conn:
                self._insert_group(conn, [job.batch for job in jobs])
            self.commits += 1
            self.batches += len(jobs)
            if self.observe_group is not None:
                self.observe_group(len(jobs))
            for job in jobs:
                _resolve(job, None)
        except IntegrityError as exc:
            if len(jobs) == 1:
                _resolve(jobs[0], Conflict(str(exc.orig)))
                return
            for job in jobs:  # isolate the conflicting batch; the others still commit
                self._commit_group([job])
        except Exception as exc:  # noqa: BLE001 - handed to the waiting command, never swallowed
            for job in jobs:
                _resolve(job, exc)

    def _insert_group(self, conn: Any, batches: list[WriteBatch]) -> None:
        """One executemany per table for the whole group, parents before children, through a prepared
        INSERT on the driver (no SQLAlchemy statement compilation or per-batch execution)."""
        for table, rows in _rows_by_table(batches):
            by_columns: dict[tuple[str, ...], list[tuple[Any, ...]]] = {}
            for row in rows:
                by_columns.setdefault(tuple(row), []).append(tuple(row.values()))
            for columns, values in by_columns.items():
                conn.exec_driver_sql(self._insert_sql(table, columns), values)

    def _insert_sql(self, table: str, columns: tuple[str, ...]) -> str:
        key = (table, columns)
        sql = self._prepared.get(key)
        if sql is None:
            mark = "?" if self.engine.dialect.paramstyle == "qmark" else "%s"
            sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join([mark] * len(columns))})"
            self._prepared[key] = sql
        return sql

    # --- reads -------------------------------------------------------------------------------------

    async def _run(self, fn: Any, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self._readers, fn, *args)

    def _fetch(self, stmt: Any) -> list[Any]:
        with self.engine.connect() as conn:
            return list(conn.execute(stmt).all())

    async def ping(self) -> None:
        """One round trip to the database (readiness)."""
        await self._run(self._fetch, text("select 1"))

    async def read_events(
        self, game_id: str, after: int = 0, upto: int | None = None, limit: int | None = None
    ) -> list[Any]:
        stmt = select(EVENTS).where(EVENTS.c.game_id == game_id, EVENTS.c.seq > after)
        if upto is not None:
            stmt = stmt.where(EVENTS.c.seq <= upto)
        stmt = stmt.order_by(EVENTS.c.seq)
        if limit is not None:
            stmt = stmt.limit(limit)
        return await self._run(self._fetch, stmt)

    async def read_events_of_types(self, game_id: str, types: tuple[str, ...]) -> list[Any]:
        stmt = (
            select(EVENTS)
            .where(EVENTS.c.game_id == game_id, EVENTS.c.type.in_(types))
            .order_by(EVENTS.c.seq)
        )
        return await self._run(self._fetch, stmt)

    async def head(self, game_id: str) -> int:
        rows = await self._run(
            self._fetch, select(func.max(EVENTS.c.seq)).where(EVENTS.c.game_id == game_id)
        )
        return int(rows[0][0] or 0)

    async def game(self, game_id: str) -> Any | None:
        rows = await self._run(self._fetch, select(GAMES).where(GAMES.c.id == game_id))
        return rows[0] if rows else None

    async def games_of_ruleset(self, ruleset: str) -> list[str]:
        rows = await self._run(self._fetch, select(GAMES.c.id).where(GAMES.c.ruleset == ruleset))
        return [r.id for r in rows]

    async def games_with_event_types(self, types: tuple[str, ...]) -> list[str]:
        """Games whose log holds any of these (rare) service events: one scan, at start-up."""
        stmt = select(EVENTS.c.game_id).where(EVENTS.c.type.in_(types)).distinct().order_by(EVENTS.c.game_id)
        rows = await self._run(self._fetch, stmt)
        return [r.game_id for r in rows]

    async def seat_for_token(self, token_hash: str) -> Any | None:
        rows = await self._run(self._fetch, select(SEATS).where(SEATS.c.token_hash == token_hash))
        return rows[0] if rows else None

    async def idempotency(self, game_id: str, key: str) -> Any | None:
        stmt = select(IDEMPOTENCY).where(IDEMPOTENCY.c.game_id == game_id, IDEMPOTENCY.c.key == key)
        rows = await self._run(self._fetch, stmt)
        return rows[0] if rows else None

    async def snapshot(self, game_id: str, at_most: int) -> Any | None:
        stmt = (
            select(SNAPSHOTS)
            .where(SNAPSHOTS.c.game_id == game_id, SNAPSHOTS.c.seq <= at_most)
            .order_by(SNAPSHOTS.c.seq.desc())
            .limit(1)
        )
        rows = await self._run(self._fetch, stmt)
        return rows[0] if rows else None

    async def seed(self, game_id: str, turn: int) -> Any | None:
        stmt = select(SEEDS).where(SEEDS.c.game_id == game_id, SEEDS.c.turn == turn)
        rows = await self._run(self._fetch, stmt)
        return rows[0] if rows else None

    async def all_seeds(self, game_id: str) -> dict[int, str]:
        stmt = select(SEEDS.c.turn, SEEDS.c.seed).where(SEEDS.c.game_id == game_id).order_by(SEEDS.c.turn)
        return {int(turn): seed for turn, seed in await self._run(self._fetch, stmt)}

    async def drop_snapshots(self, game_id: str | None = None) -> None:
        def drop() -> None:
            with self.engine.begin() as conn:
                stmt = SNAPSHOTS.delete()
                if game_id is not None:
                    stmt = stmt.where(SNAPSHOTS.c.game_id == game_id)
                conn.execute(stmt)

        await self._run(drop)

    async def turn_bounds(self, game_id: str, turn: int, phase: str | None = None) -> tuple[int, int] | None:
        """First and last seq of a turn (or of one phase of it), or None when nothing happened in it."""
        stmt = select(func.min(EVENTS.c.seq), func.max(EVENTS.c.seq)).where(
            EVENTS.c.game_id == game_id, EVENTS.c.turn == turn
        )
        if phase is not None:
            stmt = stmt.where(EVENTS.c.phase == phase)
        rows = await self._run(self._fetch, stmt)
        lo, hi = rows[0]
        return None if lo is None else (int(lo), int(hi))


def _rows_by_table(batches: list[WriteBatch]) -> list[tuple[str, list[dict[str, Any]]]]:
    """Every row of a group, table by table in the order a batch writes them (a game before its seats,
    seeds and events), each table's rows in batch order."""
    tables: list[tuple[str, list[dict[str, Any]]]] = [
        (GAMES.name, [b.game for b in batches if b.game is not None]),
        (SEATS.name, [row for b in batches for row in b.seats]),
        (SEEDS.name, [row for b in batches for row in b.seeds]),
        (EVENTS.name, [row for b in batches for row in b.events]),
        (IDEMPOTENCY.name, [b.idempotency for b in batches if b.idempotency is not None]),
        (SNAPSHOTS.name, [b.snapshot for b in batches if b.snapshot is not None]),
    ]
    return [(name, rows) for name, rows in tables if rows]


def _resolve(job: _Job, exc: BaseException | None) -> None:
    if exc is not None:
        job.batch.failed = exc  # before any later batch is looked at: the writer is one thread

    def settle() -> None:
        if job.future.done():
            return
        if exc is None:
            job.future.set_result(None)
        else:
            job.future.set_exception(exc)

    job.loop.call_soon_threadsafe(settle)



__all__ = ["Conflict", "SqlEventStore", "WriteBatch"]
