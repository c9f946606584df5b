"""Spectator fan-out: N spectators watching one game at 20 events/s — delivery latency (command sent →
event read by each spectator), server CPU, server memory per spectator — for one checkout or two
(before/after) in one sitting, on one process or on socket processes beside the command process.

    .venv/bin/python bench/bench_spectators.py                          # this checkout, 1,000 / 5,000 / max
    .venv/bin/python bench/bench_spectators.py --before /work/main      # main first, then this checkout
    .venv/bin/python bench/bench_spectators.py --spectators 1000,5000 --json out.json
    .venv/bin/python bench/bench_spectators.py --sockets 0,1,2 --spectators 5000,20000   # needs Redis (REDIS_URL)

Each run: a fresh server (`python -m service serve`, SQLite, rate limits off) pinned to CPU 0, the load
generator `bench/peer/salvo_client.py fanout` (the shared peer harness's workload: one seat's socket
sends 200 rolled shots at 20/s, every spectator joins at the head) pinned to CPU 1. The file-descriptor
limit is raised to its hard limit first (a spectator is one socket on each side), so "max" is that
limit less some headroom. Foreign CPU (every other process) is recorded per run: the machine is shared.

``--sockets N`` (N ≥ 1): bench/topology.py's processes without its front (the generator connects
straight to the socket port, so nginx's relay is not measured): the command process takes the seat's
socket (CPU 0), N socket processes share one SO_REUSEPORT port and take every spectator (the kernel
spreads them), fed with the frames Redis carries, each subscribed to the game only while it has a
spectator of it. N = 1 pins the socket process to CPU 1; N ≥ 2 and the generator run unpinned. "server
CPU" is then the socket processes' sum; the command process's CPU is the column beside it.
``--sockets 0`` is the one process of the first paragraph (``--processes 1,2`` still means 0,1).
``--front``: the spectators connect through the topology's nginx instead (its worker's CPU and RSS are
added to the server's: the relay's cost per delivery is the difference from a run without it).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from servers import ROOT, Server, pinned  # noqa: E402
from topology import Topology  # noqa: E402

CLIENT = HERE / "peer" / "salvo_client.py"


def raise_fd_limit() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def generate(work: Path, name: str, spectators: int, moves: int, rate: float, port: int, pid: int, cpu: str | None,
             spectator_port: int | None = None, spectator_pids: list[int] | None = None) -> dict[str, Any]:
    out = work / f"{name}.json"
    extra = ["--spectator-port", str(spectator_port), "--spectator-pid", ",".join(map(str, spectator_pids or []))] \
        if spectator_port else []
    done = subprocess.run(
        [*pinned(cpu), sys.executable, str(CLIENT), "fanout", "--spectators", str(spectators),
         "--moves", str(moves), "--rate", str(rate), "--batch", "100", "--grace", "20",
         "--port", str(port), "--server-pid", str(pid), *extra, "--label", name, "--out", str(out)],
        cwd=ROOT, timeout=900, capture_output=True, text=True, check=False)
    if not out.exists():
        return {"label": name, "error": (done.stderr or done.stdout)[-800:]}
    result = dict(json.loads(out.read_text()))
    result["load"] = os.getloadavg()
    return result


def run_one(work: Path, checkout: Path, label: str, spectators: int, moves: int, rate: float) -> dict[str, Any]:
    name = f"{label}-S{spectators}"
    server = Server(work, name, "0", checkout)
    try:
        return generate(work, name, spectators, moves, rate, server.port, server.pid, "1")
    finally:
        server.stop()


def run_split(work: Path, checkout: Path, label: str, spectators: int, moves: int, rate: float,
              redis_url: str, sockets: int, front: bool = False) -> dict[str, Any]:
    name = f"{label}-K{sockets}{'-front' if front else ''}-S{spectators}"
    cpus: list[str | None] = ["0", "1"] if sockets == 1 else [None]
    top = Topology(work / name, sockets, redis_url=redis_url, front="nginx" if front else "none",
                   checkout=checkout, cpus=cpus)
    try:
        if front:  # spectators through nginx: its workers' CPU and memory count as the server's
            return generate(work, name, spectators, moves, rate, top.command.port, top.command.pid, None,
                            top.port, top.pids + top.front_pids)
        return generate(work, name, spectators, moves, rate, top.command.port, top.command.pid, None,
                        top.socket_port, top.pids)
    finally:
        top.stop()


def row(label: str, r: dict[str, Any]) -> str:
    if "error" in r:
        return f"| {label} | {r['label']} | failed: {r['error'][-120:]!r} |"
    lat = r["deliveryLatencyMs"]
    delivered = max(1, r["deliveriesExpected"] - r["deliveriesMissing"])
    cpu_us = r["serverCpuPct"] / 100 * r["seconds"] * 1e6 / delivered  # server CPU per delivery
    user_us = r.get("serverUserPct", 0) / 100 * r["seconds"] * 1e6 / delivered  # of which in user space
    load = f"{r['load'][0]:.1f}" if r.get("load") else "–"
    return (f"| {label} | {r['connected']:,} | {r['connectAllMs'] / 1000:.1f} | {r['achievedRate']} | "
            f"{r['deliveriesPerSec']:,} | {lat['p50']} | {lat['p99']} | {lat['max']} | "
            f"{r['fanoutCompleteMs']['p99']} | {r['deliveriesMissing']:,} | {r['closedDuringRun']} | "
            f"{r['serverCpuPct']} | {r.get('commandServerCpuPct', '–')} | {cpu_us:.1f} ({user_us:.1f} user) | "
            f"{r['rssPerSpectatorKB']} | "
            f"{r['clientCpuPct']} | {r['foreignCpuPct']} | {load} |")


HEADER = ("| checkout, layout | spectators | connect all s | events/s held | deliveries/s | p50 ms | p99 ms | max ms "
          "| all-reached p99 ms | missing | closed | server CPU % | command process CPU % | server µs/delivery "
          "| KB/spectator | generator CPU % | foreign CPU % | load (1 min) |\n"
          "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--spectators", default="1000,5000,max", help="comma list; 'max' = the fd limit less headroom")
    p.add_argument("--before", default=None, help="another checkout to measure first (e.g. /work/main)")
    p.add_argument("--moves", type=int, default=200)
    p.add_argument("--rate", type=float, default=20.0)
    p.add_argument("--json", default=None, help="write every result here")
    p.add_argument("--sockets", default="0", help="comma list of socket-process counts; 0 = one process for all")
    p.add_argument("--processes", default=None, help="the older form: 1 = --sockets 0, 2 = --sockets 1")
    p.add_argument("--front", action="store_true",
                   help="with --sockets N: spectators through the nginx front (its CPU and RSS counted in)")
    a = p.parse_args()
    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    layouts = ([int(x) - 1 for x in a.processes.split(",")] if a.processes
               else [int(x) for x in a.sockets.split(",")])
    limit = raise_fd_limit()
    counts = [limit - 500 if s == "max" else int(s) for s in a.spectators.split(",")]
    print(f"file descriptors: {limit}; spectators: {counts}", flush=True)
    work = Path(tempfile.mkdtemp(prefix="salvo-spectators-"))
    checkouts = ([("before", Path(a.before).resolve())] if a.before else []) + [("after", ROOT)]
    results: dict[str, list[dict[str, Any]]] = {label: [] for label, _ in checkouts}
    lines = [HEADER]
    for n in counts:  # before and after side by side for each N: the machine's load drifts less between them
        for label, checkout in checkouts:
            for sockets in layouts:
                layout = "1 process" if sockets == 0 else f"command + {sockets} socket process{'es' * (sockets > 1)}"
                layout += ", via nginx" if a.front and sockets else ""
                print(f">>> {label} ({checkout}) with {n} spectators, {layout}", flush=True)
                if sockets == 0:
                    r = run_one(work, checkout, label, n, a.moves, a.rate)
                else:
                    r = run_split(work, checkout, label, n, a.moves, a.rate, redis_url, sockets, a.front)
                r["layout"] = layout
                results[label].append(r)
                lines.append(row(f"{label}, {layout}", r))
                print(lines[-1], flush=True)
    print("\n" + "\n".join(lines))
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1) + "\n")
    print(f"\nresults in {work}/")


if __name__ == "__main__":
    main()
