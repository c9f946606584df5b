"""The SQL store's writer: one thread that commits whatever is queued as one transaction (group
commit), on a DB-API connection of its own. On SQLite a lone batch that finds the thread idle is
committed on the submitting loop's thread instead (``_commit_inline``: no thread hand-off for a lone
command; the connection is never used by both at once), and once passes in a row have each brought one
such batch (one game commanded one command at a time), inside ``submit`` itself (no loop pass first).

Per group: one statement per table carrying all of the group's rows of it (text built once per table
and column set), one commit, and one wake-up of the event loop resolving every future of the group,
after calling the early answers its batches carry (``WriteBatch.on_durable``: a command's result is
written to its socket before any command of the group lands).
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
import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator
from operator import itemgetter
from typing import Any

from sqlalchemy import Engine

from .event_store import Conflict, WriteBatch, predecessor_failure
from .storage_faults import FAULTS, as_storage_error
from .tables import EVENTS, GAMES, IDEMPOTENCY, OUTBOX, SEATS, SEEDS, SNAPSHOTS

log = logging.getLogger(__name__)

GROUP_LIMIT = 256  # batches per transaction; bounds latency of a very busy writer
INLINE_BACK_OFF = 0.02  # s without inline commits once commands queued up behind one (several games busy)
EAGER_AFTER = 2  # lone inline passes in a row after which a pass's first batch commits at once (``submit``)
VALUES_ROWS = 4  # PostgreSQL: up to this many rows of a table go as one INSERT, more as a COPY

# (batch, the submitter's loop, its future, perf_counter at submission or 0.0 when nobody observes)
_Job = tuple[WriteBatch, asyncio.AbstractEventLoop, "asyncio.Future[None]", float]
# (future, None when durable or why not, the batch's early answer when durable and it has one)
_Outcome = tuple["asyncio.Future[None]", BaseException | None, Callable[[], None] | None]


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
        self._thread: threading.Thread | None = None
        # inline commits: a hand-off that finds the writer idle commits on the loop's own thread (below)
        self.inline = engine.dialect.name == "sqlite"
        self._connection_lock = threading.Lock()  # whoever commits holds it: the thread or an inline hand-off
        self._handed = 0  # jobs put on the queue (the loops' side, under _count_lock: several loops may hand off)
        # of those, jobs the thread has committed or failed: written by the thread alone, under
        # _connection_lock, so whoever holds that lock reads it settled
        self._finished = 0
        self._count_lock = threading.Lock()
        self._after_inline = False  # the last hand-off was committed inline
        self._inline_from = 0.0  # perf_counter before which no hand-off is committed inline (backing off)
        # passes in a row whose one batch was committed inline, on which loop (from EAGER_AFTER of them on,
        # ``submit`` commits a pass's first batch at once), and what that pass submitted after it
        self._lone_passes = 0
        self._lone_loop: asyncio.AbstractEventLoop | None = None
        self._behind: list[_Job] | None = None
        self._connection: Any = None  # the pool's connection, held for the writer's life
        self._driver: Any = None  # its DB-API connection (read once: the pool's proxy property costs ~2k a group)
        self._cursor: Any = None  # the groups' cursor, made once for the connection in _cursor_of
        self._cursor_of: Any = None
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

    # --- the loop's side ---------------------------------------------------------------------------

    def submit(self, batch: WriteBatch) -> asyncio.Future[None]:
        """Queue the batch (batches commit in submission order) and return its future.

        The batches a loop submits in one pass of its ready callbacks reach the writer together, in one
        hand-off scheduled on that loop: the writer is woken once per pass, when the submitting code has
        run to its next await, not once per batch while the loop still holds the GIL (a writer woken then
        only wakes to wait for the GIL, twice over on one core, and groups fewer batches).

        After ``EAGER_AFTER`` passes in a row whose one batch was committed inline, the first batch of a
        pass is committed here, before ``submit`` returns (its early answer written, its future settled):
        at one game that takes a loop pass (~12 µs of a ~450 µs round trip here) and the command's suspension
        off the path between the decision and the commit. A batch the same pass submits after it counts
        as queued up behind an inline commit (``_hand_off``: the thread's, and inline commits back off)."""
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        job = (batch, loop, future, time.perf_counter() if self.observe_write is not None else 0.0)
        pending = self._pending.get(loop)
        if pending is not None:
            pending.append(job)
            return future
        self._pending[loop] = pending = []
        loop.call_soon(self._hand_off, loop)
        # a loop whose last passes each brought one lone batch (one game commanded one command at a time)
        # commits the first of a pass at once: its answer goes out before the submitting code's next await,
        # not a loop pass later; what the pass submits after it is handed off as usual (``_hand_off``)
        if self._lone_passes >= EAGER_AFTER and self._lone_loop is loop and self._commit_inline([job]):
            self._behind = pending
            return future
        pending.append(job)
        return future

    def _hand_off(self, loop: asyncio.AbstractEventLoop, on_loop: bool = True) -> None:
        """On the loop: give what it submitted since its last hand-off to the writer, in one put."""
        jobs = self._pending.pop(loop, None)
        if jobs is None:
            return
        behind, self._behind = jobs is self._behind, None  # submitted after a batch committed at once
        if not jobs:  # the pass's one batch was committed at once (``submit``): one more lone pass
            self._lone_passes += 1
            return
        if on_loop and self.inline:
            if self._after_inline:  # the pass after an inline commit: did commands queue up behind it?
                self._after_inline = False
                if len(jobs) > 1 or behind:
                    self._inline_from = time.perf_counter() + INLINE_BACK_OFF
            if len(jobs) == 1 and self._commit_inline(jobs):
                self._lone_passes = self._lone_passes + 1 if self._lone_loop is loop else 1
                self._lone_loop = loop
                return
        self._lone_passes, self._lone_loop = 0, None
        with self._count_lock:
            self._handed += len(jobs)
        self._queue.put(jobs)

    def _commit_inline(self, jobs: list[_Job]) -> bool:
        """A lone batch (the only one of its loop pass) is committed here, on the loop's thread, when the
        writer thread has nothing in hand.

        On one core the thread costs a lone command two hand-offs (the writer's wake-up, then the
        loop's), each a context switch and a GIL transfer: at one game, ~45 µs of a ~400 µs round trip.
        The loop blocks for the commit (SQLite releases the GIL while it writes and syncs); what arrives
        meanwhile waits in its socket and is decided in the next pass. Several batches in one pass go to
        the thread, so that the loop decides on while they sync (inline, a busy loop would idle through
        every fsync: −14 % at 10 and 50 games when every hand-off was tried inline). When the pass after
        an inline commit brings several batches, commands queued up behind it (several games busy): no
        inline commit for INLINE_BACK_OFF (lone inline commits cost 10 games 3–5 % without it). Order
        holds: nothing handed to the thread is still uncommitted, and the thread cannot start while this
        holds the lock. Once committed, the batch's ``on_durable`` (the command's early answer) is called
        here (``_settle``), before the metrics and before its future wakes the command."""
        if self._inline_from and time.perf_counter() < self._inline_from:
            return False
        if not self._connection_lock.acquire(blocking=False):
            return False
        try:
            # two int reads (atomic under the GIL; _count_lock serialises the hand-offs' increments, and a
            # hand-off landing just after this read would have landed just after the lock's release too)
            if self._handed != self._finished:
                return False
            outcomes = self._commit_collecting(jobs, observe=False)
        finally:
            self._connection_lock.release()
        self._after_inline = True
        _settle(outcomes)
        if outcomes[0][1] is None:  # the metrics after the answer (nothing runs before this returns)
            self._observe(jobs)
        return True

    def _hand_off_all(self) -> None:
        """Every loop's batches not yet handed off (stop: nothing queued is left behind)."""
        for loop in list(self._pending):
            self._hand_off(loop, on_loop=False)  # stop() may run on another thread: settle through the queue

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
                while len(carry) < GROUP_LIMIT and not stop and not self._queue.empty():
                    more = self._queue.get_nowait()  # (this thread is the only getter; no Empty raised per group)
                    if more is None:
                        stop = True  # commit what came before it, then end
                    else:
                        carry += more
                if len(carry) > GROUP_LIMIT:
                    jobs, carry = carry[:GROUP_LIMIT], carry[GROUP_LIMIT:]
                else:
                    jobs, carry = carry, []
                with self._connection_lock:
                    outcomes = self._commit_collecting(jobs)
                    self._finished += len(jobs)
                _wake(jobs, outcomes)
        finally:
            self._release()

    def _commit_collecting(self, jobs: list[_Job], observe: bool = True) -> list[_Outcome]:
        """``observe``: the committed jobs' metrics now (else the caller's, once it has answered)."""
        outcomes: list[_Outcome] = []
        try:
            self._commit_group(jobs, outcomes, observe)
        except BaseException as exc:  # a bug here must not leave commands waiting forever
            answered = {id(outcome[0]) for outcome in outcomes}
            outcomes.extend((job[2], exc, None) for job in jobs if id(job[2]) not in answered)
            log.exception("the writer failed a group")
        return outcomes

    def _commit_group(self, jobs: list[_Job], outcomes: list[_Outcome], observe: bool = True) -> None:
        ready = []
        batches = []
        for job in jobs:  # a batch decided on one that failed is not written (batches come in order)
            failure = None if job[0].follows is None else predecessor_failure(job[0])
            if failure is None:
                ready.append(job)
                batches.append(job[0])
            else:
                _fail(job, failure, outcomes)
        if not ready:
            return
        try:
            self._write(batches)
        except Exception as exc:  # noqa: BLE001 - handed to the waiting commands, never swallowed
            self._write_failed(ready, exc, outcomes, observe)
            return
        self.commits += 1
        if FAULTS.write_failure is not None:  # writing again after a failed write (readiness)
            FAULTS.wrote()
        self.batches += len(ready)
        for job in ready:  # (a loop: a generator's setup costs more than one lone batch's append)
            batch = job[0]
            answer = batch.on_durable
            if answer is not None:
                batch.on_durable = None  # taken: the command knows it is answered
            outcomes.append((job[2], None, answer))
        if observe:
            self._observe(ready)

    def _write_failed(self, ready: list[_Job], exc: Exception, outcomes: list[_Outcome], observe: bool) -> None:
        """The group's write failed: a conflict fails its batch alone (a group of several is tried again one
        batch at a time, so the others still commit); anything else fails them all as the storage's error."""
        if isinstance(exc, self._integrity_error):
            if len(ready) == 1:
                _fail(ready[0], Conflict(str(exc)), outcomes)
                return
            for job in ready:  # isolate the conflicting batch; the others still commit
                self._commit_group([job], outcomes, observe)
            return
        failure = as_storage_error(exc, writing=True)  # the database away or full: 503 / 507, logged once
        for job in ready:
            _fail(job, failure, outcomes)

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
        if self._cursor_of is not connection:  # one cursor per connection, not one per group
            self._cursor, self._cursor_of = connection.cursor(), connection
        cursor = self._cursor
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
            if len(rows) == 1:  # a lone row has its own columns
                yield table, columns, [values_of(rows[0])]
                continue
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
            self._driver = self._connection.driver_connection
        return self._driver

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
            self._connection = self._driver = self._cursor = self._cursor_of = None
            with contextlib.suppress(Exception):
                connection.invalidate()

    def _release(self) -> None:
        connection, self._connection = self._connection, None
        self._driver = self._cursor = self._cursor_of = None
        if connection is not None:
            with contextlib.suppress(Exception):
                connection.close()  # back to the pool (which rolls back nothing: no transaction is open)


_GAMES, _SEATS, _SEEDS, _EVENTS, _IDEMPOTENCY, _SNAPSHOTS, _OUTBOX = (
    t.name for t in (GAMES, SEATS, SEEDS, EVENTS, IDEMPOTENCY, SNAPSHOTS, OUTBOX)
)


def _rows_by_table(batches: list[WriteBatch]) -> list[tuple[str, list[dict[str, Any]]]]:
    if len(batches) == 1:  # a lone command (most groups at one game): its lists as they are, in the same order
        return _rows_of(batches[0])
    games: list[dict[str, Any]] = []
    seats: list[dict[str, Any]] = []
    seeds: list[dict[str, Any]] = []
    events: list[dict[str, Any]] = []
    idempotency: list[dict[str, Any]] = []
    snapshots: list[dict[str, Any]] = []
    outbox: list[dict[str, Any]] = []
    for b in batches:  # one pass (not six comprehensions over the group); most batches carry events alone
        if b.game is not None:
            games.append(b.game)
        if b.seats:
            seats += b.seats
        if b.seeds:
            seeds += b.seeds
        events += b.events
        if b.idempotency is not None:
            idempotency.append(b.idempotency)
        if b.snapshot is not None:
            snapshots.append(b.snapshot)
        if b.snapshots:
            snapshots += b.snapshots
        if b.outbox:  # notifications (watchers.py): in the transaction of the events that cause them
            outbox += b.outbox
    tables = (
        (_GAMES, games),
        (_SEATS, seats),
        (_SEEDS, seeds),
        (_EVENTS, events),
        (_IDEMPOTENCY, idempotency),
        (_SNAPSHOTS, snapshots),
        (_OUTBOX, outbox),
    )
    return [(name, rows) for name, rows in tables if rows]


def _rows_of(b: WriteBatch) -> list[tuple[str, list[dict[str, Any]]]]:
    tables: list[tuple[str, list[dict[str, Any]]]] = []
    if b.game is not None:
        tables.append((_GAMES, [b.game]))
    if b.seats:
        tables.append((_SEATS, b.seats))
    if b.seeds:
        tables.append((_SEEDS, b.seeds))
    if b.events:
        tables.append((_EVENTS, b.events))
    if b.idempotency is not None:
        tables.append((_IDEMPOTENCY, [b.idempotency]))
    if b.snapshot is not None:
        tables.append((_SNAPSHOTS, [b.snapshot]))
    elif b.snapshots:  # a created game's (which has no ``snapshot``)
        tables.append((_SNAPSHOTS, b.snapshots))
    if b.outbox:  # notifications (watchers.py): in the transaction of the events that cause them
        tables.append((_OUTBOX, b.outbox))
    return tables


def _fail(job: _Job, exc: BaseException, outcomes: list[_Outcome]) -> None:
    job[0].failed = exc  # at once, before any later batch is looked at: the writer is one thread
    outcomes.append((job[2], exc, None))


def _wake(jobs: list[_Job], outcomes: list[_Outcome]) -> None:
    """One call into each submitting loop (there is one, the service's) for the whole group."""
    loop = jobs[0][1]
    for job in jobs:  # (a loop, not all() over a generator)
        if job[1] is not loop:
            break
    else:
        _call(loop, outcomes)
        return
    by_loop: dict[asyncio.AbstractEventLoop, list[_Outcome]] = {}
    loops = {id(job[2]): job[1] for job in jobs}
    for outcome in outcomes:
        by_loop.setdefault(loops[id(outcome[0])], []).append(outcome)
    for each, settled in by_loop.items():
        _call(each, settled)


def _call(loop: asyncio.AbstractEventLoop, outcomes: list[_Outcome]) -> None:
    try:  # (not contextlib.suppress: its object and two Python-level calls, once per group)
        loop.call_soon_threadsafe(_settle, outcomes)
    except RuntimeError:  # that loop is closed: nobody waits there any more
        pass


def _settle(outcomes: list[_Outcome]) -> None:
    """On the submitting loop: the group's early answers first (each command's, written as soon as it is
    durable), then the futures (each command's landing, on the loop's next pass)."""
    for future, _exc, answer in outcomes:
        if answer is not None and not future.done():
            try:
                answer()
            except Exception:  # noqa: BLE001 - an answer's failure is not the commit's
                log.exception("an early answer failed")
    for future, exc, _answer in outcomes:
        if future.done():  # cancelled by its waiter
            continue
        if exc is None:
            future.set_result(None)
        else:
            future.set_exception(exc)
