"""Shared fixtures: the tiny test ruleset, database URLs for both backends, an app per test."""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, text

from service.domain.core import register_ruleset, unregister_ruleset
from service.events.schema import migrate
from tests.support import tiny

PG_DEFAULT = "postgresql://postgres@127.0.0.1:5432/test"


@pytest.fixture(autouse=True, scope="session")
def tiny_ruleset() -> Iterator[None]:
    register_ruleset("tiny", tiny.RULESET)
    yield
    unregister_ruleset("tiny")


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory) -> Path:
    """One SQLite file migrated to head for the session: each test copies it (a fresh file per test runs
    every Alembic migration, ~0.1 s; the copy is already at head, ~7 ms). The store still runs
    ``migrate`` on it, which finds nothing to do."""
    path = tmp_path_factory.mktemp("template") / "salvo.db"
    engine = create_engine(f"sqlite:///{path}")
    try:
        migrate(engine)
    finally:
        engine.dispose()
    return path


@pytest.fixture
def sqlite_url(tmp_path, sqlite_template) -> str:
    shutil.copyfile(sqlite_template, tmp_path / "salvo.db")
    return f"sqlite:///{tmp_path}/salvo.db"


def _postgres_base() -> str | None:
    url = os.environ.get("SALVO_TEST_DATABASE_URL", PG_DEFAULT)
    try:
        engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
        with engine.connect() as conn:
            conn.execute(text("select 1"))
        engine.dispose()
        return url
    except Exception as exc:  # noqa: BLE001
        if os.environ.get("SALVO_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"PostgreSQL is required here (SALVO_REQUIRE_POSTGRES=1) but not reachable at {url}: {exc}")
        return None


@pytest.fixture(scope="session")
def postgres_base() -> Iterator[str]:
    url = _postgres_base()
    if url is None:
        pytest.skip(
            "PostgreSQL not reachable at SALVO_TEST_DATABASE_URL (default 127.0.0.1:5432/test): "
            "PostgreSQL store tests skipped. CI sets SALVO_REQUIRE_POSTGRES=1 and never skips."
        )
    yield url


@pytest.fixture
def postgres_url(postgres_base: str) -> Iterator[str]:
    """A fresh schema per test, dropped afterwards, so runs never see each other's rows."""
    schema = "t_" + uuid.uuid4().hex[:12]
    admin = create_engine(postgres_base.replace("postgresql://", "postgresql+psycopg://", 1))
    with admin.begin() as conn:
        conn.execute(text(f"create schema {schema}"))
    sep = "&" if "?" in postgres_base else "?"
    yield f"{postgres_base}{sep}options=-csearch_path%3D{schema}"
    with admin.begin() as conn:
        conn.execute(text(f"drop schema {schema} cascade"))
    admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request) -> str:
    if request.param == "sqlite":
        return request.getfixturevalue("sqlite_url")
    return request.getfixturevalue("postgres_url")


@pytest.fixture
async def api(sqlite_url) -> AsyncIterator[httpx.AsyncClient]:
    """An in-process app (lifespan run) behind an httpx client."""
    from service.api.app import create_app
    from service.settings import Settings

    app = create_app(Settings(database_url=sqlite_url, snapshot_every=50, max_body_bytes=16 * 1024))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://salvo") as client:
            client.app = app  # type: ignore[attr-defined]
            yield client
