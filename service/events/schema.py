"""Creates or upgrades the schema with Alembic (the migrations live beside this file).

Every process runs ``migrate`` at start-up, and compose starts several at once: on PostgreSQL the upgrade
runs under a transaction-level advisory lock, so the first process migrates while the others wait, then
find the schema at head and do nothing (without it two of them both create ``alembic_version`` and one
dies with a unique violation). On SQLite the upgrade's transaction begins IMMEDIATE, taking the file's
write lock before its first statement (the others wait on ``busy_timeout``): Python's sqlite3 never opens
a transaction before DDL by itself, so without it each CREATE TABLE commits alone and a second process
runs into "table games already exists".
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Engine, text

MIGRATIONS = Path(__file__).with_name("migrations")
# pg_advisory_xact_lock's key: one bigint for "Salvo's schema" in the whole database ("salvo-mi" in ASCII)
MIGRATION_LOCK_KEY = int.from_bytes(b"salvo-mi", "big") & 0x7FFF_FFFF_FFFF_FFFF


def alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def lock_for_migration(connection: Connection) -> None:
    """Waits for, then holds until the transaction ends, the database-wide migration lock."""
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK_KEY})
    elif connection.dialect.name == "sqlite":
        connection.exec_driver_sql("BEGIN IMMEDIATE")  # the write lock now, for the whole upgrade


def migrate(engine: Engine, revision: str = "head") -> None:
    config = alembic_config()
    with engine.begin() as connection:  # one transaction: the lock is released by its commit
        lock_for_migration(connection)
        config.attributes["connection"] = connection
        command.upgrade(config, revision)
