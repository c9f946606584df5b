"""players, their keys and seat claims; webhook subscriptions and the notification outbox (issue 40)

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

PENDING = sa.text("delivered_at IS NULL AND dead_at IS NULL")


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("created_at", sa.String(), nullable=False),
    )
    op.create_table(
        "player_keys",
        sa.Column("key_hash", sa.String(), primary_key=True),
        sa.Column("key_id", sa.String(), nullable=False, unique=True),
        sa.Column("player_id", sa.String(), nullable=False),
        sa.Column("label", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.Column("revoked_at", sa.String(), nullable=True),
    )
    op.create_index("ix_player_keys_player_id", "player_keys", ["player_id"])
    op.create_table(
        "player_seats",
        sa.Column("player_id", sa.String(), primary_key=True),
        sa.Column("token_hash", sa.String(), primary_key=True),
        sa.Column("game_id", sa.String(), nullable=False),
        sa.Column("role", sa.String(), nullable=False),
        sa.Column("seat", sa.String(), nullable=True),
        sa.Column("claimed_at", sa.String(), nullable=False),
        sa.Column("last_seen", sa.Integer(), nullable=False, server_default="0"),
    )
    op.create_index("ix_player_seats_game_id", "player_seats", ["game_id"])
    op.create_table(
        "subscriptions",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("player_id", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("secret", sa.String(), nullable=False),
        sa.Column("game_id", sa.String(), nullable=True),
        sa.Column("seat", sa.String(), nullable=True),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("paused_at", sa.String(), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
    )
    op.create_index("ix_subscriptions_player_id", "subscriptions", ["player_id"])
    op.create_table(
        "outbox",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("subscription_id", sa.String(), nullable=False),
        sa.Column("game_id", sa.String(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("next_attempt", sa.BigInteger(), nullable=False, server_default="0"),
        sa.Column("lease_until", sa.BigInteger(), nullable=True),
        sa.Column("delivered_at", sa.String(), nullable=True),
        sa.Column("dead_at", sa.String(), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
    )
    op.create_index("ix_outbox_pending", "outbox", ["next_attempt"], sqlite_where=PENDING, postgresql_where=PENDING)


def downgrade() -> None:
    op.drop_table("outbox")
    op.drop_table("subscriptions")
    op.drop_table("player_seats")
    op.drop_table("player_keys")
    op.drop_table("players")
