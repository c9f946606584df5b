"""What the application needs of an event store: the protocol, its write unit and its one failure.

Two implementations: ``store.SqlEventStore`` (SQLite or PostgreSQL, group commit) and
``memory_store.MemoryEventStore`` (tests, tools, benchmarks). Rows read back expose their columns as
attributes (``row.seq``, ``row.data``...), whichever store returned them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Protocol

import msgspec

from .storage_faults import StorageFull, StorageUnavailable


class Conflict(Exception):
    """Another writer appended at the same seq (or reused an idempotency key) first."""


class PredecessorFailed(Exception):
    """A batch decided on top of another batch whose commit failed: it is not written either (it
    would leave a gap in seq, or record a decision taken on a state that never became durable)."""


class WriteBatch(msgspec.Struct):
    """Everything one command (or game creation) writes, atomically. (A Struct, built in C: one a command;
    an empty list default is a fresh list for each batch, as a dataclass' ``default_factory=list``.)"""

    game_id: str
    events: list[dict[str, Any]] = []
    game: dict[str, Any] | None = None
    seats: list[dict[str, Any]] = []
    seeds: list[dict[str, Any]] = []
    idempotency: dict[str, Any] | None = None
    snapshot: dict[str, Any] | None = None
    # more snapshots along the events of a created game that inherits a log (an import, a fork): its first
    # load folds from the last of them, not from the start (the command path sets ``snapshot`` alone)
    snapshots: list[dict[str, Any]] = []
    # notifications caused by these events (watchers.py): written in the same transaction, delivered later
    # by the notifier from the outbox; only a game someone watches has any
    outbox: list[dict[str, Any]] = []
    # the batch of the same game this one was decided on top of while it was still being committed;
    # the store writes this one only if that one was written
    follows: WriteBatch | None = None
    failed: BaseException | None = None  # set by the store when this batch was not written
    # called (once; taken off the batch by the store) on the submitting loop by a store that supports it
    # (``GroupWriter``), once this batch is durable and before its future is settled: the command's early
    # answer, when nothing of its game is still to be acknowledged before it (``CommandPipeline.handle``).
    on_durable: Callable[[], None] | None = None


def predecessor_failure(batch: WriteBatch) -> BaseException | None:
    """Why ``batch`` must not be written (its predecessor failed), or None. A predecessor's Conflict
    makes this one a Conflict too (the command is decided again on a reloaded head), the storage's failure
    the same failure (503 / 507: nothing of either was written); any other failure makes it PredecessorFailed."""
    before = batch.follows
    if before is None or before.failed is None:
        return None
    if isinstance(before.failed, Conflict):
        return Conflict(f"decided on a command that conflicted: {before.failed}")
    if isinstance(before.failed, StorageUnavailable | StorageFull):  # the same answer: nothing written, retry
        return type(before.failed)()
    return PredecessorFailed(f"decided on a command whose commit failed: {before.failed!r}")


class EventStore(Protocol):
    """The log and its side tables. ``write`` is atomic and durable before it returns; a duplicate key
    raises Conflict and writes nothing of that batch."""

    # metrics hooks: seconds from a batch's submission to its durable commit; batches per commit
    observe_write: Callable[[float], None] | None
    observe_group: Callable[[int], None] | None

    def start(self) -> None: ...

    def close(self) -> None: ...

    async def write(self, batch: WriteBatch) -> None: ...

    def submit(self, batch: WriteBatch) -> asyncio.Future[None]:
        """Queue ``batch`` now (batches are committed in the order submitted) and return a future that
        completes once it is durable (or fails as ``write`` would, and with ``batch.failed`` set)."""
        ...

    async def ping(self) -> None: ...

    async def read_events(
        self, game_id: str, after: int = 0, upto: int | None = None, limit: int | None = None
    ) -> list[Any]: ...

    async def read_events_of_types(self, game_id: str, types: tuple[str, ...]) -> list[Any]: ...

    async def head(self, game_id: str) -> int: ...

    async def game(self, game_id: str) -> Any | None: ...

    async def games_of_ruleset(self, ruleset: str) -> list[str]: ...

    async def games_with_event_types(self, types: tuple[str, ...]) -> list[str]: ...

    async def rows_of_types(self, types: tuple[str, ...]) -> list[Any]: ...

    async def seat_for_token(self, token_hash: str) -> Any | None: ...

    async def idempotency(self, game_id: str, key: str) -> Any | None: ...

    async def snapshot(self, game_id: str, at_most: int) -> Any | None: ...

    async def seed(self, game_id: str, turn: int) -> Any | None: ...

    async def all_seeds(self, game_id: str) -> dict[int, str]: ...

    async def drop_snapshots(self, game_id: str | None = None) -> None: ...

    async def turn_bounds(self, game_id: str, turn: int, phase: str | None = None) -> tuple[int, int] | None: ...
