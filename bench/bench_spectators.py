"""Spectator fan-out: N spectators watching one game at 20 events/s — delivery latency (command sent →
event read by each spectator), server CPU, server memory per spectator — for one checkout or two
(before/after) in one sitting.

    .venv/bin/python bench/bench_spectators.py                          # this checkout, 1,000 / 5,000 / max
    .venv/bin/python bench/bench_spectators.py --before /work/main      # main first, then this checkout
    .venv/bin/python bench/bench_spectators.py --spectators 1000,5000 --json out.json
    .venv/bin/python bench/bench_spectators.py --processes 1,2 --spectators 5000   # needs Redis (REDIS_URL)

Each run: a fresh server (`python -m service serve`, SQLite, rate limits off) pinned to CPU 0, the load
generator `bench/peer/salvo_client.py fanout` (the shared peer harness's workload: one seat's socket
sends 200 rolled shots at 20/s, every spectator joins at the head) pinned to CPU 1. The file-descriptor
limit is raised to its hard limit first (a spectator is one socket on each side), so "max" is that
limit less some headroom. Foreign CPU (every other process) is recorded per run: the machine is shared.

``--processes 2``: two servers on one database linked by Redis (``REDIS_URL``, default
redis://127.0.0.1:6379/0): the seat's socket on the first (the command path, CPU 0), every spectator on
the second (sockets only, CPU 1, fed with the frames Redis carries); the generator then runs unpinned.
"server CPU" is the spectator process; the command process's CPU is the column beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from peer_table import ROOT, SERVER_ENV, Server, free_port, pinned  # noqa: E402

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


class LinkedServer(Server):
    """A server on a given database with extra environment (Redis), for the two-process runs."""

    def __init__(self, work: Path, name: str, cpu: str, checkout: Path, db: Path, env: dict[str, str]) -> None:
        self.port = free_port()
        self.log = open(work / f"server-{name}.log", "w")  # noqa: SIM115 - closed in stop()
        full = {**os.environ, **SERVER_ENV, **env, "PYTHONPATH": str(checkout), "PYTHONDONTWRITEBYTECODE": "1"}
        self.proc = subprocess.Popen(
            [*pinned(cpu), sys.executable, "-m", "service", "serve", "--host", "127.0.0.1", "--port", str(self.port),
             "--database-url", f"sqlite:///{db}", "--log-level", "warning"],
            cwd=checkout, env=full, stdout=self.log, stderr=subprocess.STDOUT)
        for _ in range(300):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=1).read()
                return
            except OSError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"server did not come up; see {self.log.name}")


def run_two(work: Path, checkout: Path, label: str, spectators: int, moves: int, rate: float,
            redis_url: str) -> dict[str, Any]:
    name = f"{label}-P2-S{spectators}"
    db = work / f"{name}.sqlite"
    env = {"REDIS_URL": redis_url}
    command = LinkedServer(work, f"{name}-commands", "0", checkout, db, env)
    sockets = None
    try:
        sockets = LinkedServer(work, f"{name}-sockets", "1", checkout, db, env)
        out = work / f"{name}.json"
        subprocess.run(
            [sys.executable, str(CLIENT), "fanout", "--spectators", str(spectators), "--moves", str(moves),
             "--rate", str(rate), "--batch", "100", "--grace", "20", "--port", str(command.port),
             "--server-pid", str(command.proc.pid), "--spectator-port", str(sockets.port),
             "--spectator-pid", str(sockets.proc.pid), "--label", name, "--out", str(out)],
            cwd=ROOT, timeout=900, capture_output=True, text=True, check=False)
        if not out.exists():
            return {"label": name, "error": "no result"}
        return dict(json.loads(out.read_text()))
    finally:
        if sockets is not None:
            sockets.stop()
        command.stop()


def row(label: str, r: dict[str, Any]) -> str:
    if "error" in r:
        return f"| {label} | {r['label']} | failed: {r['error'][-120:]!r} |"
    lat = r["deliveryLatencyMs"]
    delivered = max(1, r["deliveriesExpected"] - r["deliveriesMissing"])
    cpu_us = r["serverCpuPct"] / 100 * r["seconds"] * 1e6 / delivered  # server CPU per delivery
    user_us = r.get("serverUserPct", 0) / 100 * r["seconds"] * 1e6 / delivered  # of which in user space
    return (f"| {label} | {r['connected']:,} | {r['achievedRate']} | {lat['p50']} | {lat['p99']} | {lat['max']} | "
            f"{r['fanoutCompleteMs']['p99']} | {r['deliveriesMissing']:,} | {r['closedDuringRun']} | "
            f"{r['serverCpuPct']} | {r.get('commandServerCpuPct', '–')} | {cpu_us:.1f} ({user_us:.1f} user) | "
            f"{r['rssPerSpectatorKB']} | "
            f"{r['clientCpuPct']} | {r['foreignCpuPct']} |")


HEADER = ("| checkout | spectators | events/s held | p50 ms | p99 ms | max ms | all-reached p99 ms | missing "
          "| closed | server CPU % | command process CPU % | server µs/delivery | KB/spectator | generator CPU % "
          "| foreign CPU % |\n"
          "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--spectators", default="1000,5000,max", help="comma list; 'max' = the fd limit less headroom")
    p.add_argument("--before", default=None, help="another checkout to measure first (e.g. /work/main)")
    p.add_argument("--moves", type=int, default=200)
    p.add_argument("--rate", type=float, default=20.0)
    p.add_argument("--json", default=None, help="write every result here")
    p.add_argument("--processes", default="1", help="1, 2 or 1,2 (2: spectators on a second process)")
    a = p.parse_args()
    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    processes = [int(x) for x in a.processes.split(",")]
    limit = raise_fd_limit()
    counts = [limit - 500 if s == "max" else int(s) for s in a.spectators.split(",")]
    print(f"file descriptors: {limit}; spectators: {counts}", flush=True)
    work = Path(tempfile.mkdtemp(prefix="salvo-spectators-"))
    checkouts = ([("before", Path(a.before).resolve())] if a.before else []) + [("after", ROOT)]
    results: dict[str, list[dict[str, Any]]] = {label: [] for label, _ in checkouts}
    lines = [HEADER]
    for n in counts:  # before and after side by side for each N: the machine's load drifts less between them
        for label, checkout in checkouts:
            for procs in processes:
                print(f">>> {label} ({checkout}) with {n} spectators, {procs} process(es)", flush=True)
                if procs == 1:
                    r = run_one(work, checkout, label, n, a.moves, a.rate)
                else:
                    r = run_two(work, checkout, label, n, a.moves, a.rate, redis_url)
                results[label].append(r)
                lines.append(row(f"{label}, {procs} process{'es' if procs > 1 else ''}", r))
                print(lines[-1], flush=True)
    print("\n" + "\n".join(lines))
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1) + "\n")
    print(f"\nresults in {work}/")


if __name__ == "__main__":
    main()
