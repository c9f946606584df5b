"""The event store alone, in process: C games each submit batches of 1–3 event rows from the event loop
(the next one as soon as the last is durable, or up to D in flight chained by ``follows`` as the
pipeline does), N batches in all, on SQLite (WAL, synchronous=FULL) or PostgreSQL. Prints process CPU
per batch (this process: loop thread + writer thread; PostgreSQL's own server CPU is not in it), split
into the loop thread's and the rest (the writer thread's), batches per commit and loop wake-ups. CPU
time, not wall time: the machine is shared, and CPU per batch does not depend on the share it gets.

    .venv/bin/python bench/bench_store.py                          # this checkout, SQLite and PostgreSQL
    .venv/bin/python bench/bench_store.py --compare /tmp/before    # another checkout too, alternating
    .venv/bin/python bench/bench_store.py --backends sqlite --games 1,50 --batches 20000
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
PG_DEFAULT = "postgresql://postgres@127.0.0.1:5432/test"


def _event_row(game_id: str, seq: int, recorded_at: str) -> dict[str, Any]:
    # the shape rows.event_row builds (values of a typical small command)
    return {"game_id": game_id, "seq": seq, "type": "tiny.shot", "v": 1,
            "data": '{"shooter":"red","target":"blue","hit":true}', "rolls": "[4]", "turn": 3,
            "phase": "fire", "actor": "seat:red", "command_id": "c_0123456789abcdef",
            "recorded_at": recorded_at, "dice": None}


async def _landed(batch: Any, future: Any) -> None:
    await future
    batch.follows = None  # as the pipeline does once a batch settled: no chain of every batch kept alive


async def run_store(url: str, games: int, batches: int, depth: int) -> dict[str, Any]:
    from service.events import rows as rows_module
    from service.events.store import SqlEventStore, WriteBatch

    now_iso = rows_module.now_iso
    store = SqlEventStore(url)
    store.start()
    loop = asyncio.get_running_loop()
    wakeups = 0
    original = loop.call_soon_threadsafe

    def counting(*args: Any, **kwargs: Any) -> Any:  # loop wake-ups from the writer thread
        nonlocal wakeups
        wakeups += 1
        return original(*args, **kwargs)

    loop.call_soon_threadsafe = counting  # type: ignore[method-assign]
    try:
        ids = [f"g_bench_{os.getpid()}_{g}" for g in range(games)]
        for gid in ids:  # the games exist first, as in the service (not measured)
            await store.write(WriteBatch(gid, events=[_event_row(gid, 1, now_iso())]))
        share = [batches // games + (1 if g < batches % games else 0) for g in range(games)]

        async def game(g: int) -> None:
            gid, seq, in_flight = ids[g], 1, []
            last = None
            for i in range(share[g]):
                n = 1 + (g + i) % 3  # 1–3 event rows a batch
                recorded_at = now_iso()
                rows = [_event_row(gid, seq + k + 1, recorded_at) for k in range(n)]
                seq += n
                batch = WriteBatch(gid, events=rows, follows=last)
                last = batch
                in_flight.append((batch, store.submit(batch)))
                if len(in_flight) >= depth:
                    await _landed(*in_flight.pop(0))
            for done, f in in_flight:
                await _landed(done, f)

        commits0, batches0, wake0 = store.commits, store.batches, wakeups
        cpu0, loop0, t0 = time.process_time(), time.thread_time(), time.perf_counter()
        await asyncio.gather(*(game(g) for g in range(games)))
        wall, cpu, loop_cpu = time.perf_counter() - t0, time.process_time() - cpu0, time.thread_time() - loop0
        commits, written, wakes = store.commits - commits0, store.batches - batches0, wakeups - wake0
        assert written == batches, (written, batches)
        for gid, n in zip(ids, share, strict=True):  # every acknowledged batch is in the store
            expected = 1 + sum(1 + (ids.index(gid) + i) % 3 for i in range(n))
            assert await store.head(gid) == expected, gid
    finally:
        loop.call_soon_threadsafe = original  # type: ignore[method-assign]
        store.close()
    return {"backend": url.split(":", 1)[0], "games": games, "depth": depth, "batches": batches,
            "cpuUsPerBatch": round(cpu / batches * 1e6, 1), "loopCpuUsPerBatch": round(loop_cpu / batches * 1e6, 1),
            "writerCpuUsPerBatch": round((cpu - loop_cpu) / batches * 1e6, 1),
            "batchesPerCommit": round(written / commits, 2), "wakeupsPerCommit": round(wakes / commits, 2),
            "wallBatchesPerSec": round(batches / wall)}


def _pg_url(base: str) -> tuple[str, Any]:
    """A fresh schema (dropped afterwards) so runs never see each other's rows."""
    import uuid

    from sqlalchemy import create_engine, text

    schema = "bench_" + uuid.uuid4().hex[:10]
    admin = create_engine(base.replace("postgresql://", "postgresql+psycopg://", 1))
    with admin.begin() as conn:
        conn.execute(text(f"create schema {schema}"))

    def drop() -> None:
        with admin.begin() as conn:
            conn.execute(text(f"drop schema {schema} cascade"))
        admin.dispose()

    sep = "&" if "?" in base else "?"
    return f"{base}{sep}options=-csearch_path%3D{schema}", drop


def run_here(backends: list[str], levels: list[int], batches: int, single: int, depth: int,
             pg: str) -> list[dict[str, Any]]:
    import uvloop

    out = []
    with tempfile.TemporaryDirectory(prefix="salvo-store-") as work:
        for backend in backends:
            for games in levels:
                n = single if games == 1 else batches
                if backend == "sqlite":
                    url, drop = f"sqlite:///{work}/store-{games}.db", None
                else:
                    url, drop = _pg_url(pg)
                try:
                    out.append(uvloop.run(run_store(url, games, n, depth)))
                finally:
                    if drop is not None:
                        drop()
    return out


def run_in(checkout: str, a: argparse.Namespace) -> list[dict[str, Any]]:
    """This script against another checkout's store (its code on the path)."""
    env = {**os.environ, "PYTHONPATH": checkout}
    cmd = [sys.executable, __file__, "--here", "--backends", a.backends, "--games", a.games,
           "--batches", str(a.batches), "--single", str(a.single), "--depth", str(a.depth), "--pg", a.pg]
    done = subprocess.run(cmd, cwd=checkout, env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--backends", default="sqlite,postgresql")
    p.add_argument("--games", default="1,50", help="concurrent games (each its own submitter)")
    p.add_argument("--batches", type=int, default=20000, help="batches in all (with more than one game)")
    p.add_argument("--single", type=int, default=2000, help="batches with one game (one fsync each)")
    p.add_argument("--depth", type=int, default=1, help="batches a game keeps in flight (follows-chained)")
    p.add_argument("--pg", default=os.environ.get("SALVO_TEST_DATABASE_URL", PG_DEFAULT))
    p.add_argument("--compare", default=None, help="a 'before' checkout: run both, alternating, one table")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--json-out", default=None)
    p.add_argument("--here", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args()
    backends, levels = a.backends.split(","), [int(x) for x in a.games.split(",")]
    if a.here:
        sys.path.insert(0, os.getcwd())
        print(json.dumps(run_here(backends, levels, a.batches, a.single, a.depth, a.pg)))
        return
    if not a.compare:
        result = run_in(str(ROOT), a)
        for r in result:
            print(json.dumps(r))
        if a.json_out:
            Path(a.json_out).write_text(json.dumps(result, indent=1))
        return
    rounds: dict[str, list[list[dict[str, Any]]]] = {"before": [], "after": []}
    for _ in range(a.rounds):
        rounds["before"].append(run_in(a.compare, a))
        rounds["after"].append(run_in(str(ROOT), a))
    print(f"load: {os.getloadavg()[0]:.1f} (1 min) on {os.cpu_count()} cores; best (least CPU) of {a.rounds} rounds")
    print("| backend | games | CPU µs/batch before → after | loop thread µs/batch before → after "
          "| writer thread µs/batch before → after | batches/commit before / after "
          "| loop wake-ups/commit before / after |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for i, first in enumerate(rounds["before"][0]):
        b = min((r[i] for r in rounds["before"]), key=lambda r: r["cpuUsPerBatch"])
        f = min((r[i] for r in rounds["after"]), key=lambda r: r["cpuUsPerBatch"])
        print(f"| {first['backend']} | {first['games']} | {b['cpuUsPerBatch']} → {f['cpuUsPerBatch']} "
              f"({f['cpuUsPerBatch'] / b['cpuUsPerBatch']:.2f}×) | {b['loopCpuUsPerBatch']} → "
              f"{f['loopCpuUsPerBatch']} | {b['writerCpuUsPerBatch']} → {f['writerCpuUsPerBatch']} "
              f"| {b['batchesPerCommit']} / {f['batchesPerCommit']} "
              f"| {b['wakeupsPerCommit']} / {f['wakeupsPerCommit']} |")
    if a.json_out:
        Path(a.json_out).write_text(json.dumps(rounds, indent=1))


if __name__ == "__main__":
    main()
