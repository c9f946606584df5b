"""Players: an identity without a password. A player is created with a personal key (a token shown once
and stored as its hash; one per device, each revocable) and claims seats with the seats' own tokens, so
"my games" follows the player to any device. Seat tokens keep working alone; a personal key acts in a
game only for a seat its player claimed there (``viewer_in``).

Storage: the players tables (``tables.py``) on the SQL store's engine, each call one short transaction
on a worker thread (never on the event loop)."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy import Engine, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from service.domain.core import UMPIRE, Viewer

from . import ids
from .errors import InvalidRequest, NotFound, Unauthorized
from .rows import now_iso
from .seat_status import seat_now
from .tables import GAMES, PLAYER_KEYS, PLAYER_SEATS, PLAYERS, SEATS
from .tokens import hash_token

KEY_PREFIX = "pk_"  # personal keys are told from seat tokens by it (a seat token never starts with it)
MAX_KEYS = 20  # live keys one player may hold (devices)
MAX_CLAIMS = 500  # seats one player may hold

T = TypeVar("T")


def new_key() -> str:
    return KEY_PREFIX + ids.token()


def is_personal_key(token: str) -> bool:
    return token.startswith(KEY_PREFIX)


class Players:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(None, fn, *args)

    # --- identity and keys ---------------------------------------------------------------------------

    async def create(self, label: str) -> dict[str, str]:
        """A new player and its first key (the only time the key is shown)."""
        player_id = "p_" + secrets.token_hex(8)

        def write() -> dict[str, str]:
            with self.engine.begin() as conn:
                conn.execute(insert(PLAYERS).values(id=player_id, created_at=now_iso()))
                return self._add_key(conn, player_id, label)

        return await self._run(write)

    def _add_key(self, conn: Any, player_id: str, label: str) -> dict[str, str]:
        key, key_id = new_key(), "k_" + secrets.token_hex(6)
        conn.execute(
            insert(PLAYER_KEYS).values(
                key_hash=hash_token(key),
                key_id=key_id,
                player_id=player_id,
                label=label,
                created_at=now_iso(),
                revoked_at=None,
            )
        )
        return {"player_id": player_id, "key_id": key_id, "key": key, "label": label}

    async def add_key(self, player_id: str, label: str) -> dict[str, str]:
        def write() -> dict[str, str]:
            with self.engine.begin() as conn:
                live = conn.execute(
                    select(func.count())
                    .select_from(PLAYER_KEYS)
                    .where(PLAYER_KEYS.c.player_id == player_id, PLAYER_KEYS.c.revoked_at.is_(None))
                ).scalar_one()
                if live >= MAX_KEYS:
                    raise InvalidRequest(
                        f"a player holds at most {MAX_KEYS} live keys: revoke one first", field="label"
                    )
                return self._add_key(conn, player_id, label)

        return await self._run(write)

    async def player_of(self, key: str | None) -> str:
        """The player a live personal key belongs to; Unauthorized otherwise."""
        if not key or not is_personal_key(key):
            raise Unauthorized("a personal key (Authorization: Bearer pk_…) is required")
        digest = hash_token(key)

        def read() -> Any:
            with self.engine.connect() as conn:
                return conn.execute(
                    select(PLAYER_KEYS.c.player_id).where(
                        PLAYER_KEYS.c.key_hash == digest, PLAYER_KEYS.c.revoked_at.is_(None)
                    )
                ).first()

        row = await self._run(read)
        if row is None:
            raise Unauthorized("the personal key is unknown or revoked")
        return str(row.player_id)

    async def keys(self, player_id: str) -> list[dict[str, Any]]:
        def read() -> list[Any]:
            with self.engine.connect() as conn:
                return list(
                    conn.execute(
                        select(
                            PLAYER_KEYS.c.key_id,
                            PLAYER_KEYS.c.label,
                            PLAYER_KEYS.c.created_at,
                            PLAYER_KEYS.c.revoked_at,
                        )
                        .where(PLAYER_KEYS.c.player_id == player_id)
                        .order_by(PLAYER_KEYS.c.created_at, PLAYER_KEYS.c.key_id)
                    )
                )

        return [
            {"key_id": r.key_id, "label": r.label, "created_at": r.created_at, "revoked_at": r.revoked_at}
            for r in await self._run(read)
        ]

    async def revoke(self, player_id: str, key_id: str) -> None:
        def write() -> int:
            with self.engine.begin() as conn:
                return conn.execute(
                    update(PLAYER_KEYS)
                    .where(
                        PLAYER_KEYS.c.player_id == player_id,
                        PLAYER_KEYS.c.key_id == key_id,
                        PLAYER_KEYS.c.revoked_at.is_(None),
                    )
                    .values(revoked_at=now_iso())
                ).rowcount

        if not await self._run(write):
            raise NotFound(f"no live key {key_id!r} of this player", field="key_id")

    # --- seat claims ---------------------------------------------------------------------------------

    async def claim(self, player_id: str, seat_token: str) -> dict[str, Any]:
        """Hold the seat (or the umpire's place) a token opens; claiming it again changes nothing."""
        digest = hash_token(seat_token)

        def write() -> dict[str, Any]:
            with self.engine.begin() as conn:
                seat = conn.execute(select(SEATS).where(SEATS.c.token_hash == digest)).first()
                if seat is None:
                    raise Unauthorized("the seat token is not valid for any game")
                held = conn.execute(
                    select(PLAYER_SEATS.c.token_hash).where(
                        PLAYER_SEATS.c.player_id == player_id, PLAYER_SEATS.c.token_hash == digest
                    )
                ).first()
                if held is None:
                    count = conn.execute(
                        select(func.count()).select_from(PLAYER_SEATS).where(PLAYER_SEATS.c.player_id == player_id)
                    ).scalar_one()
                    if count >= MAX_CLAIMS:
                        raise InvalidRequest(f"a player holds at most {MAX_CLAIMS} seats", field="token")
                    conn.execute(
                        insert(PLAYER_SEATS).values(
                            player_id=player_id,
                            token_hash=digest,
                            game_id=seat.game_id,
                            role=seat.role,
                            seat=seat.seat,
                            claimed_at=now_iso(),
                            last_seen=0,
                        )
                    )
                return {"game_id": seat.game_id, "role": seat.role, "seat": seat.seat}

        try:
            return await self._run(write)
        except IntegrityError:  # the same claim from another device at the same moment: it is held
            return await self._run(write)

    async def release(self, player_id: str, game_id: str) -> None:
        def write() -> int:
            with self.engine.begin() as conn:
                return conn.execute(
                    PLAYER_SEATS.delete().where(
                        PLAYER_SEATS.c.player_id == player_id, PLAYER_SEATS.c.game_id == game_id
                    )
                ).rowcount

        if not await self._run(write):
            raise NotFound(f"this player holds no seat in game {game_id!r}", field="game_id")

    async def claims(self, player_id: str, game_id: str | None = None) -> list[Any]:
        """(game_id, role, seat, last_seen, scenario_name) of each claim, oldest first."""

        def read() -> list[Any]:
            stmt = (
                select(
                    PLAYER_SEATS.c.game_id,
                    PLAYER_SEATS.c.role,
                    PLAYER_SEATS.c.seat,
                    PLAYER_SEATS.c.last_seen,
                    PLAYER_SEATS.c.claimed_at,
                    GAMES.c.scenario_name,
                )
                .join(GAMES, GAMES.c.id == PLAYER_SEATS.c.game_id)
                .where(PLAYER_SEATS.c.player_id == player_id)
                .order_by(PLAYER_SEATS.c.claimed_at, PLAYER_SEATS.c.game_id, PLAYER_SEATS.c.seat)
            )
            if game_id is not None:
                stmt = stmt.where(PLAYER_SEATS.c.game_id == game_id)
            with self.engine.connect() as conn:
                return list(conn.execute(stmt))

        return await self._run(read)

    async def mark_seen(self, player_id: str, game_id: str, version: int) -> None:
        def write() -> int:
            with self.engine.begin() as conn:
                return conn.execute(
                    update(PLAYER_SEATS)
                    .where(PLAYER_SEATS.c.player_id == player_id, PLAYER_SEATS.c.game_id == game_id)
                    .values(last_seen=version)
                ).rowcount

        if not await self._run(write):
            raise NotFound(f"this player holds no seat in game {game_id!r}", field="game_id")

    async def viewer_in(self, key_digest: str, game_id: str) -> Viewer | None:
        """What a personal key (by its hash) may do in a game: its player's one claim there (the umpire's
        place, when the player holds it and seats too); None for no live key or no claim."""

        def read() -> list[Any]:
            stmt = (
                select(PLAYER_SEATS.c.role, PLAYER_SEATS.c.seat)
                .join(PLAYER_KEYS, PLAYER_KEYS.c.player_id == PLAYER_SEATS.c.player_id)
                .where(
                    PLAYER_KEYS.c.key_hash == key_digest,
                    PLAYER_KEYS.c.revoked_at.is_(None),
                    PLAYER_SEATS.c.game_id == game_id,
                )
            )
            with self.engine.connect() as conn:
                return list(conn.execute(stmt))

        rows = await self._run(read)
        if any(r.role == "umpire" for r in rows):
            return UMPIRE
        seats = sorted({r.seat for r in rows})
        # a player holding several seats of one game acts there with each seat's own token: a personal key
        # cannot say which of them a command is for
        return Viewer("seat", seats[0]) if len(seats) == 1 else None


async def my_games(players: Players, service: Any, player_id: str) -> list[dict[str, Any]]:
    """Each game the player holds a seat in, as that seat sees it now: whose move, must I act and why, and
    how many events were appended since the player last marked it seen."""
    listed = []
    for claim in await players.claims(player_id):
        head = await service.current_head(claim.game_id)
        viewer = UMPIRE if claim.role == "umpire" else Viewer("seat", claim.seat)
        now = seat_now(head.ruleset, head.state, viewer)
        listed.append(
            {
                "game_id": claim.game_id,
                "ruleset": head.ruleset.name,
                "scenario": claim.scenario_name,
                "role": claim.role,
                "seat": claim.seat,
                "version": head.seq,
                "turn": now.turn,
                "phase": now.phase,
                "phase_label": now.phase_label,
                "whose_move": list(now.whose_move),
                "must_act": now.must_act,
                "why": now.why,
                "over": now.over,
                "result": now.result,
                "last_seen": claim.last_seen,
                "unseen_events": max(0, head.seq - claim.last_seen),
                "changed": head.seq > claim.last_seen,
            }
        )
    return listed
