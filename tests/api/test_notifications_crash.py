"""kill -9 between the commit and the delivery (issue 40): the notification, written in the transaction
of the move that causes it, is delivered after the restart, and a receiver honouring its idempotency key
acts on it once."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, select

from service.events.tables import OUTBOX
from tests.support.server import ServerProcess, free_port
from tests.support.webhook_receiver import Receiver

pytestmark = pytest.mark.slow

ENV = {"SALVO_WEBHOOK_ALLOW": "127.0.0.1", "SALVO_WEBHOOK_TIMEOUT": "1", "SALVO_NOTIFY_POLL_SECONDS": "0.05"}


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _setup(client: httpx.Client, url: str) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    game = client.post("/v1/games", json={"ruleset": "tiny", "scenario": "duel"}).json()
    player = client.post("/v1/players", json={}).json()
    assert (
        client.post(
            "/v1/players/me/seats", json={"token": game["seats"]["red"]}, headers=_bearer(player["key"])
        ).status_code
        == 201
    )
    sub = client.post("/v1/players/me/subscriptions", json={"url": url}, headers=_bearer(player["key"])).json()
    return game, player, sub


def _move(client: httpx.Client, game: dict[str, Any], token: str, seat: str) -> None:
    r = client.post(
        f"/v1/games/{game['game_id']}/commands",
        headers=_bearer(token),
        json={"command": {"type": "tiny.end_phase", "seat": seat}},
    )
    assert r.status_code == 201, r.text


def _outbox(sqlite_url: str) -> list[Any]:
    engine = create_engine(sqlite_url)
    try:
        with engine.connect() as conn:
            return list(conn.execute(select(OUTBOX)))
    finally:
        engine.dispose()


def test_killed_while_delivering_is_delivered_after_restart_once_per_key(sqlite_url):
    with Receiver() as receiver, ServerProcess(sqlite_url, env=ENV) as server:
        receiver.hold.set()  # the receiver takes the request and holds its answer: the server dies waiting
        with httpx.Client(base_url=server.url, timeout=10) as client:
            game, player, sub = _setup(client, receiver.url)
            _move(client, game, player["key"], "red")
            _move(client, game, game["seats"]["blue"], "blue")  # B's move: A's turn, committed with its notice
        [first] = receiver.wait_for(1)
        server.kill()  # kill -9 between the receiver's answer and the record of the delivery
        receiver.hold.clear()
        receiver.release.set()
        [row] = _outbox(sqlite_url)
        assert row.delivered_at is None and row.id == first.headers["idempotency-key"]
        server.start()
        got = receiver.wait_for(2, within=20)  # after the dead worker's lease ends
        deadline = time.monotonic() + 20
        while _outbox(sqlite_url)[0].delivered_at is None:
            assert time.monotonic() < deadline, "the redelivery was not recorded"
            time.sleep(0.05)
    keys = [r.headers["idempotency-key"] for r in receiver.requests()]
    assert set(keys) == {row.id} and len(got) >= 2  # delivered again, under the same key: acted on once
    assert all(r.signed_by(sub["secret"]) for r in receiver.requests())
    assert all(r.json["type"] == "your_turn" and r.json["seat"] == "red" for r in receiver.requests())


def test_killed_before_any_delivery_is_delivered_after_restart(sqlite_url):
    port = free_port()
    url = f"http://127.0.0.1:{port}/hook"  # nothing listens there yet: the first attempts fail
    with ServerProcess(sqlite_url, env=ENV) as server:
        with httpx.Client(base_url=server.url, timeout=10) as client:
            game, player, sub = _setup(client, url)
            _move(client, game, player["key"], "red")
            _move(client, game, game["seats"]["blue"], "blue")
        [row] = _outbox(sqlite_url)  # committed with the move, before any delivery
        assert row.delivered_at is None
        server.kill()
        with Receiver(port=port) as receiver:
            server.start()
            [got] = receiver.wait_for(1, within=20)
            deadline = time.monotonic() + 20
            while _outbox(sqlite_url)[0].delivered_at is None:
                assert time.monotonic() < deadline, "the delivery was not recorded"
                time.sleep(0.05)
    assert got.headers["idempotency-key"] == row.id and got.signed_by(sub["secret"])
    assert [r.headers["idempotency-key"] for r in receiver.requests()] == [row.id]
