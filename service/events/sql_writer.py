"""The SQL store's writer: one thread that commits whatever is queued as one transaction (group
commit), on a DB-API connection of its own.

A loop's submissions reach the writer once per pass of its ready callbacks (one hand-off, one wake-up
of the writer). Per group: one statement per table carrying all of the group's rows of it (text built
once per table and column set), one commit, and one wake-up of the event loop resolving every future of
the group — a byte on a pipe the loop watches, written with the GIL let go (``_Waker``).
SQLite: a prepared ``executemany`` (sqlite3 caches the prepared statement). PostgreSQL (psycopg): a
``COPY ... FROM STDIN``, whose rows psycopg encodes in C (executemany, even pipelined, spends ~12 µs of
Python per row), or for a few rows one multi-row INSERT (one round trip where COPY takes two). No
SQLAlchemy execution per group: its per-statement context and events cost more than the insert.

A batch is acknowledged only after its transaction committed (SQLite WAL with synchronous=FULL, or
PostgreSQL's commit). A batch decided on one that failed is not written (``predecessor_failure``). A
duplicate key fails only its own batch: the group is retried one batch per transaction.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import os
import queue
import threading
import time
from collections.abc import Callable, Iterator
from operator import itemgetter
from typing import Any

from sqlalchemy import Engine

from .event_store import Conflict, WriteBatch, predecessor_failure
from .tables import EVENTS, GAMES, IDEMPOTENCY, SEATS, SEEDS, SNAPSHOTS

log = logging.getLogger(__name__)

GROUP_LIMIT = 256  # batches per transaction; bounds latency of a very busy writer
VALUES_ROWS = 4  # PostgreSQL: up to this many rows of a table go as one INSERT, more as a COPY

# (batch, the submitting loop's waker, its future, perf_counter at submission or 0.0 when nobody observes)
_Job = tuple[WriteBatch, "_Waker", "asyncio.Future[None]", float]
# (future, None when durable or why not)
_Outcome = tuple["asyncio.Future[None]", BaseException | None]


class GroupWriter:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        dbapi = engine.dialect.dbapi
        assert dbapi is not None
        self._integrity_error: type[Exception] = dbapi.IntegrityError
        self._mark = "?" if engine.dialect.paramstyle == "qmark" else "%s"
        self._copy = engine.dialect.driver == "psycopg"
        # lists of jobs, each what one loop submitted in one pass (None: stop)
        self._queue: queue.SimpleQueue[list[_Job] | None] = queue.SimpleQueue()
        # per submitting loop, its batches not yet handed to the writer (only that loop's thread touches
        # its list; the hand-off is scheduled on it with the first one)
        self._pending: dict[asyncio.AbstractEventLoop, list[_Job]] = {}
        self._wakers: dict[asyncio.AbstractEventLoop, _Waker] = {}  # per submitting loop
        self._thread: threading.Thread | None = None
        self._connection: Any = None  # the pool's connection, held for the writer's life
        self._statements: dict[tuple[str, tuple[str, ...], int], str] = {}  # (table, columns, rows) -> SQL
        self._getters: dict[tuple[str, ...], Callable[[dict[str, Any]], tuple[Any, ...]]] = {}
        self.commits = 0  # transactions committed (group commit makes this < batches)
        self.batches = 0
        self.observe_write: Callable[[float], None] | None = None
        self.observe_group: Callable[[int], None] | None = None

    # --- life cycle --------------------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="salvo-writer", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Commit what is queued, then end the thread and give its connection back."""
        if self._thread is not None:
            self._hand_off_all()
            self._queue.put(None)
            self._thread.join()
            self._thread = None
        wakers, self._wakers = self._wakers, {}
        for waker in wakers.values():
            waker.close()

    # --- the loop's side ---------------------------------------------------------------------------

    def submit(self, batch: WriteBatch) -> asyncio.Future[None]:
        """Queue the batch (batches commit in submission order) and return its future.

        The batches a loop submits in one pass of its ready callbacks reach the writer together, in one
        hand-off scheduled on that loop: the writer is woken once per pass, when the submitting code has
        run to its next await, not once per batch while the loop still holds the GIL (a writer woken then
        only wakes to wait for the GIL, twice over on one core, and groups fewer batches)."""
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        waker = self._wakers.get(loop) or self._waker(loop)
        job = (batch, waker, future, time.perf_counter() if self.observe_write is not None else 0.0)
        pending = self._pending.get(loop)
        if pending is None:
            self._pending[loop] = [job]
            loop.call_soon(self._hand_off, loop)
        else:
            pending.append(job)
        return future

    def _waker(self, loop: asyncio.AbstractEventLoop) -> _Waker:
        """The loop's waker, made on its first submission; closed by stop() once the writer ended."""
        waker = self._wakers[loop] = _Waker(loop)
        return waker

    def _hand_off(self, loop: asyncio.AbstractEventLoop) -> None:
        """On the loop: give what it submitted since its last hand-off to the writer, in one put."""
        jobs = self._pending.pop(loop, None)
        if jobs:
            self._queue.put(jobs)

    def _hand_off_all(self) -> None:
        """Every loop's batches not yet handed off (stop: nothing queued is left behind)."""
        for loop in list(self._pending):
            self._hand_off(loop)

    # --- the writer thread -------------------------------------------------------------------------

    def _run(self) -> None:
        try:
            carry: list[_Job] = []  # handed off but beyond the last group's limit
            stop = False
            while carry or not stop:
                if not carry:
                    handed = self._queue.get()
                    if handed is None:
                        return
                    carry = handed
                while len(carry) < GROUP_LIMIT and not stop:
                    try:
                        more = self._queue.get_nowait()
                    except queue.Empty:
                        break
                    if more is None:
                        stop = True  # commit what came before it, then end
                    else:
                        carry += more
                if len(carry) > GROUP_LIMIT:
                    jobs, carry = carry[:GROUP_LIMIT], carry[GROUP_LIMIT:]
                else:
                    jobs, carry = carry, []
                outcomes: list[_Outcome] = []
                try:
                    self._commit_group(jobs, outcomes)
                except BaseException as exc:  # a bug here must not leave commands waiting forever
                    answered = {id(future) for future, _ in outcomes}
                    outcomes.extend((job[2], exc) for job in jobs if id(job[2]) not in answered)
                    log.exception("the writer failed a group")
                try:  # more to commit: keep the GIL (the loop is busy anyway), else let go of it to wake
                    _wake(jobs, outcomes, busy=bool(carry) or not self._queue.empty())
                except Exception:  # noqa: BLE001 - the writer goes on for the groups after this one
                    log.exception("the writer could not wake a loop")
        finally:
            self._release()

    def _commit_group(self, jobs: list[_Job], outcomes: list[_Outcome]) -> None:
        ready = []
        for job in jobs:  # a batch decided on one that failed is not written (batches come in order)
            failure = predecessor_failure(job[0])
            if failure is None:
                ready.append(job)
            else:
                _fail(job, failure, outcomes)
        if not ready:
            return
        try:
            self._write([job[0] for job in ready])
        except self._integrity_error as exc:
            if len(ready) == 1:
                _fail(ready[0], Conflict(str(exc)), outcomes)
                return
            for job in ready:  # isolate the conflicting batch; the others still commit
                self._commit_group([job], outcomes)
            return
        except Exception as exc:  # noqa: BLE001 - handed to the waiting commands, never swallowed
            for job in ready:
                _fail(job, exc, outcomes)
            return
        self.commits += 1
        self.batches += len(ready)
        outcomes.extend((job[2], None) for job in ready)
        self._observe(ready)

    def _observe(self, ready: list[_Job]) -> None:
        """Metrics, in this thread (off the event loop); a failing observer fails nothing durable."""
        try:
            if self.observe_group is not None:
                self.observe_group(len(ready))
        except Exception:  # noqa: BLE001
            log.exception("the group observer failed")
        observe = self.observe_write
        if observe is None:
            return
        now = time.perf_counter()
        try:
            for job in ready:
                observe(now - job[3])
        except Exception:  # noqa: BLE001
            log.exception("the write observer failed")

    def _write(self, batches: list[WriteBatch]) -> None:
        """One transaction: every row of the group, then the commit. Rolled back on any failure; a
        connection that broke is dropped (the next group gets a fresh, pinged one from the pool), and a
        group that failed on a connection found broken before its commit was sent is retried once on a
        fresh one (nothing of it was committed: a server drops an unfinished transaction)."""
        for attempt in (1, 2):
            connection = self._connect()
            committing = False
            try:
                self._insert(connection, batches)
                committing = True
                connection.commit()
                return
            except self._integrity_error:
                self._rollback()
                raise
            except Exception:
                broken = self._broken()
                self._rollback()
                if attempt == 2 or committing or not broken:
                    raise

    def _insert(self, connection: Any, batches: list[WriteBatch]) -> None:
        cursor = connection.cursor()
        if not self._copy:
            for table, columns, values in self.rows(batches):  # sqlite3: prepared once, cached by the driver
                cursor.executemany(self._sql(table, columns), values)
            return
        for table, columns, values in self.rows(batches):
            if len(values) <= VALUES_ROWS:  # one round trip (COPY takes two); prepared by psycopg once reused
                cursor.execute(self._sql(table, columns, len(values)), [v for row in values for v in row])
                continue
            with cursor.copy(self._sql(table, columns)) as copy:  # rows encoded by psycopg's C code
                for row in values:
                    copy.write_row(row)

    def rows(self, batches: list[WriteBatch]) -> Iterator[tuple[str, tuple[str, ...], list[Any]]]:
        """(table, columns, rows as tuples) for the group, parents before children (a game before its
        seats, seeds and events), each table's rows in batch order."""
        for table, rows in _rows_by_table(batches):
            columns = tuple(rows[0])
            values_of = self._values_of(columns)
            try:  # every row has exactly the first one's columns (as every builder writes them)
                values = list(map(values_of, rows))
                if sum(map(len, rows)) == len(columns) * len(rows):
                    yield table, columns, values
                    continue
            except KeyError:
                pass
            by_columns: dict[tuple[str, ...], list[dict[str, Any]]] = {}
            for row in rows:  # rows of other shapes: one statement per column set
                by_columns.setdefault(tuple(row), []).append(row)
            for other, same in by_columns.items():
                yield table, other, list(map(self._values_of(other), same))

    def _values_of(self, columns: tuple[str, ...]) -> Callable[[dict[str, Any]], tuple[Any, ...]]:
        values_of = self._getters.get(columns)
        if values_of is None:
            get = itemgetter(*columns)
            values_of = self._getters[columns] = get if len(columns) > 1 else (lambda row: (get(row),))
        return values_of

    def _sql(self, table: str, columns: tuple[str, ...], rows: int = 0) -> str:
        """The INSERT (of ``rows`` rows when given, else executemany's one row), or a COPY (psycopg)."""
        key = (table, columns, rows)
        sql = self._statements.get(key)
        if sql is None:
            names = ", ".join(columns)
            one = f"({', '.join([self._mark] * len(columns))})"
            if rows:
                sql = f"INSERT INTO {table} ({names}) VALUES {', '.join([one] * rows)}"
            elif self._copy:
                sql = f"COPY {table} ({names}) FROM STDIN"
            else:
                sql = f"INSERT INTO {table} ({names}) VALUES {one}"
            self._statements[key] = sql
        return sql

    # --- the connection ----------------------------------------------------------------------------

    def _connect(self) -> Any:
        if self._connection is None:
            self._connection = self.engine.raw_connection()  # checked out (pinged) once, kept
        return self._connection.driver_connection

    def _broken(self) -> bool:
        connection = self._connection
        driver = connection.driver_connection if connection is not None else None
        return bool(getattr(driver, "broken", False) or getattr(driver, "closed", False))

    def _rollback(self) -> None:
        """Back to no transaction, or, when that fails too, drop the connection."""
        connection = self._connection
        if connection is None:
            return
        try:
            if self._broken():
                raise ConnectionError("broken")
            connection.driver_connection.rollback()
        except Exception:  # noqa: BLE001 - the connection is unusable: the pool forgets it
            self._connection = None
            with contextlib.suppress(Exception):
                connection.invalidate()

    def _release(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            with contextlib.suppress(Exception):
                connection.close()  # back to the pool (which rolls back nothing: no transaction is open)


def _rows_by_table(batches: list[WriteBatch]) -> list[tuple[str, list[dict[str, Any]]]]:
    tables: list[tuple[str, list[dict[str, Any]]]] = [
        (GAMES.name, [b.game for b in batches if b.game is not None]),
        (SEATS.name, [row for b in batches for row in b.seats]),
        (SEEDS.name, [row for b in batches for row in b.seeds]),
        (EVENTS.name, [row for b in batches for row in b.events]),
        (IDEMPOTENCY.name, [b.idempotency for b in batches if b.idempotency is not None]),
        (SNAPSHOTS.name, [b.snapshot for b in batches if b.snapshot is not None]),
    ]
    return [(name, rows) for name, rows in tables if rows]


def _fail(job: _Job, exc: BaseException, outcomes: list[_Outcome]) -> None:
    job[0].failed = exc  # at once, before any later batch is looked at: the writer is one thread
    outcomes.append((job[2], exc))


def _wake(jobs: list[_Job], outcomes: list[_Outcome], busy: bool = False) -> None:
    """One wake-up of each submitting loop (there is one, the service's) for the whole group."""
    waker = jobs[0][1]
    if all(job[1] is waker for job in jobs):
        waker.wake(outcomes, busy)
        return
    by_waker: dict[_Waker, list[_Outcome]] = {}
    wakers = {id(job[2]): job[1] for job in jobs}
    for outcome in outcomes:
        by_waker.setdefault(wakers[id(outcome[0])], []).append(outcome)
    for each, settled in by_waker.items():
        each.wake(settled, busy)


class _Waker:
    """How the writer hands a group's outcomes back to one loop: they are queued here and the loop is
    signalled once until it drained them. An idle writer signals with one byte on a pipe the loop watches
    (add_reader), written with ``os.write``, which lets go of the GIL before the loop can wake:
    ``call_soon_threadsafe`` signals while the writer still holds the GIL, so the woken loop's first act
    was to wait for it (two more switches per group on one core). A writer with the next group queued
    signals with ``call_soon_threadsafe`` and keeps the GIL for that group: the loop is busy then, and
    every time the writer lets go of the GIL it may wait long for it back."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._settled: collections.deque[list[_Outcome]] = collections.deque()
        self._signalled = False
        self._lock = threading.Lock()  # the pipe is closed only between two writes, never under one
        self._open = True
        self._read, self._write = os.pipe()
        os.set_blocking(self._read, False)
        os.set_blocking(self._write, False)
        loop.add_reader(self._read, self._drain)

    def wake(self, outcomes: list[_Outcome], busy: bool = False) -> None:
        """The writer thread: queue the outcomes, and signal the loop unless a signal is pending."""
        self._settled.append(outcomes)
        if self._signalled:
            return  # the loop has not drained since the last signal: it takes these with those
        self._signalled = True
        with self._lock:
            if self._open and busy:
                with contextlib.suppress(RuntimeError):  # that loop is closed: nobody waits there
                    self.loop.call_soon_threadsafe(self._settle_queued)
                return
            if self._open:
                try:
                    os.write(self._write, b"\0")
                    return
                except BlockingIOError:  # a byte is still unread: the loop is woken anyway
                    return
                except OSError:
                    log.exception("the writer could not wake its loop through the pipe")
        with contextlib.suppress(RuntimeError):  # closed: settle on the loop as before, if it still runs
            self.loop.call_soon_threadsafe(self._settle_queued)

    def _drain(self) -> None:
        """On the loop, the pipe readable: take the byte, then settle what is queued."""
        if self._open:
            with contextlib.suppress(OSError):
                os.read(self._read, 4096)
        self._settle_queued()

    def _settle_queued(self) -> None:
        """On the loop: settle every group queued so far, in the order the writer committed them."""
        self._signalled = False  # before draining: what the writer queues from now on is signalled anew
        settled = self._settled
        while settled:
            _settle(settled.popleft())

    def close(self) -> None:
        """Stop watching the pipe and close it (outcomes still queued are settled on the loop)."""
        loop = self.loop
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop or loop.is_closed() or not loop.is_running():
            self._close()
        else:  # the loop runs in another thread: only it may touch its selector
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._close)

    def _close(self) -> None:
        with self._lock:
            if not self._open:
                return
            self._open = False
            if not self.loop.is_closed():
                with contextlib.suppress(Exception):
                    self.loop.remove_reader(self._read)
                if self._settled:
                    self.loop.call_soon(self._settle_queued)
            os.close(self._read)
            os.close(self._write)


def _settle(outcomes: list[_Outcome]) -> None:
    for future, exc in outcomes:
        if future.done():  # cancelled by its waiter
            continue
        if exc is None:
            future.set_result(None)
        else:
            future.set_exception(exc)
