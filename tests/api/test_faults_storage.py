"""Issue 33, storage faults on a real server: PostgreSQL stopped answers 503 problem+json with
Retry-After at once (no 500, no reset connection, one log line per kind per interval, not a traceback per
request), a full disk under SQLite answers 507 and takes /readyz out, and in both nothing acknowledged is
lost once the storage is back.

Each test owns what it breaks: its own PostgreSQL cluster (initdb + pg_ctl on another port) and its own
small tmpfs; both need root (CI runs as root) and skip with a message otherwise."""

from __future__ import annotations

import contextlib
import json
import threading
import time

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from tests.support.faults import fill, own_postgres, small_tmpfs
from tests.support.server import ServerProcess

pytestmark = pytest.mark.slow

SHOOT = {"command": {"type": "tiny.shoot", "shooter": "red", "target": "blue"}}
NO_LIMITS = {"SALVO_RATE_COMMANDS_PER_TOKEN": "off", "SALVO_RATE_COMMANDS_PER_ADDRESS": "off"}
# a game the load cannot finish: at a few hundred shots a second "long" (1,000 hull) ended mid-test
ENDLESS = {"hull": 1_000_000, "turn_limit": 1_000_000}
ANSWER_WITHIN = 1.0  # seconds: every request during the outage is answered within this (the client's timeout)


class Load:
    """Clients commanding one game in a loop: what was acknowledged (201), and every other outcome."""

    def __init__(self, url: str, game: dict, clients: int = 3) -> None:
        self.url, self.game = url, game
        self.acknowledged: list[int] = []
        self.statuses: dict[int, int] = {}
        self.errors: list[str] = []  # resets, timeouts: never acceptable
        self.bad: list[str] = []  # an answer that is not a 201 or a storage problem
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._run, daemon=True) for _ in range(clients)]

    def __enter__(self) -> Load:
        for t in self._threads:
            t.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(30)

    def _run(self) -> None:
        red = {"Authorization": f"Bearer {self.game['seats']['red']}"}
        path = f"/v1/games/{self.game['game_id']}/commands"
        with httpx.Client(base_url=self.url, timeout=ANSWER_WITHIN) as client:
            while not self._stop.is_set():
                try:
                    r = client.post(path, json=SHOOT, headers=red)
                except httpx.HTTPError as exc:
                    self.errors.append(f"{type(exc).__name__}: {exc}")
                    continue
                self.statuses[r.status_code] = self.statuses.get(r.status_code, 0) + 1
                if r.status_code == 201:
                    self.acknowledged.append(r.json()["version"])
                elif not _storage_problem(r):
                    self.bad.append(f"{r.status_code} {r.text[:200]}")
                else:
                    time.sleep(0.02)  # as a client honouring Retry-After would, briefly


def _storage_problem(r: httpx.Response, statuses: tuple[int, ...] = (503, 507)) -> bool:
    if r.status_code not in statuses or r.headers.get("content-type") != "application/problem+json":
        return False
    body = r.json()
    return (
        body["status"] == r.status_code
        and body["type"] in ("/problems/StorageUnavailable", "/problems/StorageFull")
        and int(r.headers["retry-after"]) >= 1
    )


def _storage_lines(server: ServerProcess, since: int) -> list[dict]:
    lines = []
    for line in server.tail(10**8)[since:].splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        lines.append(record)
    return lines


def _stored_seqs(url: str, game: dict) -> set[int]:
    r = httpx.get(
        f"{url}/v1/games/{game['game_id']}/events",
        headers={"Authorization": f"Bearer {game['umpire_token']}"},
        params={"limit": 10000},
        timeout=10,
    )
    assert r.status_code == 200, r.text
    return {e["seq"] for e in r.json()["events"]}


def _every_read_answers(url: str, game: dict, statuses: tuple[int, ...]) -> list[str]:
    """Each kind of request once; what did not answer a storage problem in time."""
    gid, red = game["game_id"], {"Authorization": f"Bearer {game['seats']['red']}"}
    wrong = []
    with httpx.Client(base_url=url, timeout=ANSWER_WITHIN) as client:
        for method, path, kwargs in [
            ("GET", f"/v1/games/{gid}/events?after=0", {}),
            ("POST", "/v1/games", {"json": {"ruleset": "tiny", "scenario": "long"}}),
            ("POST", f"/v1/games/{gid}/commands", {"json": SHOOT, "headers": red}),
        ]:
            try:
                r = client.request(method, path, **kwargs)
            except httpx.HTTPError as exc:
                wrong.append(f"{method} {path}: {type(exc).__name__}")
                continue
            if not _storage_problem(r, statuses):
                wrong.append(f"{method} {path}: {r.status_code} {r.text[:120]}")
    return wrong


def _caught_up(ws) -> None:
    while json.loads(ws.recv(timeout=10))["kind"] != "caught_up":
        pass


def _sockets_in_the_outage(server: ServerProcess, game: dict, live) -> list[str]:
    """A live seat's command answers an error (503), a socket opened now closes 1013 with the seq to resume
    after (not 1011, not a drop)."""
    wrong = []
    live.send(json.dumps({"kind": "command", "ref": "x", "command": SHOOT["command"]}))
    while (msg := json.loads(live.recv(timeout=ANSWER_WITHIN)))["kind"] not in ("result", "error"):
        pass
    if msg["kind"] != "error" or msg["status"] != 503 or msg.get("ref") != "x":
        wrong.append(f"live socket: {msg}")
    try:
        with connect(f"{server.ws_url}/v1/games/{game['game_id']}/stream", open_timeout=ANSWER_WITHIN) as ws:
            while True:
                ws.recv(timeout=ANSWER_WITHIN)
    except ConnectionClosed as closed:
        if closed.rcvd is None or closed.rcvd.code != 1013 or "resume after=" not in closed.rcvd.reason:
            wrong.append(f"new socket closed with {closed.rcvd}")
    except Exception as exc:  # noqa: BLE001 - a timeout or a failed handshake: what the test reports
        wrong.append(f"new socket: {type(exc).__name__}: {exc}")
    return wrong


def test_postgresql_stopped_answers_503_at_once_and_loses_nothing():
    with own_postgres() as pg, ServerProcess(pg.url, env=NO_LIMITS) as server, contextlib.ExitStack() as stack:
        game = httpx.post(server.url + "/v1/games", json={"ruleset": "tiny", "scenario": ENDLESS}).json()
        live = stack.enter_context(
            connect(
                f"{server.ws_url}/v1/games/{game['game_id']}/stream",
                additional_headers={"Authorization": f"Bearer {game['seats']['red']}"},
            )
        )
        _caught_up(live)
        with Load(server.url, game) as load:
            time.sleep(0.5)
            log_from = len(server.tail(10**8))
            pg.stop()
            outage = time.monotonic()
            time.sleep(1.0)
            wrong = _every_read_answers(server.url, game, (503,)) + _sockets_in_the_outage(server, game, live)
            stack.close()
            ready = httpx.get(server.url + "/readyz", timeout=ANSWER_WITHIN)
            time.sleep(1.5)
            during = dict(load.statuses)
            lines = _storage_lines(server, log_from)
            seconds = time.monotonic() - outage
            pg.start()
            time.sleep(1.0)
        assert not wrong, wrong
        assert ready.status_code == 503 and ready.json()["checks"]["database"].startswith("failed")
        assert during.get(503, 0) > 0, during
        assert not [r for r in lines if r.get("logger") != "salvo.storage"], [r.get("exc", "")[-1500:] for r in lines]
        assert not load.errors, load.errors[:5]  # no reset connection, no request left waiting
        assert not load.bad, load.bad[:5]  # nothing but 201 and 503 problem+json
        assert len(lines) <= seconds + 1, (len(lines), seconds)  # at most one line a second
        assert httpx.get(server.url + "/readyz").status_code == 200
        r = httpx.post(
            f"{server.url}/v1/games/{game['game_id']}/commands",
            json=SHOOT,
            headers={"Authorization": f"Bearer {game['seats']['red']}"},
        )
        assert r.status_code == 201, r.text
        stored = _stored_seqs(server.url, game)
        assert set(load.acknowledged) <= stored, sorted(set(load.acknowledged) - stored)  # 0 acknowledged lost
        assert len(load.acknowledged) == len(set(load.acknowledged))


def test_a_full_disk_under_sqlite_answers_507_and_is_not_ready_then_recovers():
    with small_tmpfs("16m") as disk, ServerProcess(f"sqlite:///{disk}/salvo.db", env=NO_LIMITS) as server:
        game = httpx.post(server.url + "/v1/games", json={"ruleset": "tiny", "scenario": ENDLESS}).json()
        assert httpx.get(server.url + "/readyz").status_code == 200
        with Load(server.url, game) as load:
            time.sleep(0.3)
            log_from = len(server.tail(10**8))
            filler = fill(disk)
            time.sleep(1.0)
            during = dict(load.statuses)
            ready = httpx.get(server.url + "/readyz", timeout=ANSWER_WITHIN)
            r = httpx.post(
                f"{server.url}/v1/games/{game['game_id']}/commands",
                json=SHOOT,
                timeout=ANSWER_WITHIN,
                headers={"Authorization": f"Bearer {game['seats']['red']}"},
            )
            lines = _storage_lines(server, log_from)
            filler.unlink()
            time.sleep(0.5)
        assert r.status_code in (507, 503) and _storage_problem(r), r.text
        assert during.get(507, 0) > 0, during
        assert ready.status_code == 503 and ready.json()["checks"]["database"].startswith("failed"), ready.text
        assert not load.errors, load.errors[:5]
        assert not load.bad, load.bad[:5]
        assert not [x for x in lines if x.get("logger") != "salvo.storage"], lines[:3]
        assert len(lines) <= 3, lines
        assert httpx.get(server.url + "/readyz").json() == {"ok": True, "database": "ok"}
        r = httpx.post(
            f"{server.url}/v1/games/{game['game_id']}/commands",
            json=SHOOT,
            headers={"Authorization": f"Bearer {game['seats']['red']}"},
        )
        assert r.status_code == 201, r.text
        stored = _stored_seqs(server.url, game)
        assert set(load.acknowledged) <= stored, sorted(set(load.acknowledged) - stored)
