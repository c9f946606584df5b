"""The group writer alone, in process, under callgrind: one loop (uvloop, as the server) submits K batches
per pass (one event row each, twelve int or text values: the shape a `shoot` command writes), awaits
them, R passes; instructions per batch (every
thread) from the difference of two runs (R and 6R passes), so start-up and migration cancel.

    .venv/bin/python bench/bench_writer_callgrind.py                    # this checkout, K = 1, 5, 20
    .venv/bin/python bench/bench_writer_callgrind.py --before /tmp/base --groups 5,20

K = 1 meets an idle writer: it is committed inline on the loop. Deterministic to ~0.1 % (the group sizes
are fixed by construction: every batch of a pass is awaited before the next pass).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import asyncio, sys, tempfile, os
from service.events.store import SqlEventStore, WriteBatch
K, R = int(sys.argv[1]), int(sys.argv[2])
seen = []

def row(g, seq):
    return {"game_id": g, "seq": seq, "type": "tiny.shot", "v": 1,
            "data": '{"shooter":"red","target":"blue","hit":true}', "rolls": "[4]", "turn": 3,
            "phase": "fire", "actor": "seat:red", "command_id": "c_0123456789abcdef",
            "recorded_at": "2026-12-02T10:00:00.123456Z", "dice": '{"slot":"ab12","face":4}'}

async def main():
    d = tempfile.mkdtemp()
    store = SqlEventStore(f"sqlite:///{d}/w.sqlite")
    store.start()
    store.observe_write = seen.append
    store.observe_group = seen.append
    seq = 0
    for _ in range(R):
        seq += 1
        futures = [store.submit(WriteBatch(f"g{k}", [row(f"g{k}", seq)])) for k in range(K)]
        for f in futures:
            await f
        del seen[:]
    store.close()

import uvloop
uvloop.run(main())
"""


def instructions(checkout: Path, k: int, r: int) -> int:
    with tempfile.TemporaryDirectory() as work:
        out = Path(work) / "cg.out"
        env = {**os.environ, "PYTHONPATH": str(checkout), "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0"}
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-c", CHILD,
                        str(k), str(r)], cwd=checkout, env=env, check=True, capture_output=True)
        for line in out.read_text(errors="replace").splitlines():
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    raise RuntimeError("no totals")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--before", default=None)
    p.add_argument("--groups", default="1,5,20")
    p.add_argument("--passes", type=int, default=100)
    args = p.parse_args()
    checkouts = ([("before", Path(args.before))] if args.before else []) + [("after", ROOT)]
    print("| checkout | K | instructions per batch |\n|---|---:|---:|")
    for k in map(int, args.groups.split(",")):
        r = max(args.passes // k, 10) if k > 1 else args.passes
        for label, checkout in checkouts:
            small, large = instructions(checkout, k, r), instructions(checkout, k, 6 * r)
            print(f"| {label} | {k} | {(large - small) / (5 * r * k):,.0f} |", flush=True)


if __name__ == "__main__":
    main()
