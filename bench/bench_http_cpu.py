"""Server CPU per POST /commands (and per websocket command, for the comparison), before/after, A/B
interleaved in one sitting: a figure that holds on a loaded machine (CPU time, not wall time).

    .venv/bin/python bench/bench_http_cpu.py --before /work/main --games 10 50 --rounds 3
    .venv/bin/python bench/bench_http_cpu.py --transports http ws --games 50

Each run: a fresh server (`python -m service serve`, SQLite, rate limits off) pinned to CPU 0; the
shared harness's closed-loop `commands` workload (`bench/peer/salvo_client.py --transport http|ws`,
tiny.shoot, one client per game) pinned to CPU 1; server utime+stime over the measured window ÷ the
commands answered in it. Rounds alternate the checkouts (before, after, before, after, ...); the table
gives each checkout's median and lowest µs/command and its median rate (the rate depends on the load).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from servers import ROOT, Server, pinned  # noqa: E402

CLIENT = HERE / "peer" / "salvo_client.py"


def one(checkout: Path, label: str, transport: str, games: int, seconds: float, work: Path) -> dict[str, Any]:
    load = os.getloadavg()[0]
    server = Server(work, f"{label}-{transport}-{games}", "0", checkout)
    try:
        out = work / f"{label}-{transport}-{games}.json"
        out.unlink(missing_ok=True)
        subprocess.run([*pinned("1"), sys.executable, str(CLIENT), "commands", "--transport", transport,
                        "--games", str(games), "--seconds", str(seconds), "--warmup", "2",
                        "--port", str(server.port), "--server-pid", str(server.pid), "--out", str(out)],
                       cwd=ROOT, timeout=600, capture_output=True, check=False)
        result = json.loads(out.read_text()) if out.exists() else {}
    finally:
        server.stop()
    ops = result.get("commands") or 0
    cpu = result.get("serverCpuPct", 0) / 100 * result.get("seconds", 0)
    return {"label": label, "transport": transport, "games": games, "load": round(load, 2), "commands": ops,
            "errors": result.get("errors"), "perSec": result.get("perSec"),
            "foreign": result.get("foreignCpuPct"), "us": round(cpu / ops * 1e6, 1) if ops else None}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--before", default=None, help="another checkout, run in alternation with this one")
    p.add_argument("--after", default=str(ROOT), help="the checkout measured as after (default: this one)")
    p.add_argument("--games", type=int, nargs="+", default=[10, 50])
    p.add_argument("--transports", nargs="+", default=["http"], choices=["http", "ws"])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seconds", type=float, default=8.0)
    a = p.parse_args()
    work = Path(tempfile.mkdtemp(prefix="salvo-http-cpu-"))
    checkouts = [("before", Path(a.before).resolve())] if a.before else []
    checkouts.append(("after", Path(a.after).resolve()))
    rows: list[dict[str, Any]] = []
    for _ in range(a.rounds):
        for transport in a.transports:
            for games in a.games:
                for label, checkout in checkouts:
                    row = one(checkout, label, transport, games, a.seconds, work)
                    print(json.dumps(row), flush=True)
                    rows.append(row)
    print("\n| transport | games | checkout | runs | µs/command median | lowest | commands/s median | load |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for transport in a.transports:
        for games in a.games:
            for label, _ in checkouts:
                mine = [r for r in rows if (r["label"], r["transport"], r["games"]) == (label, transport, games)
                        and r["us"] is not None]
                if not mine:
                    continue
                us = [r["us"] for r in mine]
                print(f"| {transport} | {games} | {label} | {len(mine)} | {statistics.median(us):.1f} | "
                      f"{min(us):.1f} | {statistics.median(r['perSec'] for r in mine):,.0f} | "
                      f"{statistics.median(r['load'] for r in mine):.1f} |")
    (work / "rows.json").write_text(json.dumps(rows, indent=1))
    print(f"\nrows in {work}/rows.json")


if __name__ == "__main__":
    main()
