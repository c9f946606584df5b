"""Two API replicas on one database, fanned out through Redis: a command on A reaches a socket on B."""

from __future__ import annotations

import json
import os

import pytest
import redis
from starlette.testclient import TestClient

from service.api.app import create_app
from service.settings import Settings
from tests.support.direct import direct_client

REDIS_URL = os.environ.get("SALVO_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


@pytest.fixture
def redis_url():
    try:
        redis.Redis.from_url(REDIS_URL).ping()
    except redis.RedisError as exc:
        if os.environ.get("SALVO_REQUIRE_REDIS") == "1":
            pytest.fail(f"Redis is required here but not reachable at {REDIS_URL}: {exc}")
        pytest.skip(f"Redis not reachable at {REDIS_URL} (SALVO_TEST_REDIS_URL): replica fan-out test skipped")
    return REDIS_URL


def test_command_on_one_replica_streams_from_the_other(sqlite_url, redis_url):
    settings = Settings(database_url=sqlite_url, redis_url=redis_url, heartbeat_seconds=5)
    with TestClient(create_app(settings)) as a, TestClient(create_app(settings)) as b:
        game = a.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
        with b.websocket_connect(f"/v1/games/{game['game_id']}/stream") as ws:
            while ws.receive_json()["kind"] != "caught_up":
                pass
            for _ in range(3):
                r = a.post(
                    f"/v1/games/{game['game_id']}/commands",
                    json={"command": {"type": "tiny.shoot", "shooter": "red", "target": "blue"}},
                    headers={"Authorization": f"Bearer {game['seats']['red']}"},
                )
                assert r.status_code == 201
            seen = []
            while len(seen) < 3:
                msg = ws.receive_json()
                if msg["kind"] == "event":
                    seen.append(msg["event"]["seq"])
            assert seen == [3, 4, 5]


def test_a_replica_without_a_broadcaster_reads_the_stored_head_first(sqlite_url):
    """No Redis between them: B's cached head is behind after A appends, so B checks the stored seq."""
    settings = Settings(database_url=sqlite_url)
    with TestClient(create_app(settings)) as a, TestClient(create_app(settings)) as b:
        game = a.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
        gid = game["game_id"]
        assert b.get(f"/v1/games/{gid}").json()["version"] == 2  # B caches the head at 2
        for i in range(5):
            who, other = ("red", "blue") if i % 2 == 0 else ("blue", "red")
            r = a.post(
                f"/v1/games/{gid}/commands",
                json={"command": {"type": "tiny.shoot", "shooter": who, "target": other}},
                headers={"Authorization": f"Bearer {game['seats'][who]}"},
            )
            assert r.status_code == 201
        assert b.get(f"/v1/games/{gid}").json()["version"] == a.get(f"/v1/games/{gid}").json()["version"] == 7
        assert b.get(f"/v1/games/{gid}").json()["state"] == a.get(f"/v1/games/{gid}").json()["state"]
        assert len(b.get(f"/v1/games/{gid}/events").json()["events"]) == 7
        assert (
            b.get(f"/v1/games/{gid}/options", headers={"Authorization": f"Bearer {game['seats']['red']}"}).json()[
                "version"
            ]
            == 7
        )


def test_a_socket_only_replica_writes_the_frames_redis_carries_without_reading_the_store(sqlite_url, redis_url):
    """A serves the commands, B only sockets (the pre-framed path, tests/support/direct.py): B's
    spectator frames come through Redis already encoded and redacted; B never reads an event from the
    store once its sockets are live, and each audience gets only what it may see."""
    settings = Settings(database_url=sqlite_url, redis_url=redis_url, heartbeat_seconds=5)
    with TestClient(create_app(settings)) as a, direct_client(create_app(settings)) as b:
        game = a.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
        gid, red = game["game_id"], {"Authorization": f"Bearer {game['seats']['red']}"}
        with b.websocket_connect(f"/v1/games/{gid}/stream") as spectator:
            while spectator.receive_json()["kind"] != "caught_up":
                pass
            reads = []
            original = b.app.state.reader.events

            async def counted(*args, **kwargs):
                reads.append(args)
                return await original(*args, **kwargs)

            b.app.state.reader.events = counted
            assert (
                a.post(
                    f"/v1/games/{gid}/commands",
                    headers=red,
                    json={"command": {"type": "tiny.hide", "seat": "red", "secret": 734_211}},
                ).status_code
                == 201
            )
            for _ in range(3):
                assert (
                    a.post(
                        f"/v1/games/{gid}/commands",
                        headers=red,
                        json={"command": {"type": "tiny.shoot", "shooter": "red", "target": "blue"}},
                    ).status_code
                    == 201
                )
            seen = []
            while len(seen) < 4:
                msg = spectator.receive_json()
                if msg["kind"] == "event":
                    seen.append(msg["event"])
            assert [e["seq"] for e in seen] == [3, 4, 5, 6]
            assert "734211" not in json.dumps(seen)  # the spectator's own redacted frame, not the umpire's
            assert reads == []  # written from the frames Redis carried
            assert b.app.state.broadcaster.fanout.frames_built == 4
