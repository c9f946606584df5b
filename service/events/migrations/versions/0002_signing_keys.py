"""signing keys: the server's Ed25519 keys for battle files (active and retired)

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "signing_keys",
        sa.Column("key_id", sa.String(), primary_key=True),
        sa.Column("private_key", sa.Text(), nullable=False),
        sa.Column("public_key", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.Column("retired_at", sa.String(), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("signing_keys")
