"""Issue 33: the storage's failures are told apart from bugs (service/events/storage_faults.py), answered
503 (unreachable, with Retry-After) or 507 (full) as problem+json on every path, logged once per kind per
interval, and a store whose last write failed is not ready until a write goes through again. (The same on
a real server with a real PostgreSQL stopped and a real disk full: test_faults_storage.py.)"""

from __future__ import annotations

import logging
import sqlite3

import psycopg
import pytest
from sqlalchemy.exc import OperationalError as SAOperationalError
from starlette.testclient import TestClient

from service.api.app import create_app
from service.events import storage_faults
from service.events.event_store import PredecessorFailed, WriteBatch, predecessor_failure
from service.events.storage_faults import StorageFaults, StorageFull, StorageUnavailable, as_storage_error, kind_of
from service.settings import Settings

SHOOT = {"type": "tiny.shoot", "shooter": "red", "target": "blue"}


class _DiskFull(psycopg.OperationalError):
    sqlstate = "53100"


def _wrapped(orig: BaseException) -> SAOperationalError:
    return SAOperationalError("INSERT ...", {}, orig)


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (sqlite3.OperationalError("database or disk is full"), "full"),
        (_wrapped(sqlite3.OperationalError("database or disk is full")), "full"),
        (OSError(28, "No space left on device"), "full"),
        (_DiskFull("could not extend file"), "full"),
        (psycopg.OperationalError("connection failed: Connection refused"), "unavailable"),
        (_wrapped(psycopg.OperationalError("server closed the connection unexpectedly")), "unavailable"),
        (sqlite3.OperationalError("database is locked"), "unavailable"),
        (sqlite3.OperationalError("no such table: events"), None),  # a bug, not the storage: stays a 500
        (sqlite3.IntegrityError("UNIQUE constraint failed"), None),
        (ValueError("a bug"), None),
    ],
)
def test_storage_failures_are_told_apart_from_bugs(exc, kind):
    assert kind_of(exc) == kind
    converted = as_storage_error(exc)
    expected = {"full": StorageFull, "unavailable": StorageUnavailable, None: type(exc)}[kind]
    assert type(converted) is expected


def test_one_log_line_per_kind_per_interval(caplog):
    faults = StorageFaults(interval=3600)
    with caplog.at_level(logging.ERROR, logger="salvo.storage"):
        for _ in range(500):
            faults.seen("unavailable", psycopg.OperationalError("connection refused"), writing=False)
        for _ in range(500):
            faults.seen("full", sqlite3.OperationalError("database or disk is full"), writing=True)
    lines = [r.getMessage() for r in caplog.records if r.name == "salvo.storage"]
    assert len(lines) == 2, lines
    assert lines[0].startswith("storage unavailable") and lines[1].startswith("storage full")
    assert all(r.exc_info is None for r in caplog.records)  # a line, not a traceback
    assert faults.counts == {"unavailable": 500, "full": 500}
    assert faults.write_failure is not None and faults.write_failure.kind == "full"


def test_a_command_decided_on_a_batch_the_storage_failed_gets_the_same_answer():
    before, after = WriteBatch("g"), WriteBatch("g")
    after.follows = before
    before.failed = StorageUnavailable()
    assert isinstance(predecessor_failure(after), StorageUnavailable)
    before.failed = StorageFull()
    assert isinstance(predecessor_failure(after), StorageFull)
    before.failed = ValueError("a bug")
    assert isinstance(predecessor_failure(after), PredecessorFailed)


@pytest.fixture
def client(sqlite_url):
    storage_faults.FAULTS.write_failure = None
    with TestClient(create_app(Settings(database_url=sqlite_url))) as c:
        yield c
    storage_faults.FAULTS.write_failure = None


def _failing(exc: BaseException):
    async def fail(*_args, **_kwargs):
        raise as_storage_error(exc, writing=True)

    return fail


@pytest.mark.parametrize(
    ("exc", "status", "type_"),
    [
        (psycopg.OperationalError("connection failed: Connection refused"), 503, "/problems/StorageUnavailable"),
        (sqlite3.OperationalError("database or disk is full"), 507, "/problems/StorageFull"),
    ],
)
def test_every_path_answers_the_storage_problem(client, exc, status, type_):
    game = client.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
    gid, red = game["game_id"], {"Authorization": f"Bearer {game['seats']['red']}"}
    store = client.app.state.store
    store.read_events = _failing(exc)
    store.head = _failing(exc)
    client.app.state.service.heads.forget(gid)
    store.snapshot = _failing(exc)
    store.game = _failing(exc)
    store.submit = None  # (the pipeline falls back to ``write``)
    store.write = _failing(exc)
    for r in (
        client.get(f"/v1/games/{gid}/events"),
        client.get(f"/v1/games/{gid}"),
        client.post(f"/v1/games/{gid}/commands", json={"command": SHOOT}, headers=red),
    ):
        assert r.status_code == status, r.text
        assert r.headers["content-type"] == "application/problem+json"
        assert r.json()["type"] == type_ and int(r.headers["retry-after"]) >= 1


def test_readiness_probes_a_store_whose_last_write_failed(client):
    assert client.get("/readyz").json() == {"ok": True, "database": "ok"}
    storage_faults.FAULTS.seen("full", sqlite3.OperationalError("database or disk is full"), writing=True)
    # the disk has room again (this one always had): the probe write goes through, and the mark is cleared
    assert client.get("/readyz").status_code == 200
    assert storage_faults.FAULTS.write_failure is None


@pytest.mark.asyncio
async def test_readiness_holds_postgresql_not_ready_after_a_failed_write(monkeypatch):
    from service.api import readiness

    class Store:
        url = "postgresql+psycopg://x@127.0.0.1/db"

        async def ping(self) -> None:
            return None

    class App:
        class state:  # noqa: N801 - as app.state
            store = Store()
            broadcaster = None

    monkeypatch.setattr(storage_faults.FAULTS, "write_failure", None)
    assert (await readiness.readiness(App())).status_code == 200
    storage_faults.FAULTS.seen("full", _DiskFull("could not extend file"), writing=True)
    r = await readiness.readiness(App())
    assert r.status_code == 503 and b"cannot write" in r.body
    storage_faults.FAULTS.wrote()
    assert (await readiness.readiness(App())).status_code == 200


def test_an_unconverted_driver_error_is_still_the_storage_problem(sqlite_url):
    """Met outside the store (no conversion there): the app's last handler maps it the same, no traceback."""
    app = create_app(Settings(database_url=sqlite_url))
    with TestClient(app, raise_server_exceptions=False) as c:

        async def broken(*_a, **_k):
            raise SAOperationalError("select", {}, psycopg.OperationalError("connection refused"))

        game = c.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
        app.state.service.heads.forget(game["game_id"])
        app.state.store._run = broken
        r = c.get(f"/v1/games/{game['game_id']}/events")
        assert r.status_code == 503 and r.headers["retry-after"] == "1", r.text


@pytest.mark.asyncio
async def test_a_bot_waits_out_the_storage_instead_of_failing(sqlite_url):
    """A bot whose move cannot read or write (the database away) waits and tries again later: it is not
    marked failed, and no traceback is logged for it."""
    import httpx

    app = create_app(Settings(database_url=sqlite_url))
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://salvo") as client:
            game = (await client.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"})).json()
            gid = game["game_id"]
            r = await client.post(
                f"/v1/games/{gid}/bots",
                json={"seat": "blue", "bot": "random"},
                headers={"Authorization": f"Bearer {game['umpire_token']}"},
            )
            assert r.status_code == 201, r.text
            runner = app.state.bot_runner
            placed = runner.seats[gid]["blue"]
            app.state.service.heads.forget(gid)
            store = app.state.store
            failing = _failing(psycopg.OperationalError("connection failed: Connection refused"))
            store.snapshot = store.read_events = store.head = store.game = failing
            assert await runner._move(gid, placed) == "wait"
            assert placed.state == "waiting" and placed.error is None
