"""The notification outbox: rows written in the transaction of the events that cause them (watchers.py),
delivered at least once by a worker (service/api/notifier.py) that leases a due row, tries it, and records
the outcome. A row's id is the idempotency key its receiver sees: a row delivered again (a worker killed
between the receiver's answer and the record of it) repeats its key, so a receiver honouring it acts once.

A failed delivery is tried again after a backoff (doubling from BACKOFF_FIRST to BACKOFF_MAX, with jitter)
up to MAX_ATTEMPTS times; a subscription whose deliveries fail PAUSE_AFTER times in a row is paused (its
rows wait) and its owner is told on their other subscriptions."""

from __future__ import annotations

import asyncio
import random
import secrets
import time
from collections.abc import Callable
from typing import Any, TypeVar

import msgspec
from sqlalchemy import Engine, and_, insert, or_, select, update

from .rows import now_iso
from .tables import OUTBOX, SUBSCRIPTIONS
from .watchers import Notice, outbox_row

BACKOFF_FIRST = 1.0  # seconds before the second attempt
BACKOFF_MAX = 600.0
MAX_ATTEMPTS = 12  # about an hour and a half of trying, then the row is given up (dead_at)
PAUSE_AFTER = 8  # failed deliveries in a row that pause a subscription
_jitter = random.Random()  # timing only

T = TypeVar("T")


def now_ms() -> int:
    return int(time.time() * 1000)


def backoff(attempts: int) -> float:
    """Seconds before the next attempt, after ``attempts`` failed ones (± 20 %)."""
    base = min(BACKOFF_MAX, BACKOFF_FIRST * 2 ** max(0, attempts - 1))
    return base * _jitter.uniform(0.8, 1.2)


class Due(msgspec.Struct, kw_only=True):
    """A row leased for delivery, with its subscription's target."""

    id: str
    subscription_id: str
    kind: str
    body: str
    attempts: int
    url: str
    secret: str
    shape: str  # the subscription's kind: "json" | "discord" | "slack" | "webpush"
    push_keys: str | None = None  # webpush: the browser's keys, JSON {"p256dh", "auth"}


class Outbox:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(None, fn, *args)

    async def lease(self, limit: int, lease_seconds: float) -> list[Due]:
        """Rows due now, of subscriptions not paused, each leased to this worker for ``lease_seconds`` (a
        worker that dies holding one lets it go when the lease ends; two workers never hold one at once)."""

        def work() -> list[Due]:
            now = now_ms()
            free = or_(OUTBOX.c.lease_until.is_(None), OUTBOX.c.lease_until < now)
            stmt = (
                select(
                    OUTBOX.c.id,
                    OUTBOX.c.subscription_id,
                    OUTBOX.c.kind,
                    OUTBOX.c.body,
                    OUTBOX.c.attempts,
                    SUBSCRIPTIONS.c.url,
                    SUBSCRIPTIONS.c.secret,
                    SUBSCRIPTIONS.c.kind.label("shape"),
                    SUBSCRIPTIONS.c.push_keys,
                )
                .join(SUBSCRIPTIONS, SUBSCRIPTIONS.c.id == OUTBOX.c.subscription_id)
                .where(
                    OUTBOX.c.delivered_at.is_(None),
                    OUTBOX.c.dead_at.is_(None),
                    OUTBOX.c.next_attempt <= now,
                    SUBSCRIPTIONS.c.paused_at.is_(None),
                    free,
                )
                .order_by(OUTBOX.c.next_attempt, OUTBOX.c.created_at, OUTBOX.c.id)
                .limit(limit)
            )
            leased = []
            with self.engine.connect() as conn:
                due = conn.execute(stmt).all()
            for r in due:
                # each lease its own transaction, whose first statement writes: on SQLite it waits for the
                # write lock (busy_timeout) instead of failing to upgrade a read snapshot the writer moved past
                with self.engine.begin() as conn:
                    took = conn.execute(
                        update(OUTBOX)
                        .where(OUTBOX.c.id == r.id, free)
                        .values(lease_until=now + int(lease_seconds * 1000))
                    ).rowcount
                    if took:
                        leased.append(
                            Due(
                                id=r.id,
                                subscription_id=r.subscription_id,
                                kind=r.kind,
                                body=r.body,
                                attempts=r.attempts,
                                url=r.url,
                                secret=r.secret,
                                shape=r.shape,
                                push_keys=r.push_keys,
                            )
                        )
            return leased

        return await self._run(work)

    async def delivered(self, due: Due) -> None:
        def work() -> None:
            with self.engine.begin() as conn:
                conn.execute(
                    update(OUTBOX)
                    .where(OUTBOX.c.id == due.id)
                    .values(delivered_at=now_iso(), attempts=due.attempts + 1, lease_until=None, last_error=None)
                )
                conn.execute(
                    update(SUBSCRIPTIONS)
                    .where(SUBSCRIPTIONS.c.id == due.subscription_id)
                    .values(failures=0, last_error=None)
                )

        await self._run(work)

    async def failed(self, due: Due, error: str) -> bool:
        """Record a failed attempt; True when it paused the subscription (its owner is told)."""
        error = error[:500]

        def work() -> bool:
            attempts = due.attempts + 1
            values: dict[str, Any] = {
                "attempts": attempts,
                "lease_until": None,
                "last_error": error,
                "next_attempt": now_ms() + int(backoff(attempts) * 1000),
            }
            if attempts >= MAX_ATTEMPTS:
                values["dead_at"] = now_iso()
            with self.engine.begin() as conn:
                conn.execute(update(OUTBOX).where(OUTBOX.c.id == due.id).values(**values))
                sub = conn.execute(
                    select(SUBSCRIPTIONS.c.failures, SUBSCRIPTIONS.c.player_id, SUBSCRIPTIONS.c.paused_at).where(
                        SUBSCRIPTIONS.c.id == due.subscription_id
                    )
                ).first()
                if sub is None:
                    return False
                failures = sub.failures + 1
                pause = failures >= PAUSE_AFTER and sub.paused_at is None
                conn.execute(
                    update(SUBSCRIPTIONS)
                    .where(SUBSCRIPTIONS.c.id == due.subscription_id)
                    .values(failures=failures, last_error=error, **({"paused_at": now_iso()} if pause else {}))
                )
                if pause:
                    self._tell_owner(conn, sub.player_id, due, error)
                return pause

        return await self._run(work)

    @staticmethod
    def _tell_owner(conn: Any, player_id: str, due: Due, error: str) -> None:
        """The player's other live subscriptions hear that this one was paused, and why."""
        others = conn.execute(
            select(SUBSCRIPTIONS.c.id).where(
                SUBSCRIPTIONS.c.player_id == player_id,
                SUBSCRIPTIONS.c.id != due.subscription_id,
                SUBSCRIPTIONS.c.paused_at.is_(None),
            )
        ).all()
        base = msgspec.json.decode(due.body, type=Notice)
        for other in others:
            key = "n_" + secrets.token_hex(16)
            text = f"Notifications to {due.url[:80]} are paused after {PAUSE_AFTER} failed deliveries: {error}"
            notice = msgspec.structs.replace(base, id=key, type="paused", must_act=False, why=error, text=text)
            conn.execute(
                insert(OUTBOX).values(
                    **outbox_row(
                        key, other.id, base.game_id, base.version, "paused", msgspec.json.encode(notice).decode()
                    )
                )
            )

    async def rows_of(self, subscription_id: str) -> list[Any]:
        """Every outbox row of a subscription (tests, operators)."""

        def work() -> list[Any]:
            with self.engine.connect() as conn:
                return list(
                    conn.execute(
                        select(OUTBOX)
                        .where(OUTBOX.c.subscription_id == subscription_id)
                        .order_by(OUTBOX.c.seq, OUTBOX.c.id)
                    )
                )

        return await self._run(work)

    async def pending(self) -> int:
        def work() -> int:
            with self.engine.connect() as conn:
                return len(
                    conn.execute(
                        select(OUTBOX.c.id).where(and_(OUTBOX.c.delivered_at.is_(None), OUTBOX.c.dead_at.is_(None)))
                    ).all()
                )

        return await self._run(work)
