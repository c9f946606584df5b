"""The stream's catch-up in process: a fresh join of an N-event game (the peer harness's game: one seat
shooting, tiny ruleset), for the spectator and a seat, default and ``history=compact``; exact payload
bytes and the process's CPU time per join (utime+stime: figures that hold on a shared machine).

    .venv/bin/python bench/bench_catchup.py [--events 10000] [--reps 5] [--db /tmp/catchup.db] [--profile]

The game is built once into ``--db`` (commands over the socket) and reused by later runs. ``--profile``
prints cProfile's top functions of one compact spectator join.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import msgspec
from starlette.testclient import TestClient

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.api import history_pages  # noqa: E402
from service.api.app import create_app  # noqa: E402
from service.api.compact import expand_page  # noqa: E402
from service.api.streaming import Stream  # noqa: E402
from service.domain.core import register_ruleset  # noqa: E402
from service.settings import Settings  # noqa: E402
from tests.support import tiny  # noqa: E402

ENDLESS = {"hull": 10**6, "turn_limit": 10**6}
SHOOT = b'{"kind":"command","command":{"type":"tiny.shoot","shooter":"red","target":"blue"}}'


class FakeSocket:
    """What Stream needs of a websocket: the app, the query, the peer; sends are collected."""

    def __init__(self, app: Any, query: dict[str, str]) -> None:
        self.app = app
        self.query_params = query
        self.client = SimpleNamespace(host="127.0.0.1")
        self.scope: dict[str, Any] = {}
        self.sent: list[str] = []

    async def send_text(self, text: str) -> None:
        self.sent.append(text)


def build(client: TestClient, events: int, meta: Path) -> dict[str, Any]:
    if meta.exists():
        return msgspec.json.decode(meta.read_bytes())
    game = client.post("/v1/games", json={"ruleset": "tiny", "scenario": ENDLESS}).json()
    path = f"/v1/games/{game['game_id']}/stream?own_events=result"
    with client.websocket_connect(path, headers={"Authorization": f"Bearer {game['seats']['red']}"}) as ws:
        version = 0
        while version < events:
            ws.send_text(SHOOT.decode())
            while True:
                msg = msgspec.json.decode(ws.receive_text())
                if msg["kind"] == "result":
                    version = msg["version"]
                    break
    meta.write_bytes(msgspec.json.encode(game))
    return game


def cpu() -> float:
    return time.process_time()  # the whole process (the portal's thread included), ns resolution


def join(client: TestClient, game: dict[str, Any], viewer: str, compact: bool) -> tuple[list[str], float]:
    app = client.app
    reader = app.state.reader
    v = client.portal.call(reader.service.authenticate, game["game_id"],
                           None if viewer == "spectator" else game["seats"][viewer])
    ws = FakeSocket(app, {"history": "compact"} if compact else {})
    stream = Stream(ws, game["game_id"], v, None, 0)  # type: ignore[arg-type]
    t0 = cpu()
    client.portal.call(stream.catch_up)
    return ws.sent, cpu() - t0


async def profiled(prof: cProfile.Profile, client: TestClient, game: dict[str, Any]) -> None:
    """A cold compact spectator join, profiled in the event loop's thread (where the work is)."""
    reader = client.app.state.reader
    viewer = await reader.service.authenticate(game["game_id"], None)
    stream = Stream(FakeSocket(client.app, {"history": "compact"}), game["game_id"], viewer, None, 0)  # type: ignore[arg-type]
    prof.enable()
    await stream.catch_up()
    prof.disable()


def envelopes(sent: list[str]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for text in sent:
        msg = msgspec.json.decode(text)
        out.extend(expand_page(msg) if msg["kind"] == "events" else [msg["event"]])
    return out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--events", type=int, default=10_000)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--db", default="/tmp/salvo-catchup.db")
    p.add_argument("--profile", action="store_true")
    a = p.parse_args()
    register_ruleset("tiny", tiny.RULESET)
    meta = Path(a.db + f".{a.events}.json")
    if not meta.exists() and Path(a.db).exists():
        Path(a.db).unlink()
    settings = Settings(database_url=f"sqlite:///{a.db}", rate_commands_per_token="off",
                        rate_commands_per_address="off")
    with TestClient(create_app(settings)) as client:
        t = time.perf_counter()
        game = build(client, a.events, meta)
        print(f"game {game['game_id']} ({a.events} events) ready in {time.perf_counter() - t:.1f} s; "
              f"load {os.getloadavg()[0]:.2f}")
        for viewer in ("spectator", "blue"):
            plain, _ = join(client, game, viewer, False)
            reference = envelopes(plain)
            for mode in ("default", "compact cold", "compact"):
                times, size, msgs = [], 0, 0
                for _ in range(a.reps):
                    if mode == "compact cold":  # no page kept from an earlier join
                        history_pages.cache_of(client.app.state.reader).__init__()
                    sent, spent = join(client, game, viewer, mode != "default")
                    times.append(spent)
                    size, msgs = sum(len(s.encode()) for s in sent), len(sent)
                    assert envelopes(sent) == reference, "a compact join must expand to the default envelopes"
                times.sort()
                print(f"{viewer:9} {mode:12} {size:>10,} B in {msgs:>5} messages, {len(reference)} envelopes; "
                      f"CPU per join median {times[len(times) // 2] * 1000:.1f} ms (min {times[0] * 1000:.1f})")
        if a.profile:
            prof = cProfile.Profile()
            history_pages.cache_of(client.app.state.reader).__init__()
            client.portal.call(profiled, prof, client, game)
            pstats.Stats(prof).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
