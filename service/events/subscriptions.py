"""A player's webhook subscriptions: for all their games, one game, or one seat of it. The secret signing
each delivery is made here and shown once, when the subscription is created. (Whether its URL may be
called at all is the API's check: service/api/webhooks.py.)"""

from __future__ import annotations

import asyncio
import base64
import json
import secrets
from collections.abc import Callable
from typing import Any, TypeVar

from cryptography.hazmat.primitives.asymmetric import ec
from sqlalchemy import Engine, func, insert, select, update

from .errors import InvalidRequest, NotFound
from .rows import now_iso
from .tables import OUTBOX, PLAYER_SEATS, SUBSCRIPTIONS

SHAPES = ("json", "discord", "slack", "webpush")
MAX_SUBSCRIPTIONS = 20  # per player

T = TypeVar("T")


def _b64url(value: str, field: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (ValueError, TypeError):
        raise InvalidRequest("not base64url", field=field) from None


def check_push_keys(keys: dict[str, str]) -> None:
    """A browser's keys: p256dh an uncompressed P-256 point, auth 16 bytes (RFC 8291)."""
    point = _b64url(keys["p256dh"], "keys.p256dh")
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        raise InvalidRequest("p256dh is not a P-256 public key", field="keys.p256dh") from None
    if len(point) != 65 or len(_b64url(keys["auth"], "keys.auth")) != 16:
        raise InvalidRequest("p256dh is 65 bytes and auth 16, base64url", field="keys")


def described(row: Any, secret: str | None = None) -> dict[str, Any]:
    return {
        "id": row.id,
        "kind": row.kind,
        "url": row.url,
        "game_id": row.game_id,
        "seat": row.seat,
        "created_at": row.created_at,
        "failures": row.failures,
        "paused": row.paused_at is not None,
        "last_error": row.last_error,
        **({"secret": secret} if secret else {}),
    }


class Subscriptions:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(None, fn, *args)

    async def create(
        self,
        player_id: str,
        kind: str,
        url: str,
        game_id: str | None,
        seat: str | None,
        push_keys: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        if kind not in SHAPES:
            raise InvalidRequest(f"kind must be one of {', '.join(SHAPES)}", field="kind")
        if (kind == "webpush") != (push_keys is not None):
            raise InvalidRequest("keys (p256dh, auth) come with kind webpush, and only with it", field="keys")
        if push_keys is not None:
            check_push_keys(push_keys)
        if seat is not None and game_id is None:
            raise InvalidRequest("a seat is named with its game_id", field="seat")
        sub_id, secret = "s_" + secrets.token_hex(8), secrets.token_urlsafe(32)

        def work() -> dict[str, Any]:
            with self.engine.begin() as conn:
                count = conn.execute(
                    select(func.count()).select_from(SUBSCRIPTIONS).where(SUBSCRIPTIONS.c.player_id == player_id)
                ).scalar_one()
                if count >= MAX_SUBSCRIPTIONS:
                    raise InvalidRequest(f"a player has at most {MAX_SUBSCRIPTIONS} subscriptions", field="url")
                if game_id is not None:
                    claims = conn.execute(
                        select(PLAYER_SEATS.c.seat).where(
                            PLAYER_SEATS.c.player_id == player_id, PLAYER_SEATS.c.game_id == game_id
                        )
                    ).all()
                    if not claims:
                        raise InvalidRequest(f"this player holds no seat in game {game_id!r}", field="game_id")
                    if seat is not None and seat not in {c.seat for c in claims}:
                        raise InvalidRequest(f"this player does not hold seat {seat!r} there", field="seat")
                conn.execute(
                    insert(SUBSCRIPTIONS).values(
                        id=sub_id,
                        player_id=player_id,
                        kind=kind,
                        url=url,
                        secret=secret,
                        game_id=game_id,
                        seat=seat,
                        created_at=now_iso(),
                        failures=0,
                        paused_at=None,
                        last_error=None,
                        push_keys=json.dumps(push_keys) if push_keys is not None else None,
                    )
                )
                row = conn.execute(select(SUBSCRIPTIONS).where(SUBSCRIPTIONS.c.id == sub_id)).one()
                return described(row, secret)

        return await self._run(work)

    async def listed(self, player_id: str) -> list[dict[str, Any]]:
        def work() -> list[Any]:
            with self.engine.connect() as conn:
                return list(
                    conn.execute(
                        select(SUBSCRIPTIONS)
                        .where(SUBSCRIPTIONS.c.player_id == player_id)
                        .order_by(SUBSCRIPTIONS.c.created_at, SUBSCRIPTIONS.c.id)
                    )
                )

        return [described(r) for r in await self._run(work)]

    async def delete(self, player_id: str, sub_id: str) -> None:
        def work() -> int:
            with self.engine.begin() as conn:
                gone = conn.execute(
                    SUBSCRIPTIONS.delete().where(SUBSCRIPTIONS.c.player_id == player_id, SUBSCRIPTIONS.c.id == sub_id)
                ).rowcount
                if gone:  # its undelivered notifications go with it
                    conn.execute(
                        OUTBOX.delete().where(OUTBOX.c.subscription_id == sub_id, OUTBOX.c.delivered_at.is_(None))
                    )
                return int(gone)

        if not await self._run(work):
            raise NotFound(f"no subscription {sub_id!r} of this player", field="subscription_id")

    async def resume(self, player_id: str, sub_id: str) -> dict[str, Any]:
        """A paused subscription delivers again: its waiting rows are due now."""

        def work() -> Any:
            with self.engine.begin() as conn:
                changed = conn.execute(
                    update(SUBSCRIPTIONS)
                    .where(SUBSCRIPTIONS.c.player_id == player_id, SUBSCRIPTIONS.c.id == sub_id)
                    .values(paused_at=None, failures=0)
                ).rowcount
                if not changed:
                    return None
                conn.execute(
                    update(OUTBOX)
                    .where(
                        OUTBOX.c.subscription_id == sub_id, OUTBOX.c.delivered_at.is_(None), OUTBOX.c.dead_at.is_(None)
                    )
                    .values(next_attempt=0)
                )
                return conn.execute(select(SUBSCRIPTIONS).where(SUBSCRIPTIONS.c.id == sub_id)).one()

        row = await self._run(work)
        if row is None:
            raise NotFound(f"no subscription {sub_id!r} of this player", field="subscription_id")
        return described(row)
