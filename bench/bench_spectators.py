"""Spectator fan-out: N spectators watching one game at 20 events/s — delivery latency (command sent →
event read by each spectator), server CPU, server memory per spectator — for one checkout or two
(before/after) in one sitting.

    .venv/bin/python bench/bench_spectators.py                          # this checkout, 1,000 / 5,000 / max
    .venv/bin/python bench/bench_spectators.py --before /work/main      # main first, then this checkout
    .venv/bin/python bench/bench_spectators.py --spectators 1000,5000 --json out.json

Each run: a fresh server (`python -m service serve`, SQLite, rate limits off) pinned to CPU 0, the load
generator `bench/peer/salvo_client.py fanout` (the shared peer harness's workload: one seat's socket
sends 200 rolled shots at 20/s, every spectator joins at the head) pinned to CPU 1. The file-descriptor
limit is raised to its hard limit first (a spectator is one socket on each side), so "max" is that
limit less some headroom. Foreign CPU (every other process) is recorded per run: the machine is shared.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from peer_table import ROOT, Server, pinned  # noqa: E402

CLIENT = HERE / "peer" / "salvo_client.py"


def raise_fd_limit() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def run_one(work: Path, checkout: Path, label: str, spectators: int, moves: int, rate: float,
            env: dict[str, str] | None = None) -> dict[str, Any]:
    name = f"{label}-S{spectators}"
    server = Server(work, name, "0", checkout)
    out = work / f"{name}.json"
    try:
        done = subprocess.run(
            [*pinned("1"), sys.executable, str(CLIENT), "fanout", "--spectators", str(spectators),
             "--moves", str(moves), "--rate", str(rate), "--batch", "100", "--grace", "20",
             "--port", str(server.port), "--server-pid", str(server.proc.pid), "--label", name, "--out", str(out)],
            cwd=ROOT, timeout=900, capture_output=True, text=True, check=False, env=env)
        if not out.exists():
            return {"label": name, "error": (done.stderr or done.stdout)[-800:]}
        return dict(json.loads(out.read_text()))
    finally:
        server.stop()


def row(label: str, r: dict[str, Any]) -> str:
    if "error" in r:
        return f"| {label} | {r['label']} | failed: {r['error'][-120:]!r} |"
    lat = r["deliveryLatencyMs"]
    return (f"| {label} | {r['connected']:,} | {r['achievedRate']} | {lat['p50']} | {lat['p99']} | {lat['max']} | "
            f"{r['fanoutCompleteMs']['p99']} | {r['deliveriesMissing']:,} | {r['closedDuringRun']} | "
            f"{r['serverCpuPct']} | {r['rssPerSpectatorKB']} | {r['clientCpuPct']} | {r['foreignCpuPct']} |")


HEADER = ("| checkout | spectators | events/s held | p50 ms | p99 ms | max ms | all-reached p99 ms | missing "
          "| closed | server CPU % | KB/spectator | generator CPU % | foreign CPU % |\n"
          "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--spectators", default="1000,5000,max", help="comma list; 'max' = the fd limit less headroom")
    p.add_argument("--before", default=None, help="another checkout to measure first (e.g. /work/main)")
    p.add_argument("--moves", type=int, default=200)
    p.add_argument("--rate", type=float, default=20.0)
    p.add_argument("--json", default=None, help="write every result here")
    a = p.parse_args()
    limit = raise_fd_limit()
    counts = [limit - 500 if s == "max" else int(s) for s in a.spectators.split(",")]
    print(f"file descriptors: {limit}; spectators: {counts}", flush=True)
    work = Path(tempfile.mkdtemp(prefix="salvo-spectators-"))
    checkouts = ([("before", Path(a.before).resolve())] if a.before else []) + [("after", ROOT)]
    results: dict[str, list[dict[str, Any]]] = {label: [] for label, _ in checkouts}
    lines = [HEADER]
    for n in counts:  # before and after side by side for each N: the machine's load drifts less between them
        for label, checkout in checkouts:
            print(f">>> {label} ({checkout}) with {n} spectators", flush=True)
            r = run_one(work, checkout, label, n, a.moves, a.rate)
            results[label].append(r)
            lines.append(row(label, r))
            print(lines[-1], flush=True)
    print("\n" + "\n".join(lines))
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1) + "\n")
    print(f"\nresults in {work}/")


if __name__ == "__main__":
    main()
