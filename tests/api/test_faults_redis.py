"""Issue 33, Redis as an accelerator, never a dependency of a command: two replicas on one database
sharing the test's own redis-server, which is frozen (SIGSTOP: connections stay open, nothing answers,
nothing fails) and thawed. No command waits on it; the other replica notices its subscription is lost,
checks the stored head on reads and polls the log for its sockets; back, it is current at once and its
sockets got every event in order, no gap; /readyz says "degraded" and stays 200 throughout."""

from __future__ import annotations

import contextlib
import json
import threading
import time

import httpx
import pytest
from websockets.sync.client import connect

from service.api.app import create_app
from service.settings import Settings
from tests.support.faults import own_redis
from tests.support.server import uvicorn_in_thread

pytestmark = pytest.mark.slow

COMMAND_WITHIN = 1.0  # seconds: no command waits longer for a frozen Redis
CURRENT_WITHIN = 2.0  # seconds after Redis is back: the other replica reads the same version


def _shoot(i: int) -> dict:
    who, other = ("red", "blue") if i % 2 == 0 else ("blue", "red")
    return {"command": {"type": "tiny.shoot", "shooter": who, "target": other}}


class Watcher:
    """A spectator socket on a replica, in a thread: the event seqs it got, in order."""

    def __init__(self, ws_url: str, game_id: str) -> None:
        self.seqs: list[int] = []
        self.closed: str | None = None
        self._stack = contextlib.ExitStack()
        self._socket = self._stack.enter_context(connect(f"{ws_url}/v1/games/{game_id}/stream"))
        while json.loads(self._socket.recv(timeout=10))["kind"] != "caught_up":
            pass
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            while True:
                msg = json.loads(self._socket.recv())
                if msg["kind"] == "event":
                    self.seqs.append(msg["event"]["seq"])
        except Exception as exc:  # noqa: BLE001 - the socket's end, whatever it was: reported by the test
            self.closed = f"{type(exc).__name__}: {exc}"

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._stack.close()


def _until(check, what: str, limit: float) -> float:
    """Seconds until ``check()`` held (fails past ``limit``)."""
    start = time.monotonic()
    while not check():
        assert time.monotonic() - start < limit, f"not within {limit} s: {what}"
        time.sleep(0.02)
    return time.monotonic() - start


def test_a_frozen_redis_delays_no_command_and_the_replicas_stay_current_without_a_gap(tmp_path, sqlite_template):
    import shutil

    shutil.copyfile(sqlite_template, tmp_path / "salvo.db")
    with own_redis() as server:
        settings = Settings(
            database_url=f"sqlite:///{tmp_path}/salvo.db",
            redis_url=server.url,
            heartbeat_seconds=5,
            rate_commands_per_token="off",
        )
        with (
            uvicorn_in_thread(create_app(settings), settings) as (_a, a_port),
            uvicorn_in_thread(create_app(settings), settings) as (_b, b_port),
        ):
            a, b = f"http://127.0.0.1:{a_port}", f"http://127.0.0.1:{b_port}"
            game = httpx.post(a + "/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
            gid = game["game_id"]
            seat = {"red": game["seats"]["red"], "blue": game["seats"]["blue"]}
            url = f"/v1/games/{gid}"
            assert httpx.get(b + url).json()["version"] == 2  # B caches the head
            watcher = Watcher(f"ws://127.0.0.1:{b_port}", gid)
            timings: list[float] = []

            def command(base: str, i: int) -> int:
                body = _shoot(i)
                token = seat[body["command"]["shooter"]]
                started = time.monotonic()
                r = httpx.post(
                    base + url + "/commands", json=body, headers={"Authorization": f"Bearer {token}"}, timeout=10
                )
                timings.append(time.monotonic() - started)
                assert r.status_code == 201, r.text
                return int(r.json()["version"])

            try:
                version = command(a, 0)
                _until(lambda: watcher.seqs[-1:] == [version], "B's socket hears A's command through Redis", 5)

                server.freeze()
                for i in range(1, 7):  # on both replicas, one at a time
                    version = command(a if i % 3 else b, i)
                assert max(timings) < COMMAND_WITHIN, timings
                # B noticed (no pong): it checks the stored head on reads and polls the log for its socket
                _until(lambda: httpx.get(b + url).json()["version"] == version, "B reads A's appends", 5)
                _until(lambda: watcher.seqs[-1:] == [version], "B's socket gets the events from the log", 5)
                readiness: list[httpx.Response] = []

                def degraded() -> bool:
                    answers = [httpx.get(base + "/readyz", timeout=COMMAND_WITHIN) for base in (a, b)]
                    readiness.extend(answers)
                    return all(r.status_code == 200 and r.json()["redis"].startswith("degraded") for r in answers)

                _until(degraded, "both replicas report their fan-out degraded", 5)
                assert all(r.status_code == 200 for r in readiness), [r.text for r in readiness]  # never drained

                server.thaw()
                for i in range(7, 10):
                    version = command(a, i)
                assert max(timings) < COMMAND_WITHIN, timings
                _until(
                    lambda: httpx.get(b + url).json()["version"] == version, "B current after the thaw", CURRENT_WITHIN
                )
                options = httpx.get(b + url + "/options", headers={"Authorization": f"Bearer {seat['red']}"})
                assert options.json()["version"] == version, options.text
                _until(lambda: watcher.seqs[-1:] == [version], "B's socket current after the thaw", CURRENT_WITHIN)
                assert watcher.seqs == list(range(3, version + 1)), watcher.seqs  # every event, in order, no gap
                assert watcher.closed is None, watcher.closed
                _until(
                    lambda: all(httpx.get(base + "/readyz").json().get("redis") == "ok" for base in (a, b)),
                    "both replicas' fan-out healthy again",
                    10,
                )
            finally:
                watcher.close()
