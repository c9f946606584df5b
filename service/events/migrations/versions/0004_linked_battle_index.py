"""a partial index on the campaign's link events, read when the service looks for unsettled linked battles

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

# only these rows are indexed: the scan for linked battles still to settle reads them (no game head)
WHERE = sa.text("type IN ('ftcampaign.battle_linked', 'ftcampaign.battle_recorded')")


def upgrade() -> None:
    op.create_index("ix_events_battle_links", "events", ["type", "game_id"], sqlite_where=WHERE, postgresql_where=WHERE)


def downgrade() -> None:
    op.drop_index("ix_events_battle_links", table_name="events")
