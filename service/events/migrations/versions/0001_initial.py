"""initial schema: games, seats, events, idempotency, snapshots, dice seeds

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("ruleset", sa.String(), nullable=False),
        sa.Column("ruleset_version", sa.String(), nullable=False),
        sa.Column("scenario_name", sa.String(), nullable=True),
        sa.Column("setup", sa.Text(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.Column("forked_from", sa.String(), nullable=True),
        sa.Column("forked_at", sa.Integer(), nullable=True),
    )
    op.create_table(
        "seats",
        sa.Column("token_hash", sa.String(), primary_key=True),
        sa.Column("game_id", sa.String(), nullable=False, index=True),
        sa.Column("role", sa.String(), nullable=False),
        sa.Column("seat", sa.String(), nullable=True),
    )
    op.create_table(
        "events",
        sa.Column("game_id", sa.String(), primary_key=True),
        sa.Column("seq", sa.Integer(), primary_key=True),
        sa.Column("type", sa.String(), nullable=False),
        sa.Column("v", sa.Integer(), nullable=False),
        sa.Column("data", sa.Text(), nullable=False),
        sa.Column("rolls", sa.Text(), nullable=False, server_default="[]"),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("phase", sa.String(), nullable=False),
        sa.Column("actor", sa.String(), nullable=False),
        sa.Column("command_id", sa.String(), nullable=True),
        sa.Column("recorded_at", sa.String(), nullable=False),
        sa.Column("dice", sa.Text(), nullable=True),
    )
    op.create_table(
        "idempotency",
        sa.Column("game_id", sa.String(), primary_key=True),
        sa.Column("key", sa.String(), primary_key=True),
        sa.Column("request_hash", sa.String(), nullable=False),
        sa.Column("status", sa.Integer(), nullable=False),
        sa.Column("response", sa.LargeBinary(), nullable=False),
    )
    op.create_table(
        "snapshots",
        sa.Column("game_id", sa.String(), primary_key=True),
        sa.Column("seq", sa.Integer(), primary_key=True),
        sa.Column("state", sa.LargeBinary(), nullable=False),
    )
    op.create_table(
        "dice_seeds",
        sa.Column("game_id", sa.String(), primary_key=True),
        sa.Column("turn", sa.Integer(), primary_key=True),
        sa.Column("seed", sa.String(), nullable=False),
        sa.Column("commitment", sa.String(), nullable=False),
    )


def downgrade() -> None:
    for table in ("dice_seeds", "snapshots", "idempotency", "events", "seats", "games"):
        op.drop_table(table)
