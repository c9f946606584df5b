"""Server instructions per websocket command, real sockets, load-proof: `python -m service serve` under
callgrind (instrumented only inside the window), the shared harness's `commands --transport ws
--workload shoot` client; the window's instructions (every thread, user space: no kernel time) ÷ the
calls of websockets' ``apply_mask`` in it (one per message the server reads).

    .venv/bin/python bench/bench_ws_callgrind.py                       # this checkout, 10 games
    .venv/bin/python bench/bench_ws_callgrind.py --before /tmp/base --games 10

Slow (the server runs ~50× slower; a run takes ~1.5 min); the group commit's batches are larger than
at full speed, so the figure compares checkouts, it is not the harness's CPU per command.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from servers import ROOT, SERVER_ENV, free_port, healthy, pinned  # noqa: E402

CLIENT = HERE / "peer" / "salvo_client.py"


def per_command(dump: Path) -> tuple[int, int]:
    """(instructions, apply_mask calls) of a callgrind dump."""
    names: dict[str, str] = {}
    total, calls, callee = 0, 0, ""
    for line in dump.read_text(errors="replace").splitlines():
        if line.startswith(("summary:", "totals:")):
            total = int(line.split()[1])
        elif m := re.match(r"c?fn=\((\d+)\)(?: (.*))?", line):
            if m.group(2):
                names[m.group(1)] = m.group(2).strip()
            if line.startswith("cfn="):
                callee = names.get(m.group(1), "")
        elif line.startswith("calls=") and callee == "apply_mask":
            calls += int(line[6:].split()[0])
    return total, calls


def run(checkout: Path, label: str, args: argparse.Namespace, work: Path) -> str:
    port = free_port()
    db = work / f"{label}.sqlite"
    out = work / f"callgrind.{label}.out"
    env = {**os.environ, **SERVER_ENV, "PYTHONPATH": str(checkout), "PYTHONDONTWRITEBYTECODE": "1"}
    with open(work / f"server-{label}.log", "w") as log:
        proc = subprocess.Popen(
            [*pinned("0"), "valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}",
             sys.executable, "-m", "service", "serve", "--host", "127.0.0.1", "--port", str(port),
             "--database-url", f"sqlite:///{db}", "--log-level", "warning"],
            cwd=checkout, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            for _ in range(3000):
                if healthy(port):
                    break
                time.sleep(0.1)
            client = subprocess.Popen(
                [*pinned("1"), sys.executable, str(CLIENT), "commands", "--games", str(args.games), "--seconds", "60",
                 "--warmup", "5", "--port", str(port), "--server-pid", str(proc.pid)],
                cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                time.sleep(12)  # connected, warmed up
                subprocess.run(["callgrind_control", "-i", "on", str(proc.pid)], check=True, capture_output=True)
                time.sleep(args.seconds)
                subprocess.run(["callgrind_control", "-d", str(proc.pid)], check=True, capture_output=True)
            finally:
                client.kill()
                client.wait()
        finally:
            proc.terminate()
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    total, calls = per_command(Path(f"{out}.1"))
    return f"| {label} | {calls} | {total:,} | {total / max(calls, 1):,.0f} |"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--before", default=None)
    p.add_argument("--games", type=int, default=10)
    p.add_argument("--seconds", type=float, default=20.0, help="the instrumented window")
    args = p.parse_args()
    work = Path(tempfile.mkdtemp(prefix="salvo-ws-callgrind-"))
    rows = [run(Path(args.before), "before", args, work)] if args.before else []
    rows.append(run(ROOT, "after", args, work))
    print("| checkout | commands | instructions | instructions/command |\n|---|---:|---:|---:|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
