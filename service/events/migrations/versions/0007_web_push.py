"""Web Push: the server's VAPID key pair, and the browser keys of a webpush subscription (issue 40)

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "vapid_keys",
        sa.Column("key_id", sa.String(), primary_key=True),
        sa.Column("private_key", sa.Text(), nullable=False),
        sa.Column("public_key", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
    )
    with op.batch_alter_table("subscriptions") as batch:
        batch.add_column(sa.Column("push_keys", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("subscriptions") as batch:
        batch.drop_column("push_keys")
    op.drop_table("vapid_keys")
