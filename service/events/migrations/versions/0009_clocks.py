"""clocks: chess-style time banks per seat beside the log, fired like deadlines (issue 39)

Revision ID: 0009
Revises: 0008
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"

down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "clocks",
        sa.Column("game_id", sa.String(), primary_key=True),
        sa.Column("seconds", sa.Integer(), nullable=False),
        sa.Column("increment", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("command", sa.Text(), nullable=False),
        sa.Column("banks", sa.Text(), nullable=False),
        sa.Column("running", sa.Text(), nullable=False),
        sa.Column("since", sa.BigInteger(), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=True),
        sa.Column("phase", sa.String(), nullable=True),
        sa.Column("due_at", sa.BigInteger(), nullable=True),
        sa.Column("checked_seq", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("lease_until", sa.BigInteger(), nullable=True),
        sa.Column("fired", sa.Integer(), nullable=False, server_default="0"),
    )
    op.create_index("ix_clocks_due", "clocks", ["due_at"])


def downgrade() -> None:
    op.drop_index("ix_clocks_due", table_name="clocks")
    op.drop_table("clocks")
