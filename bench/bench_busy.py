"""One busy game, in process: C tasks command one game at once through GameService on a real SQLite
store (WAL, synchronous=FULL: every acknowledged command durable), for S seconds; how many commands
per second, per group commit, and CPU per command. No HTTP, no sockets: the pipeline and the writer
alone, so the figure moves with them rather than with the web stack (bench/peer_table.py --only busy
measures the same over HTTP and the websocket).

    .venv/bin/python bench/bench_busy.py                       # this checkout, C = 1, 8, 32
    .venv/bin/python bench/bench_busy.py --salvo-dir /tmp/main # another checkout (before/after)
    .venv/bin/python bench/bench_busy.py --compare /tmp/main   # both, alternating, one table
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p / 100))] if ordered else float("nan")


async def busy(clients: int, seconds: float, warmup: float, db: str) -> dict[str, Any]:
    import msgspec

    from service.domain.core import register_ruleset, seat
    from service.events.application import GameService
    from service.events.store import SqlEventStore
    from tests.support import tiny

    register_ruleset("tiny", tiny.RULESET)
    store = SqlEventStore(f"sqlite:///{db}")
    store.start()
    try:
        service = GameService(store, snapshot_every=500, publish=None)
        gid = (await service.create_game("tiny", {"hull": 10**6, "turn_limit": 10**6})).game_id
        bodies = {who: msgspec.json.encode({"command": {"type": "tiny.shoot", "shooter": who, "target": other}})
                  for who, other in (("red", "blue"), ("blue", "red"))}
        state = {"measuring": False, "stop": False}
        lat: list[float] = []

        async def client(c: int) -> None:
            who = "red" if c % 2 == 0 else "blue"
            actor, body = seat(who), bodies[who]
            while not state["stop"]:
                t0 = time.perf_counter()
                await service.handle_command(gid, actor, body)
                if state["measuring"]:
                    lat.append(time.perf_counter() - t0)

        tasks = [asyncio.create_task(client(c)) for c in range(clients)]
        await asyncio.sleep(warmup)
        commits0, batches0 = store.commits, store.batches
        cpu0, t0 = time.process_time(), time.perf_counter()
        state["measuring"] = True
        await asyncio.sleep(seconds)
        state["measuring"] = False
        elapsed, cpu = time.perf_counter() - t0, time.process_time() - cpu0
        commits, batches = store.commits - commits0, store.batches - batches0
        state["stop"] = True
        await asyncio.gather(*tasks)
        head = await service.head(gid)
        stored = await store.head(gid)
        assert head.seq == stored, (head.seq, stored)  # every acknowledged command is in the store
    finally:
        store.close()
    n = len(lat)
    return {"clients": clients, "perSec": round(n / elapsed), "commitsPerSec": round(commits / elapsed),
            "batchesPerCommit": round(batches / commits, 2) if commits else None,
            "cpuUsPerCommand": round(cpu / n * 1e6) if n else None, "processCpuPct": round(100 * cpu / elapsed),
            "p50Ms": round(pct(lat, 50) * 1000, 2), "p99Ms": round(pct(lat, 99) * 1000, 2)}


def run_here(levels: list[int], seconds: float, warmup: float) -> list[dict[str, Any]]:
    import uvloop

    out = []
    with tempfile.TemporaryDirectory(prefix="salvo-busy-") as work:
        for c in levels:
            out.append(uvloop.run(busy(c, seconds, warmup, f"{work}/busy-{c}.db")))
    return out


def run_in(checkout: str, levels: list[int], seconds: float, warmup: float) -> list[dict[str, Any]]:
    """This script against another checkout's service (its code on the path, this script's loop)."""
    env = {**os.environ, "PYTHONPATH": checkout}
    cmd = [sys.executable, __file__, "--json-out", "-", "--levels", ",".join(map(str, levels)),
           "--seconds", str(seconds), "--warmup", str(warmup), "--here"]
    done = subprocess.run(cmd, cwd=checkout, env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--levels", default="1,8,32")
    p.add_argument("--seconds", type=float, default=5.0)
    p.add_argument("--warmup", type=float, default=1.0)
    p.add_argument("--salvo-dir", default=None)
    p.add_argument("--compare", default=None, help="a 'before' checkout: run both, alternating, print a table")
    p.add_argument("--rounds", type=int, default=2, help="with --compare: alternations")
    p.add_argument("--json-out", default=None)
    p.add_argument("--here", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args()
    levels = [int(x) for x in a.levels.split(",")]
    if a.here:
        sys.path.insert(0, os.getcwd())
        print(json.dumps(run_here(levels, a.seconds, a.warmup)))
        return
    if a.compare:
        rows: dict[str, list[list[dict[str, Any]]]] = {"before": [], "after": []}
        for _ in range(a.rounds):
            rows["before"].append(run_in(a.compare, levels, a.seconds, a.warmup))
            rows["after"].append(run_in(str(a.salvo_dir or ROOT), levels, a.seconds, a.warmup))
        print("| clients on one game | before: commands/s (best of rounds) | after | after ÷ before "
              "| batches per commit before / after | CPU µs per command before / after | p99 ms before / after |")
        print("|---:|---:|---:|---:|---:|---:|---:|")
        for i, c in enumerate(levels):
            b = max((r[i] for r in rows["before"]), key=lambda r: r["perSec"])
            f = max((r[i] for r in rows["after"]), key=lambda r: r["perSec"])
            print(f"| {c} | {b['perSec']:,} | {f['perSec']:,} | {f['perSec'] / b['perSec']:.2f}× "
                  f"| {b['batchesPerCommit']} / {f['batchesPerCommit']} "
                  f"| {b['cpuUsPerCommand']} / {f['cpuUsPerCommand']} "
                  f"| {b['p99Ms']} / {f['p99Ms']} |")
        if a.json_out:
            Path(a.json_out).write_text(json.dumps(rows, indent=1))
        return
    result = run_in(a.salvo_dir, levels, a.seconds, a.warmup) if a.salvo_dir else run_here(levels, a.seconds, a.warmup)
    for r in result:
        print(json.dumps(r))
    if a.json_out and a.json_out != "-":
        Path(a.json_out).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
