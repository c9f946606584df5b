"""The scaled-out topology for real (bench/topology.py): a command process and two socket processes on
one SO_REUSEPORT port, SQLite and Redis, behind nginx when it is installed. Spectators reach the socket
processes, never the command process; each gets every event once, its audience's frame (the sealed order
redacted), while the seat that sealed it sees its own secret; each socket process subscribes to the game
only while it has a spectator of it. The benchmark's generator, spread over watcher processes, times
every delivery once; layouts past the descriptor limit are named, not run."""

from __future__ import annotations

import contextlib
import json
import re
import sys
import time
import urllib.request
from pathlib import Path

import pytest
import redis
from websockets.sync.client import connect

from service.api.redis_broadcast import CHANNEL_PREFIX
from tests.api.test_replicas import redis_url  # noqa: F401 - the fixture (skips without Redis)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from bench_spectators import generate, generators_for, too_many_fds  # noqa: E402
from topology import Topology  # noqa: E402

SECRET = 734_211


def _post(port: int, path: str, body: dict, token: str | None = None) -> dict:
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})},
    )
    with urllib.request.urlopen(req, timeout=30) as r:
        assert r.status in (200, 201)
        return json.loads(r.read())


def _spectators_on(port: int) -> float:
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    m = re.search(r'^salvo_sockets\{audience="spectator"\} (\S+)$', text, re.M)
    return float(m.group(1)) if m else 0.0


def _until_caught_up(ws) -> int:
    while (msg := json.loads(ws.recv(timeout=30)))["kind"] != "caught_up":
        pass
    return int(msg["seq"])


def _events(ws, upto: int) -> list[dict]:
    seen: list[dict] = []
    while not seen or seen[-1]["seq"] < upto:
        msg = json.loads(ws.recv(timeout=30))
        if msg["kind"] == "event":
            seen.append(msg["event"])
    return seen


@pytest.fixture
def topology(tmp_path, redis_url):  # noqa: F811
    top = Topology(tmp_path / "topology", sockets=2, redis_url=redis_url)
    try:
        yield top
    finally:
        top.stop()


def test_spectators_on_socket_processes_get_every_event_redacted_for_their_audience(topology, redis_url):  # noqa: F811
    front = topology.port  # nginx, or the command process itself when there is no nginx
    spectator_port = topology.port if topology.front == "nginx" else topology.socket_port
    game = _post(front, "/v1/games", {"ruleset": "tiny", "scenario": "long"})
    gid, seats = game["game_id"], game["seats"]
    channel = CHANNEL_PREFIX + gid
    r = redis.Redis.from_url(redis_url)
    assert r.pubsub_numsub(channel)[0][1] == 0  # no socket process listens before a spectator comes
    with contextlib.ExitStack() as stack:
        spectators = [
            stack.enter_context(connect(f"ws://127.0.0.1:{spectator_port}/v1/games/{gid}/stream", open_timeout=30))
            for _ in range(8)
        ]
        seat = stack.enter_context(
            connect(
                f"ws://127.0.0.1:{front}/v1/games/{gid}/stream",
                open_timeout=30,
                additional_headers={"Authorization": f"Bearer {seats['red']}"},
            )
        )
        assert all(_until_caught_up(ws) == 2 for ws in [*spectators, seat])
        # the spectators are on the socket processes; the command process has none of them
        assert _spectators_on(topology.command.port) == 0
        for _ in range(100):
            if r.pubsub_numsub(channel)[0][1] >= 1:
                break
            time.sleep(0.05)
        assert 1 <= r.pubsub_numsub(channel)[0][1] <= 2  # one SUBSCRIBE per socket process that has one
        _post(
            front,
            f"/v1/games/{gid}/commands",
            {"command": {"type": "tiny.hide", "seat": "red", "secret": SECRET}},
            seats["red"],
        )
        for i in range(6):
            who, other = ("red", "blue") if i % 2 == 0 else ("blue", "red")
            _post(
                front,
                f"/v1/games/{gid}/commands",
                {"command": {"type": "tiny.shoot", "shooter": who, "target": other}},
                seats[who],
            )
        for ws in spectators:
            seen = _events(ws, 9)
            assert [e["seq"] for e in seen] == list(range(3, 10))  # every event once, in order
            assert str(SECRET) not in json.dumps(seen)  # the sealed order, redacted for spectators
        mine = _events(seat, 9)
        assert [e["seq"] for e in mine] == list(range(3, 10))
        assert str(SECRET) in json.dumps(mine[0])  # the seat's own audience sees its secret
    for _ in range(200):  # the last spectator gone: each socket process unsubscribes
        if r.pubsub_numsub(channel)[0][1] == 0:
            break
        time.sleep(0.05)
    assert r.pubsub_numsub(channel)[0][1] == 0


def test_the_generator_spread_over_watcher_processes_times_every_delivery_once(topology, tmp_path):
    r = generate(
        tmp_path,
        "split",
        40,
        10,
        50.0,
        topology.command.port,
        topology.command.pid,
        None,
        topology.socket_port,
        topology.pids,
        generators=2,
    )
    assert "error" not in r, r["error"]
    assert r["connected"] == 40 and r["watcherSpectators"] == [20, 20] and r["connectFailures"] == 0
    assert r["movesSent"] == 10 and r["errors"] == 0
    assert r["deliveriesExpected"] == 400 and r["deliveriesMissing"] == 0 and r["closedDuringRun"] == 0
    assert r["deliveryLatencyMs"]["n"] == 400  # each spectator's frame of each event, once
    assert r["fanoutCompleteMs"]["n"] == 10
    assert len(r["watcherCpuPct"]) == 2


def test_layouts_past_the_descriptor_limit_are_named_not_run():
    assert generators_for(19_500, 20_000) == 1 and generators_for(20_000, 20_000) == 2
    assert too_many_fds(19_500, 0, False, 20_000) is None
    assert too_many_fds(19_500, 1, False, 20_000) is None
    assert "20,000-descriptor limit" in (too_many_fds(20_000, 0, False, 20_000) or "")  # + its own descriptors
    assert too_many_fds(20_000, 1, False, 20_000) is not None
    assert too_many_fds(20_000, 2, False, 20_000) is None  # ≈ 10,000 each
    assert too_many_fds(5_000, 1, True, 20_000) is None
    assert "nginx" in (too_many_fds(19_500, 2, True, 20_000) or "")  # two sockets a spectator in its worker
