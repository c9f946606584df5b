"""A busy game over real sockets (uvicorn in a thread, Salvo's websocket protocol): several sockets with
``own_events=result`` each send commands concurrently. While a socket's command is in flight the fan-out
holds its frames (``Sink.held``) and the stream writes them around the result, so every socket ends
with every seq exactly once, in order (its own in results, the rest as frames), and nothing is read
back from the store after the join."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Iterator

import httpx
import pytest
import uvicorn
from websockets.sync.client import connect

from service.api.app import create_app
from service.domain.core import seat
from service.settings import Settings
from tests.support.fast import fast_only
from tests.support.server import uvicorn_in_thread

pytestmark = fast_only  # the fast transport's own pieces

SOCKETS = 4
COMMANDS = 15  # per socket


class Served:
    def __init__(self, server: uvicorn.Server, app, port: int) -> None:
        self.server, self.app = server, app
        self.url, self.ws_url = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"


@pytest.fixture
def served(sqlite_url) -> Iterator[Served]:
    settings = Settings(
        database_url=sqlite_url, heartbeat_seconds=5, rate_commands_per_token="off", rate_commands_per_address="off"
    )
    app = create_app(settings)
    with uvicorn_in_thread(app, settings) as (server, port):
        yield Served(server, app, port)


def test_busy_sockets_get_every_seq_once_in_order_with_no_store_read_while_commands_fly(served):
    game = httpx.post(served.url + "/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
    gid = game["game_id"]
    reader = served.app.state.reader
    reads: list[tuple[int, int | None]] = []
    events = reader.events

    async def counted(game_id, viewer, after=0, upto=None, **kw):  # every catch-up page from the store
        reads.append((after, upto))
        return await events(game_id, viewer, after=after, upto=upto, **kw)

    reader.events = counted
    seats = ["red", "blue"] * (SOCKETS // 2)
    with contextlib.ExitStack() as stack:
        sockets = [
            stack.enter_context(
                connect(
                    f"{served.ws_url}/v1/games/{gid}/stream?own_events=result",
                    additional_headers={"Authorization": f"Bearer {game['seats'][who]}"},
                )
            )
            for who in seats
        ]
        _play(served, gid, seats, sockets, reads)


def _play(served: Served, gid: str, seats: list[str], sockets: list, reads: list) -> None:
    seen: list[list[int]] = [[] for _ in sockets]

    def take(i: int, msg: dict) -> None:
        if msg["kind"] == "event":
            seen[i].append(msg["event"]["seq"])
        elif msg["kind"] == "result":
            seen[i].extend(e["seq"] for e in msg["events"])

    for i, ws in enumerate(sockets):  # the join: history from the store, then caught_up
        while (msg := json.loads(ws.recv(timeout=10)))["kind"] != "caught_up":
            take(i, msg)
    joined = len(reads)
    start = threading.Barrier(SOCKETS)
    failures: list[BaseException] = []

    def play(i: int) -> None:
        try:
            who = seats[i]
            other = "blue" if who == "red" else "red"
            start.wait(10)
            for n in range(COMMANDS):
                sockets[i].send(
                    json.dumps(
                        {
                            "kind": "command",
                            "ref": f"{i}.{n}",
                            "command": {"type": "tiny.shoot", "shooter": who, "target": other},
                        }
                    )
                )
                while True:
                    msg = json.loads(sockets[i].recv(timeout=20))
                    take(i, msg)
                    if msg["kind"] == "error":
                        raise AssertionError(msg)
                    if msg["kind"] == "result" and msg["ref"] == f"{i}.{n}":
                        break
        except BaseException as exc:  # noqa: BLE001 - reported by the test thread
            failures.append(exc)

    threads = [threading.Thread(target=play, args=(i,)) for i in range(SOCKETS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not failures, failures
    version = int(httpx.get(f"{served.url}/v1/games/{gid}").json()["version"])
    for i, ws in enumerate(sockets):  # the frames after this socket's last result
        while not seen[i] or seen[i][-1] < version:
            take(i, json.loads(ws.recv(timeout=10)))
    assert version >= SOCKETS * COMMANDS
    for i in range(SOCKETS):
        assert seen[i] == list(range(1, version + 1)), (i, seen[i])
    assert reads[joined:] == [], "a socket read the store while the game was busy"
    counters = _counters(served)
    assert counters["replies_held"] == SOCKETS * COMMANDS and counters["replies_unheld"] == 0, counters
    assert counters["fallbacks"] == counters["catch_ups"] == 0, counters
    assert counters["frames_written"] >= counters["writes"] > 0, counters


def _shoot(who: str) -> dict:
    return {"type": "tiny.shoot", "shooter": who, "target": "blue" if who == "red" else "red"}


def _counters(served: Served) -> dict[str, float]:
    """salvo_fanout_*_total from /metrics (Fanout.counters, read at scrape time), by name."""
    text = httpx.get(served.url + "/metrics").text
    return {
        line.split(" ")[0][len("salvo_fanout_") : -len("_total")]: float(line.split(" ")[1])
        for line in text.splitlines()
        if line.startswith("salvo_fanout_") and " " in line and line.split(" ")[0].endswith("_total")
    }


class _Behind:
    """One ``own_events=result`` socket (red) on a game, put behind the live seq on purpose: a blue
    command is committed unpublished (``service.publish`` off), so the next published one is a gap
    and the socket reads the store (one catch-up). ``busy``: every store read it makes meets another
    command landing while it reads (as in a busy game, where one always does)."""

    def __init__(self, served: Served, gid: str, game: dict, stack: contextlib.ExitStack) -> None:
        self.served, self.gid, self.game = served, gid, game
        self.service = served.app.state.service
        self.fanout = served.app.state.broadcaster.fanout
        reader = served.app.state.reader
        self.reads: list[tuple[int, int | None]] = []
        self.busy = False
        self.landed = 0  # blue commands landed during a read
        self.wait_for_past: int | None = None  # a read returns only once the game is past this seq
        self.waited = threading.Event()
        events = reader.events

        async def counted(game_id, viewer, after=0, upto=None, **kw):
            self.reads.append((after, upto))
            out = await events(game_id, viewer, after=after, upto=upto, **kw)
            if self.busy and self.landed < 40:  # bounded: a socket that never gets out stops reading
                self.landed += 1
                body = json.dumps({"command": _shoot("blue")}).encode()
                await self.service.handle_command(game_id, seat("blue"), body)
            if self.wait_for_past is not None and not self.waited.is_set():
                for _ in range(2000):  # at most ~10 s: the socket's own command lands meanwhile
                    if self.fanout.head(game_id) > self.wait_for_past:
                        break
                    await asyncio.sleep(0.005)
                self.waited.set()
            return out

        reader.events = counted
        self.ws = stack.enter_context(
            connect(
                f"{served.ws_url}/v1/games/{gid}/stream?own_events=result",
                additional_headers={"Authorization": f"Bearer {game['seats']['red']}"},
            )
        )
        self.seen: list[int] = []
        while (msg := json.loads(self.ws.recv(timeout=10)))["kind"] != "caught_up":
            self.take(msg)
        self.joined = len(self.reads)

    def take(self, msg: dict) -> dict:
        if msg["kind"] == "event":
            self.seen.append(msg["event"]["seq"])
        elif msg["kind"] == "result":
            self.seen.extend(e["seq"] for e in msg["events"])
        return msg

    def blue(self) -> int:
        r = httpx.post(
            f"{self.served.url}/v1/games/{self.gid}/commands",
            json={"command": _shoot("blue")},
            headers={"Authorization": f"Bearer {self.game['seats']['blue']}"},
        )
        assert r.status_code == 201, r.text
        return int(r.json()["version"])

    def gap(self) -> int:
        """A blue command nobody is told of, then one that is published: the socket is behind."""
        publish, self.service.publish = self.service.publish, None
        try:
            self.blue()
        finally:
            self.service.publish = publish
        return self.blue()

    def command(self, ref: str) -> dict:
        self.ws.send(json.dumps({"kind": "command", "ref": ref, "command": _shoot("red")}))
        while True:
            msg = self.take(json.loads(self.ws.recv(timeout=20)))
            assert msg["kind"] != "error", msg
            if msg["kind"] == "result" and msg["ref"] == ref:
                return msg

    def drain(self) -> int:
        version = int(httpx.get(f"{self.served.url}/v1/games/{self.gid}").json()["version"])
        while not self.seen or self.seen[-1] < version:
            self.take(json.loads(self.ws.recv(timeout=10)))
        return version


def test_a_socket_behind_in_a_busy_game_reads_the_store_once_then_holds_again(served):
    """The 32-client collapse: a socket that fell behind read the store up to the head as it was when
    the read began; in a busy game something always lands during the read, so it ended behind again,
    its next command flew unheld and it read again, every command, for good. Now the fan-out holds
    what lands during the read and the socket is live straight after it: one read, then every result
    goes out with its held frames, every seq once, in order."""
    game = httpx.post(served.url + "/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
    with contextlib.ExitStack() as stack:
        sock = _Behind(served, game["game_id"], game, stack)
        sock.busy = True
        sock.gap()
        for n in range(10):
            sock.command(f"r{n}")
        sock.busy = False
        version = sock.drain()
    assert sock.seen == list(range(1, version + 1))
    assert len(sock.reads) - sock.joined == 1, sock.reads[sock.joined :]  # the gap's catch-up, and no other
    assert sock.landed == 1  # the one command that landed while it read reached it held, not from the store
    counters = _counters(served)
    assert counters["catch_ups"] == 1 and counters["fallbacks"] == 1, counters  # the gap, once
    assert counters["replies_held"] == 10 and counters["replies_unheld"] == 0, counters
    assert counters["holds_overflowed"] == 0 and counters["holds_broken"] == 0, counters


def test_a_result_landing_while_its_socket_reads_the_store_follows_the_stored_frames(served):
    """The result of a command that lands while its socket reads the store (after a gap) goes out
    after the frames read, and straight on from them: its events once, in the result, in order."""
    game = httpx.post(served.url + "/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
    with contextlib.ExitStack() as stack:
        sock = _Behind(served, game["game_id"], game, stack)
        sock.wait_for_past = 1 << 62  # the read waits until set below, and its command has landed
        sock.wait_for_past = sock.gap()
        result = sock.command("r0")
        version = sock.drain()
    assert sock.seen == list(range(1, version + 1)), sock.seen
    assert sock.waited.is_set()  # the read had returned when the result went out
    assert result["events"] and result["events"][-1]["seq"] == version
    counters = _counters(served)
    assert counters["replies_held"] == 1 and counters["catch_ups"] == 1, counters
