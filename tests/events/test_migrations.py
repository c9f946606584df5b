"""The migrations build exactly the schema the tables declare, on both backends (alembic's autogenerate
comparison finds nothing to add, drop or change), including the partial index for bot seats (0003)."""

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect

from service.events.schema import migrate
from service.events.signing import KEYS_TABLE
from service.events.tables import METADATA


def test_migrations_match_the_declared_tables(database_url):
    engine = create_engine(database_url)
    try:
        migrate(engine)
        with engine.connect() as connection:
            diff = compare_metadata(MigrationContext.configure(connection), [METADATA, KEYS_TABLE.metadata])
            indexes = {ix["name"] for ix in inspect(connection).get_indexes("events")}
        assert diff == []
        assert "ix_events_bot_seats" in indexes
    finally:
        engine.dispose()
