"""The event store on SQLAlchemy (SQLite by default, PostgreSQL by URL).

Writes go through one writer thread that groups whatever is waiting into a single transaction (group
commit, service/events/sql_writer.py; on SQLite a lone batch meeting an idle writer commits on the loop):
a command is acknowledged only after its transaction committed durably (SQLite WAL with synchronous=FULL;
PostgreSQL's own commit). Reads run on a small thread pool. A duplicate (game_id, seq) from a racing
writer raises Conflict and writes nothing of that batch.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, func, select, text

from .event_store import Conflict, WriteBatch
from .schema import migrate
from .sql_writer import GroupWriter
from .storage_faults import as_storage_error
from .tables import EVENTS, GAMES, IDEMPOTENCY, SEATS, SEEDS, SNAPSHOTS


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
            cursor.execute("PRAGMA busy_timeout=30000")
            _wal(cursor)
            cursor.execute("PRAGMA synchronous=FULL")  # an acknowledged command survives power loss
            cursor.close()

        return engine
    return create_engine(url, pool_size=8, max_overflow=8, pool_pre_ping=True)


def _wal(cursor: Any) -> None:
    """WAL mode, once per database file (it persists): switching takes the file's exclusive lock, which
    SQLite does not wait for, so processes starting together on a new file retry it."""
    for attempt in range(100):
        try:
            if cursor.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == 99:
                raise
            time.sleep(0.05)


class SqlEventStore:
    def __init__(self, url: str) -> None:
        self.url = normalize_url(url)
        self.engine = make_engine(self.url)
        self._writer = GroupWriter(self.engine)
        self._readers = ThreadPoolExecutor(max_workers=4, thread_name_prefix="salvo-read")

    @property
    def backend(self) -> str:
        return self.engine.dialect.name

    # --- life cycle ------------------------------------------------------------------------------

    def start(self) -> None:
        migrate(self.engine)
        self._writer.start()

    def close(self) -> None:
        self._writer.stop()
        self._readers.shutdown(wait=True)
        self.engine.dispose()

    # --- writes (service/events/sql_writer.py) -----------------------------------------------------

    async def write(self, batch: WriteBatch) -> None:
        await self._writer.submit(batch)

    def submit(self, batch: WriteBatch) -> asyncio.Future[None]:
        """Queue the batch at once (the single writer commits in queue order) and return its future."""
        return self._writer.submit(batch)

    @property
    def commits(self) -> int:
        """Transactions committed (group commit makes this < batches)."""
        return self._writer.commits

    @property
    def batches(self) -> int:
        return self._writer.batches

    @property
    def observe_write(self) -> Callable[[float], None] | None:
        """Observer (metrics): seconds from a batch's submission to its durable commit."""
        return self._writer.observe_write

    @observe_write.setter
    def observe_write(self, observe: Callable[[float], None] | None) -> None:
        self._writer.observe_write = observe

    @property
    def observe_group(self) -> Callable[[int], None] | None:
        """Observer (metrics): batches per commit."""
        return self._writer.observe_group

    @observe_group.setter
    def observe_group(self, observe: Callable[[int], None] | None) -> None:
        self._writer.observe_group = observe

    # --- reads -------------------------------------------------------------------------------------

    async def _run(self, fn: Any, *args: Any) -> Any:
        try:
            return await asyncio.get_running_loop().run_in_executor(self._readers, fn, *args)
        except Exception as exc:  # the database away or full: StorageUnavailable / StorageFull (503 / 507)
            error = as_storage_error(exc)
            if error is exc:
                raise
            raise error from exc

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
        stmt = select(EVENTS).where(EVENTS.c.game_id == game_id, EVENTS.c.type.in_(types)).order_by(EVENTS.c.seq)
        return await self._run(self._fetch, stmt)

    async def head(self, game_id: str) -> int:
        rows = await self._run(self._fetch, select(func.max(EVENTS.c.seq)).where(EVENTS.c.game_id == game_id))
        return int(rows[0][0] or 0)

    async def heads(self, game_ids: list[str]) -> dict[str, int]:
        """The stored head seq of each game that has events, in one query (the log poller's tick)."""
        stmt = (
            select(EVENTS.c.game_id, func.max(EVENTS.c.seq))
            .where(EVENTS.c.game_id.in_(game_ids))
            .group_by(EVENTS.c.game_id)
        )
        return {game_id: int(seq) for game_id, seq in await self._run(self._fetch, stmt)}

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

    async def rows_of_types(self, types: tuple[str, ...]) -> list[Any]:
        """(game_id, seq, type, data) of every event of these (rare, indexed) types, in every game."""
        stmt = (
            select(EVENTS.c.game_id, EVENTS.c.seq, EVENTS.c.type, EVENTS.c.data)
            .where(EVENTS.c.type.in_(types))
            .order_by(EVENTS.c.game_id, EVENTS.c.seq)
        )
        return await self._run(self._fetch, stmt)

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


__all__ = ["Conflict", "SqlEventStore", "WriteBatch"]
