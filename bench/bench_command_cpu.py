"""Server CPU per command on the command path's core, in process: K games of the tiny ruleset, one
closed-loop client each, commanded through the same Gate.command the websocket and POST /commands call,
on a real SQLite store (WAL, synchronous=FULL, the writer thread) with the in-process broadcaster and a
live seat subscription per seat used (so frames are built for them, as for the harness's sockets).
No HTTP, no sockets: the figure moves with the pipeline, the decide path, dice, frames and the writer.

CPU time, not wall time: meaningful on a loaded machine. ``process`` is utime+stime of every thread
(the writer's inserts included), ``main`` the event loop's thread alone.

    .venv/bin/python bench/bench_command_cpu.py                          # shoot and cycle, K = 10
    .venv/bin/python bench/bench_command_cpu.py --workload cycle --games 50 --commands 20000
    .venv/bin/python bench/bench_command_cpu.py --profile /tmp/cycle.prof --workload cycle
    .venv/bin/python bench/bench_command_cpu.py --salvo-dir /tmp/before --rounds 3   # another checkout

With ``--rounds R`` each workload runs R times and the lowest CPU per command is reported (the least
disturbed by other processes' cache and frequency effects on a shared machine).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

ENDLESS = {"hull": 10**6, "turn_limit": 10**6}
SHOOT = [("red", {"type": "tiny.shoot", "shooter": "red", "target": "blue"})]
CYCLE = [  # one whole turn: 8 commands, 12 events (a reveal and a fresh commitment at its end)
    ("red", {"type": "tiny.shoot", "shooter": "red", "target": "blue"}),
    ("blue", {"type": "tiny.shoot", "shooter": "blue", "target": "red"}),
    ("red", {"type": "tiny.hide", "seat": "red", "secret": 1}),
    ("blue", {"type": "tiny.hide", "seat": "blue", "secret": 2}),
    ("red", {"type": "tiny.end_phase", "seat": "red"}),
    ("blue", {"type": "tiny.end_phase", "seat": "blue"}),
    ("red", {"type": "tiny.end_phase", "seat": "red"}),
    ("blue", {"type": "tiny.end_phase", "seat": "blue"}),
]


async def run(workload: str, games: int, commands: int, warmup: int, db: str,
              profile: str | None) -> dict[str, Any]:
    import msgspec

    from service.api.broadcast import InProcessBroadcaster
    from service.api.gate import Gate
    from service.api.metrics import Metrics
    from service.api.ratelimit import RateLimits
    from service.domain.core import register_ruleset
    from service.events.application import GameService
    from service.events.store import SqlEventStore
    from service.settings import Settings
    from tests.support import tiny

    register_ruleset("tiny", tiny.RULESET)
    settings = Settings.from_env(rate_commands_per_token="off", rate_commands_per_address="off")
    store = SqlEventStore(f"sqlite:///{db}")
    store.start()
    broadcaster = InProcessBroadcaster()
    service = GameService(store, settings.snapshot_every, publish=broadcaster.publish,
                          listening=broadcaster.listening)
    metrics = Metrics()
    metrics.watch(service)
    gate = Gate(service, RateLimits(settings), metrics)
    cycle = SHOOT if workload == "shoot" else CYCLE
    try:
        created = [await service.create_game("tiny", dict(ENDLESS)) for _ in range(games)]
        subs = []
        plans = []
        for game in created:
            seats_used = sorted({who for who, _ in cycle})
            viewers = {w: await service.authenticate(game.game_id, game.seat_tokens[w]) for w in seats_used}
            subs += [broadcaster.subscribe(game.game_id, 1 << 30, f"seat:{w}") for w in seats_used]
            plans.append((game.game_id, [
                (viewers[w], game.seat_tokens[w],
                 b'{"command":' + msgspec.json.encode(c) + b',"salt":""}') for w, c in cycle]))
        state = {"left": warmup + commands, "measured": 0}
        marks: dict[str, float] = {}

        def start_measuring() -> None:
            marks["process"], marks["main"], marks["wall"] = time.process_time(), time.thread_time(), \
                time.perf_counter()
            if profile:
                import cProfile
                marks["prof"] = cProfile.Profile()  # type: ignore[assignment]
                marks["prof"].enable()  # type: ignore[attr-defined]

        async def client(game_id: str, plan: list[tuple[Any, str, bytes]]) -> None:
            i = 0
            while state["left"] > 0:
                if state["left"] <= commands and "process" not in marks:
                    start_measuring()  # the warm-up commands are done
                state["left"] -= 1
                viewer, token, body = plan[i % len(plan)]
                await gate.command(game_id, viewer, token, "127.0.0.1", body)
                i += 1
                if "process" in marks:
                    state["measured"] += 1
                for sub in subs:  # the sockets' share is not measured here: drop what they were handed
                    sub._items.clear()

        await asyncio.gather(*(client(gid, plan) for gid, plan in plans))
        process, main, wall = (time.process_time() - marks["process"], time.thread_time() - marks["main"],
                               time.perf_counter() - marks["wall"])
        if profile:
            marks["prof"].disable()  # type: ignore[attr-defined]
            marks["prof"].dump_stats(profile)  # type: ignore[attr-defined]
        n = state["measured"]
        for game in created:  # every acknowledged command is in the store, and the head is the fold
            assert (await service.head(game.game_id)).seq == await store.head(game.game_id)
    finally:
        store.close()
    return {"workload": workload, "games": games, "commands": n, "processUsPerCommand": round(process / n * 1e6, 1),
            "mainUsPerCommand": round(main / n * 1e6, 1), "wallPerSec": round(n / wall),
            "commitsPerCommand": round(store.commits / max(1, store.batches), 3),
            "load": os.getloadavg()[0]}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--workload", default="shoot,cycle", help="shoot, cycle or both (comma-separated)")
    p.add_argument("--games", type=int, default=10)
    p.add_argument("--commands", type=int, default=8000, help="measured commands (all games together)")
    p.add_argument("--warmup", type=int, default=800)
    p.add_argument("--profile", default=None, help="write a cProfile of the measured commands here")
    p.add_argument("--uvloop", action="store_true", help="run on uvloop (the server's loop)")
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--salvo-dir", default=str(ROOT), help="the checkout whose service is measured")
    a = p.parse_args()
    sys.path.insert(0, a.salvo_dir)
    os.environ.setdefault("SALVO_RULESETS", "tiny=tests.support.tiny:RULESET")
    for workload in a.workload.split(","):
        results = []
        for _ in range(a.rounds):
            with tempfile.TemporaryDirectory(prefix="salvo-cpu-") as work:
                coro = run(workload, a.games, a.commands, a.warmup, f"{work}/cpu.db", a.profile)
                if a.uvloop:
                    import uvloop
                    results.append(uvloop.run(coro))
                else:
                    results.append(asyncio.run(coro))
        best = min(results, key=lambda r: r["processUsPerCommand"])
        best["rounds"] = [r["processUsPerCommand"] for r in results]
        print(json.dumps(best))


if __name__ == "__main__":
    main()
