"""Alembic environment. At start-up it runs on the connection handed over by
service.events.schema.migrate (already under the migration lock); from the command line (``alembic check``,
``alembic upgrade head`` with the repository's alembic.ini) it connects to DATABASE_URL itself and takes
the same lock, so a manual upgrade never races a starting service."""

from alembic import context
from sqlalchemy import Connection

from service.events.schema import lock_for_migration
from service.events.tables import METADATA


def run(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=METADATA, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


connection = context.config.attributes.get("connection")
if connection is not None:
    run(connection)
else:
    import os

    from service.events.store import make_engine

    # the service's own variables (service/settings.py), read here so the events layer needs no settings
    url = (
        context.config.get_main_option("sqlalchemy.url")
        or os.environ.get("DATABASE_URL")
        or os.environ.get("SALVO_DATABASE_URL")
        or "sqlite:///var/salvo.db"
    )
    engine = make_engine(url)
    try:
        with engine.begin() as own:
            lock_for_migration(own)
            run(own)
    finally:
        engine.dispose()
