"""deadlines: a durable timer per game beside the log (issue 39)

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "deadlines",
        sa.Column("game_id", sa.String(), primary_key=True),
        sa.Column("per", sa.String(), nullable=False),
        sa.Column("seconds", sa.Integer(), nullable=False),
        sa.Column("command", sa.Text(), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=True),
        sa.Column("phase", sa.String(), nullable=True),
        sa.Column("due_at", sa.BigInteger(), nullable=True),
        sa.Column("checked_seq", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("lease_until", sa.BigInteger(), nullable=True),
        sa.Column("fired", sa.Integer(), nullable=False, server_default="0"),
    )
    op.create_index("ix_deadlines_due", "deadlines", ["due_at"])


def downgrade() -> None:
    op.drop_index("ix_deadlines_due", table_name="deadlines")
    op.drop_table("deadlines")
