"""docker/compose.yaml's topology run for real (scripts/topology.sh; issue 32): the page and its websocket
through nginx on a port that is not 80, the client's address stated by the proxy alone, /metrics kept off
the front, upstream connections kept alive, and a spectator that survives the loss of its socket process
with no gap. The last test kills a process: it stays last in this module."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from tests.topology.conftest import REDIS_URL, SCRIPT, Topology, free_port

pytestmark = pytest.mark.slow


def recv(ws) -> dict:
    return json.loads(ws.recv(timeout=30))


def until_caught_up(ws) -> tuple[list[int], int]:
    """The seqs of the events before ``caught_up``, and its seq."""
    seqs: list[int] = []
    while (msg := recv(ws))["kind"] != "caught_up":
        seqs += [msg["event"]["seq"]] if msg["kind"] == "event" else [e["seq"] for e in msg.get("events", [])]
    return seqs, int(msg["seq"])


def events_until(ws, upto: int) -> list[int]:
    seqs: list[int] = []
    while not seqs or seqs[-1] < upto:
        msg = recv(ws)
        if msg["kind"] == "event":
            seqs.append(msg["event"]["seq"])
    return seqs


def shoot(top: Topology, gid: str, seats: dict[str, str], turn: int) -> None:
    who, other = ("red", "blue") if turn % 2 == 0 else ("blue", "red")
    top.post(
        f"/v1/games/{gid}/commands", {"command": {"type": "tiny.shoot", "shooter": who, "target": other}}, seats[who]
    )


def spectators_on(port: int) -> float:
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    m = re.search(r'^salvo_sockets\{audience="spectator"\} (\S+)$', text, re.M)
    return float(m.group(1)) if m else 0.0


def test_the_page_and_its_websocket_through_the_front_on_a_port_that_is_not_80(topology):
    """The page's own origin (http://127.0.0.1:P) opens its streams, spectator's and seat's (nginx passed
    Host with its port; before, 403); a foreign origin is still refused."""
    page = urllib.request.urlopen(topology.url("/"), timeout=10)
    assert page.status == 200 and "text/html" in page.headers["content-type"]
    game = topology.post("/v1/games", {"ruleset": "tiny", "scenario": "long"})
    gid, seats = game["game_id"], game["seats"]
    stream = f"ws://127.0.0.1:{topology.front}/v1/games/{gid}/stream"
    own = f"http://127.0.0.1:{topology.front}"
    with (
        connect(stream, origin=own, open_timeout=30) as spectator,
        connect(
            stream, origin=own, open_timeout=30, additional_headers={"Authorization": f"Bearer {seats['red']}"}
        ) as seat,
    ):
        assert until_caught_up(spectator)[1] == 2 and until_caught_up(seat)[1] == 2
    for foreign in ("http://127.0.0.1:8000", f"http://evil.example:{topology.front}"):
        with pytest.raises(InvalidStatus) as refused:
            connect(stream, origin=foreign, open_timeout=30)
        assert refused.value.response.status_code == 403


@pytest.fixture(scope="module")
def browser():
    from tests.web.support import ARGS, CHROMIUM, _need_browser

    sync_playwright = _need_browser()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield b
        finally:
            b.close()


def test_a_browser_plays_through_the_front_while_a_spectator_page_follows(topology, browser):
    """The real page through nginx on a port that is not 80: a seat's page and a spectator's page both go
    live (their websockets, each to its pool, accepted for the page's own origin), the seat's page posts
    commands, and the spectator's page receives every event in order."""
    from tests.web.support import Console, page_url

    game = topology.post("/v1/games", {"ruleset": "tiny", "scenario": "long"})
    gid, red = game["game_id"], game["seats"]["red"]
    base = f"http://127.0.0.1:{topology.front}"
    console = Console()
    ctx = browser.new_context()
    try:
        seat = console.watch(ctx.new_page(), "seat")
        seat.goto(page_url(base, gid, red))
        spectator = console.watch(ctx.new_page(), "spectator")
        spectator.goto(page_url(base, gid))
        for page in (seat, spectator):
            page.set_default_timeout(45_000)  # three service processes, nginx and Chromium on a loaded machine
            page.wait_for_selector("#conn[data-state=live]")
        post = """async ([gid, token, shooter, target]) => (await fetch(`/v1/games/${gid}/commands`, {
            method: "POST", headers: {"Authorization": `Bearer ${token}`, "Content-Type": "application/json"},
            body: JSON.stringify({command: {type: "tiny.shoot", shooter, target}})})).status"""
        for turn in range(4):
            who, other = ("red", "blue") if turn % 2 == 0 else ("blue", "red")
            token = red if who == "red" else game["seats"]["blue"]
            assert seat.evaluate(post, [gid, token, who, other]) == 201
        # the events themselves (the version may move on a frame before the page has appended the event)
        spectator.wait_for_function("() => salvo.events.some((e) => e.seq === 6)")
        seqs = spectator.evaluate("() => salvo.events.map((e) => e.seq)")
        assert [s for s in seqs if s > 2] == [3, 4, 5, 6]
        refused = [e for e in console.errors if "403" in e or "WebSocket" in e]
        assert refused == []
    finally:
        ctx.close()


def _post_from(source: str, port: int, path: str, headers: dict[str, str], body: bytes = b"{}") -> int:
    """A POST from a given loopback address (the whole 127/8 is this machine's)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
    try:
        conn.request("POST", path, body=body, headers={"Content-Type": "application/json", **headers})
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def test_a_forged_x_forwarded_for_never_changes_which_address_a_limit_counts(topology):
    """Failed authentications are limited per client address (30/minute). A client at 127.0.0.2 rotating
    forged X-Forwarded-For / X-Real-IP addresses through the front is still one address: it reaches the
    limit; the victim it named (127.0.0.3) is not locked out. Straight to a service process (not the
    proxy's address), a forged header is ignored as well."""
    game = topology.post("/v1/games", {"ruleset": "tiny", "scenario": "long"})
    path = f"/v1/games/{game['game_id']}/commands"
    command = json.dumps({"command": {"type": "tiny.shoot", "shooter": "red", "target": "blue"}}).encode()
    statuses = [
        _post_from(
            "127.0.0.2",
            topology.front,
            path,
            {
                "Authorization": f"Bearer forged-{i}",
                "X-Forwarded-For": f"10.9.{i}.1, 127.0.0.3",
                "X-Real-IP": "127.0.0.3",
            },
        )
        for i in range(40)
    ]
    assert statuses[:30] == [401] * 30
    assert set(statuses[30:]) == {429}
    # the victim named in every forged header still authenticates and plays
    assert _post_from("127.0.0.3", topology.front, path, {"Authorization": "Bearer wrong"}) == 401
    assert (
        _post_from("127.0.0.3", topology.front, path, {"Authorization": f"Bearer {game['seats']['red']}"}, command)
        == 201
    )
    # straight to the command process from an address that is not the proxy's: its header counts for nothing
    direct = [
        _post_from(
            "127.0.0.4",
            topology.ports["commands"],
            path,
            {"Authorization": f"Bearer forged-{i}", "X-Forwarded-For": f"10.8.{i}.1"},
        )
        for i in range(32)
    ]
    assert direct[:30] == [401] * 30 and set(direct[30:]) == {429}


def test_metrics_are_not_served_through_the_front(topology):
    with pytest.raises(urllib.error.HTTPError) as hidden:
        urllib.request.urlopen(topology.url("/metrics"), timeout=10)
    assert hidden.value.code == 404
    for name in ("commands", "sockets1", "sockets2"):  # each process on its own address, for Prometheus
        own = urllib.request.urlopen(f"http://127.0.0.1:{topology.ports[name]}/metrics", timeout=10)
        assert own.status == 200 and b"salvo_http_requests" in own.read()


def _closed_upstream_connections(port: int) -> int:
    """Connections to ``port`` the other side has closed and that linger in TIME_WAIT (/proc/net/tcp)."""
    count = 0
    with open("/proc/net/tcp") as fh:
        next(fh)
        for line in fh:
            f = line.split()
            if f[3] == "06" and int(f[2].rsplit(":", 1)[1], 16) == port:
                count += 1
    return count


def test_the_front_keeps_its_upstream_connections_alive(topology):
    """40 requests through nginx: without upstream keepalive each one is a new TCP connection to the
    command process, closed after it (one TIME_WAIT each); with it a few connections carry them all."""
    before = _closed_upstream_connections(topology.ports["commands"])
    for _ in range(40):
        assert urllib.request.urlopen(topology.url("/healthz"), timeout=10).status == 200
    assert _closed_upstream_connections(topology.ports["commands"]) - before < 5


def test_start_fails_and_leaves_nothing_running_when_a_process_cannot_start(tmp_path):
    """Exit 0 only when every process answers: with an unreachable database the processes die at
    start-up, and the script exits 1 having stopped everything it started."""
    work = tmp_path / "failing"
    env = {**os.environ, "PYTHON": sys.executable, "TOPOLOGY_START_TIMEOUT": "60"}
    started = subprocess.run(
        [
            "bash",
            str(SCRIPT),
            "start",
            "--port",
            str(free_port()),
            "--database-url",
            "postgresql://nobody@127.0.0.1:9/none",
            "--redis-url",
            REDIS_URL,
            "--dir",
            str(work),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=170,
    )
    assert started.returncode == 1
    assert "exited" in started.stderr
    assert not (work / "pids").exists()


def test_commands_over_http_while_a_spectator_follows_and_a_killed_socket_process_hands_it_over(topology):
    """Commands over HTTP through the front while a spectator follows on a socket process; that process
    is killed (SIGKILL: no 1012 close, no resume seq given); the spectator reconnects through the front
    with after=<the last seq it saw>, lands on the other socket process and gets every event after it
    once, in order: no gap, no repeat."""
    game = topology.post("/v1/games", {"ruleset": "tiny", "scenario": "long"})
    gid, seats = game["game_id"], game["seats"]
    stream = f"ws://127.0.0.1:{topology.front}/v1/games/{gid}/stream"
    socket_ports = {topology.ports[n]: n for n in ("sockets1", "sockets2")}
    with connect(stream, open_timeout=30) as ws:
        assert until_caught_up(ws)[1] == 2
        for turn in range(4):
            shoot(topology, gid, seats, turn)
        seen = events_until(ws, 6)
        assert seen == [3, 4, 5, 6]
        holder = next(port for port in socket_ports if spectators_on(port) == 1)
        os.kill(topology.pids[socket_ports[holder]], signal.SIGKILL)
        with pytest.raises(ConnectionClosed):
            while True:
                recv(ws)
    for turn in range(4, 6):  # played while the spectator is away
        shoot(topology, gid, seats, turn)
    with connect(f"{stream}?after={seen[-1]}", open_timeout=30) as ws:
        caught, head = until_caught_up(ws)
        assert caught == [7, 8] and head == 8
        other = next(port for port in socket_ports if port != holder)
        assert spectators_on(other) == 1
        for turn in range(6, 8):
            shoot(topology, gid, seats, turn)
        assert events_until(ws, 10) == [9, 10]
    deadline = time.monotonic() + 30
    while spectators_on(other) != 0 and time.monotonic() < deadline:  # the survivor lets it go
        time.sleep(0.1)
