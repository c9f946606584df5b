"""The storage schema (SQLModel). Changes go through an Alembic migration in migrations/versions."""

from __future__ import annotations

from sqlalchemy import Column, Index, LargeBinary, Text, text
from sqlmodel import Field, SQLModel


class GameRow(SQLModel, table=True):
    __tablename__ = "games"
    id: str = Field(primary_key=True)
    ruleset: str
    ruleset_version: str
    scenario_name: str | None = None
    setup: str = Field(sa_column=Column(Text, nullable=False))  # the scenario as created (JSON)
    created_at: str
    forked_from: str | None = None
    forked_at: int | None = None


class SeatRow(SQLModel, table=True):
    """A token's hash and what it may do; the token itself is shown once and never stored."""

    __tablename__ = "seats"
    token_hash: str = Field(primary_key=True)
    game_id: str = Field(index=True)
    role: str  # "seat" | "umpire"
    seat: str | None = None


BOT_SEAT_ROWS = text("type IN ('bot.seated', 'bot.unseated')")  # service/events/bot_seats.py; migration 0003


class EventRow(SQLModel, table=True):
    __tablename__ = "events"
    __table_args__ = (Index("ix_events_bot_seats", "type", "game_id", sqlite_where=BOT_SEAT_ROWS,
                            postgresql_where=BOT_SEAT_ROWS),)
    game_id: str = Field(primary_key=True)
    seq: int = Field(primary_key=True)
    type: str
    v: int
    data: str = Field(sa_column=Column(Text, nullable=False))
    rolls: str = Field(sa_column=Column(Text, nullable=False, server_default="[]"))
    turn: int
    phase: str
    actor: str
    command_id: str | None = None
    recorded_at: str
    dice: str | None = Field(default=None, sa_column=Column(Text, nullable=True))


class IdempotencyRow(SQLModel, table=True):
    __tablename__ = "idempotency"
    game_id: str = Field(primary_key=True)
    key: str = Field(primary_key=True)
    request_hash: str
    status: int
    response: bytes = Field(sa_column=Column(LargeBinary, nullable=False))


class SnapshotRow(SQLModel, table=True):
    """A cache of the folded state; may be dropped at any time."""

    __tablename__ = "snapshots"
    game_id: str = Field(primary_key=True)
    seq: int = Field(primary_key=True)
    state: bytes = Field(sa_column=Column(LargeBinary, nullable=False))


class SeedRow(SQLModel, table=True):
    """A turn's secret dice seed. Public only through the dice.revealed event once the turn ends."""

    __tablename__ = "dice_seeds"
    game_id: str = Field(primary_key=True)
    turn: int = Field(primary_key=True)
    seed: str
    commitment: str


METADATA = SQLModel.metadata
GAMES = GameRow.__table__  # type: ignore[attr-defined]
SEATS = SeatRow.__table__  # type: ignore[attr-defined]
EVENTS = EventRow.__table__  # type: ignore[attr-defined]
IDEMPOTENCY = IdempotencyRow.__table__  # type: ignore[attr-defined]
SNAPSHOTS = SnapshotRow.__table__  # type: ignore[attr-defined]
SEEDS = SeedRow.__table__  # type: ignore[attr-defined]
