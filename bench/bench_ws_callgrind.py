"""Server instructions per websocket command, real sockets, load-proof: `python -m service serve` under
callgrind (instrumented only inside the window), the shared harness's `commands --transport ws
--workload shoot` client; the window's instructions (every thread, user space: no kernel time) ÷ the
calls of websockets' ``apply_mask`` in it (one per message the server reads).

    .venv/bin/python bench/bench_ws_callgrind.py                       # this checkout, 10 games
    .venv/bin/python bench/bench_ws_callgrind.py --before /tmp/base --games 10
    .venv/bin/python bench/bench_ws_callgrind.py --workload cycle        # the harness's turn cycle (issue 37)

``--workload cycle`` plays the peer harness's turn cycle (bench/peer/salvo_client.py ``CYCLE``: eight
commands, two of them turn changes that reveal a turn's dice and commit the next's); instructions per
cycle are eight times those per command. ``--profile N`` prints the window's N costliest functions
(their own instructions, per command) from ``callgrind_annotate``. ``--open-dice`` serves the tiny ruleset with its dice
open (tests/support/tiny.py ``OPEN_DICE_RULESET``): turns commit as an open-information game's (GSC2,
Starfinder) do, with no Merkle tree.

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
    if args.open_dice:
        env["SALVO_RULESETS"] = "tiny=tests.support.tiny:OPEN_DICE_RULESET"
    with open(work / f"server-{label}.log", "w") as log:
        proc = subprocess.Popen(
            [
                *pinned("0"),
                "valgrind",
                "--tool=callgrind",
                "--instr-atstart=no",
                f"--callgrind-out-file={out}",
                sys.executable,
                "-m",
                "service",
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--database-url",
                f"sqlite:///{db}",
                "--log-level",
                "warning",
            ],
            cwd=checkout,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            for _ in range(3000):
                if healthy(port):
                    break
                time.sleep(0.1)
            client = subprocess.Popen(
                [
                    *pinned("1"),
                    sys.executable,
                    str(CLIENT),
                    "commands",
                    "--games",
                    str(args.games),
                    "--seconds",
                    "60",
                    "--warmup",
                    "5",
                    "--workload",
                    args.workload,
                    "--port",
                    str(port),
                    "--server-pid",
                    str(proc.pid),
                ],
                cwd=ROOT,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
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
    if args.profile:
        print(f"## {label}: the costliest functions, their own instructions per command")
        print(top_functions(Path(f"{out}.1"), calls, args.profile))
    cycle = f" | {8 * total / max(calls, 1):,.0f}" if args.workload == "cycle" else ""
    workload = args.workload + (" (open dice)" if args.open_dice else "")
    return f"| {label} | {workload} | {calls} | {total:,} | {total / max(calls, 1):,.0f}{cycle} |"


def top_functions(dump: Path, calls: int, n: int) -> str:
    """The ``n`` functions of the dump with the most instructions of their own, per command read."""
    text = subprocess.run(
        ["callgrind_annotate", "--threshold=100", str(dump)], capture_output=True, text=True, check=False
    ).stdout
    rows = []
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+) \(\s*([\d.]+)%\)\s+(.*)", line)
        if m and "PROGRAM TOTALS" not in line:
            cost = int(m.group(1).replace(",", "")) / max(calls, 1)
            rows.append(f"{cost:>12,.0f}  {m.group(2):>5}%  {m.group(3)[:110]}")
    return "\n".join(rows[:n])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--before", default=None)
    p.add_argument("--games", type=int, default=10)
    p.add_argument("--seconds", type=float, default=20.0, help="the instrumented window")
    p.add_argument(
        "--workload",
        choices=["shoot", "cycle"],
        default="shoot",
        help="the harness's single shots, or its eight-command turn cycle",
    )
    p.add_argument("--open-dice", action="store_true", help="tiny with open dice (an open-information game's turns)")
    p.add_argument("--profile", type=int, default=0, metavar="N", help="print the N costliest functions")
    args = p.parse_args()
    work = Path(tempfile.mkdtemp(prefix="salvo-ws-callgrind-"))
    print(f"dumps and server logs: {work}")
    rows = [run(Path(args.before), "before", args, work)] if args.before else []
    rows.append(run(ROOT, "after", args, work))
    cycle = (" instructions/cycle |", "---:|") if args.workload == "cycle" else ("", "")
    print(
        f"| checkout | workload | commands | instructions | instructions/command |{cycle[0]}\n"
        f"|---|---|---:|---:|---:|{cycle[1]}"
    )
    print("\n".join(rows))


if __name__ == "__main__":
    main()
