"""a partial index on the rare service events read at start-up (bot.seated / bot.unseated)

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

# only these rows are indexed: the start-up scan for seated bots reads them, every other write pays nothing
WHERE = sa.text("type IN ('bot.seated', 'bot.unseated')")


def upgrade() -> None:
    op.create_index("ix_events_bot_seats", "events", ["type", "game_id"], sqlite_where=WHERE, postgresql_where=WHERE)


def downgrade() -> None:
    op.drop_index("ix_events_bot_seats", table_name="events")
