"""Alembic environment: runs on the connection handed over by service.events.schema.migrate."""

from alembic import context

from service.events.tables import METADATA

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=METADATA, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
