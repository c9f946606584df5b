"""Server CPU per websocket command and memory per idle spectator, for one checkout or two (before/after)
in one sitting: figures that hold on a loaded machine (CPU time, not wall time).

    .venv/bin/python bench/bench_ws_cpu.py                               # this checkout
    .venv/bin/python bench/bench_ws_cpu.py --before /tmp/base --games 10 --spectators 2000

Each run: a fresh server (`python -m service serve`, SQLite, rate limits off) pinned to CPU 0; the
shared harness's closed-loop `commands` workload (`bench/peer/salvo_client.py`, one socket per game,
own_events=result) pinned to CPU 1; server utime+stime (from /proc) over the measured window ÷ the
commands answered in it. Then `--spectators` sockets join a game and stay idle: RSS after − before,
÷ spectators. The load average is printed with each run: the machine is shared.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_spectators import raise_fd_limit  # noqa: E402
from peer_table import ROOT, Server, pinned  # noqa: E402

CLIENT = HERE / "peer" / "salvo_client.py"
CLK = os.sysconf("SC_CLK_TCK")


def ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


async def spectators(port: int, pid: int, count: int) -> float:
    import httpx
    from websockets.asyncio.client import connect

    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
        game = (await http.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"})).json()
    url = f"ws://127.0.0.1:{port}/v1/games/{game['game_id']}/stream"
    await asyncio.sleep(0.5)
    socks = []
    first = await connect(url, ping_interval=None)  # warm: the game's head is loaded before measuring
    await first.recv()
    await asyncio.sleep(0.5)
    base = rss_kb(pid)
    for i in range(0, count, 100):
        batch = await asyncio.gather(*(connect(url, ping_interval=None) for _ in range(min(100, count - i))))
        for ws in batch:
            while json.loads(await ws.recv())["kind"] != "caught_up":
                pass
        socks.extend(batch)
    await asyncio.sleep(1.0)
    per = (rss_kb(pid) - base) / count
    await asyncio.gather(*(ws.close() for ws in [first, *socks]))
    return per


def run(checkout: Path, label: str, args: argparse.Namespace, work: Path) -> dict[str, Any]:
    load = os.getloadavg()
    server = Server(work, f"{label}-cmd", "0", checkout)
    try:
        pid = server.proc.pid
        out = work / f"{label}.json"
        subprocess.run([*pinned("1"), sys.executable, str(CLIENT), "commands", "--games", str(args.games),
                        "--seconds", str(args.seconds), "--warmup", "2", "--port", str(server.port),
                        "--server-pid", str(pid), "--out", str(out)],
                       cwd=ROOT, timeout=600, capture_output=True, check=False)
        result = json.loads(out.read_text()) if out.exists() else {}
        ops = result.get("commands")
        cpu = result.get("serverCpuPct", 0) / 100 * result.get("seconds", 0)  # the measured window only
        per_spectator = asyncio.run(spectators(server.port, pid, args.spectators)) if args.spectators else None
    finally:
        server.stop()
    return {"label": label, "load": [round(x, 2) for x in load], "commands": ops,
            "commandsPerSecond": result.get("perSec"), "foreignCpuPct": result.get("foreignCpuPct"),
            "p99Ms": (result.get("latencyMs") or {}).get("p99"),
            "serverCpuSeconds": round(cpu, 2),
            "usPerCommand": round(cpu / ops * 1e6, 1) if ops else None,
            "kbPerSpectator": round(per_spectator, 1) if per_spectator is not None else None}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--before", default=None)
    p.add_argument("--games", type=int, default=10)
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--spectators", type=int, default=2000)
    args = p.parse_args()
    raise_fd_limit()
    work = Path(tempfile.mkdtemp(prefix="salvo-ws-cpu-"))
    rows = []
    if args.before:
        rows.append(run(Path(args.before), "before", args, work))
    rows.append(run(ROOT, "after", args, work))
    print("| checkout | load (1/5/15 min) | foreign CPU % | commands | commands/s | p99 ms | server CPU s | "
          "µs/command | KB/spectator |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['label']} | {'/'.join(map(str, r['load']))} | {r['foreignCpuPct']} | {r['commands']} | "
              f"{r['commandsPerSecond']} | "
              f"{r['p99Ms']} | {r['serverCpuSeconds']} | {r['usPerCommand']} | {r['kbPerSpectator']} |")
    (work / "rows.json").write_text(json.dumps(rows, indent=1))
    print(f"results in {work}")


if __name__ == "__main__":
    main()
