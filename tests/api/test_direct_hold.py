"""A busy game over real sockets (uvicorn in a thread, Salvo's websocket protocol): several sockets with
``own_events=result`` each send commands concurrently. While a socket's command is in flight the fan-out
holds its frames (``Sink.held``) and the stream writes them around the result, so every socket ends
with every seq exactly once, in order (its own in results, the rest as frames), and nothing is read
back from the store after the join."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator

import httpx
import pytest
import uvicorn
from websockets.sync.client import connect

from service.api.app import create_app
from service.settings import Settings
from tests.support.server import uvicorn_in_thread

SOCKETS = 4
COMMANDS = 15  # per socket


class Served:
    def __init__(self, server: uvicorn.Server, app, port: int) -> None:
        self.server, self.app = server, app
        self.url, self.ws_url = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"


@pytest.fixture
def served(sqlite_url) -> Iterator[Served]:
    settings = Settings(database_url=sqlite_url, heartbeat_seconds=5,
                        rate_commands_per_token="off", rate_commands_per_address="off")
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
        sockets = [stack.enter_context(connect(f"{served.ws_url}/v1/games/{gid}/stream?own_events=result",
                                               additional_headers={"Authorization": f"Bearer {game['seats'][who]}"}))
                   for who in seats]
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
                sockets[i].send(json.dumps({"kind": "command", "ref": f"{i}.{n}",
                                            "command": {"type": "tiny.shoot", "shooter": who, "target": other}}))
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
