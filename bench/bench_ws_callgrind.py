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

``--in-process`` measures the cycle without sockets or SQLite: the service on its memory store,
``handle_command`` for each command of ``CYCLE``, one process under callgrind for 20 cycles and one for 120,
and the difference ÷ 100 (start-up cancels out). No batching varies between runs: the figure repeats to a
few hundred instructions, so a change of dice or decide code shows in it that the websocket rows' ±1 M hide.
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


IN_PROCESS = """
import asyncio, sys, msgspec
sys.path.insert(0, {bench!r})
from peer.salvo_client import CYCLE
from service.domain.core import seat
from service.domain.core.registry import register_ruleset
from service.events.application import GameService
from service.events.memory_store import MemoryEventStore
from tests.support import tiny
register_ruleset("tiny", tiny.OPEN_DICE_RULESET if {open_dice!r} else tiny.RULESET)

async def main(cycles):
    service = GameService(MemoryEventStore())
    gid = (await service.create_game("tiny", "long")).game_id
    bodies = [(who, msgspec.json.encode({{"command": c, "salt": "s"}})) for who, c in CYCLE]
    for _ in range(cycles):
        for who, body in bodies:
            await service.handle_command(gid, seat(who), body)
            await asyncio.sleep(0)  # the event loop turns between commands, as a server's does

asyncio.run(main(int(sys.argv[1])))
"""


def in_process(checkout: Path, label: str, args: argparse.Namespace, work: Path) -> str:
    """Instructions per cycle on the memory store: (120 cycles - 20 cycles) / 100."""
    script = work / f"cycle-{label}.py"
    script.write_text(IN_PROCESS.format(bench=str(HERE), open_dice=args.open_dice))
    env = {**os.environ, "PYTHONPATH": str(checkout), "PYTHONDONTWRITEBYTECODE": "1"}
    totals = []
    for cycles in (20, 120):
        out = work / f"callgrind.{label}.{cycles}.out"
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, str(script), str(cycles)],
            cwd=checkout,
            env=env,
            check=True,
            capture_output=True,
        )
        totals.append(per_command(out)[0])
    per_cycle = (totals[1] - totals[0]) / 100
    workload = "cycle, in process" + (" (open dice)" if args.open_dice else "")
    return f"| {label} | {workload} | 800 | {totals[1] - totals[0]:,} | {per_cycle / 8:,.0f} | {per_cycle:,.0f} |"


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
    p.add_argument(
        "--in-process",
        action="store_true",
        help="the turn cycle on the memory store, no sockets or SQLite (implies --workload cycle)",
    )
    args = p.parse_args()
    work = Path(tempfile.mkdtemp(prefix="salvo-ws-callgrind-"))
    print(f"dumps and server logs: {work}")
    measure = in_process if args.in_process else run
    if args.in_process:
        args.workload = "cycle"
    rows = [measure(Path(args.before), "before", args, work)] if args.before else []
    rows.append(measure(ROOT, "after", args, work))
    cycle = (" instructions/cycle |", "---:|") if args.workload == "cycle" else ("", "")
    print(
        f"| checkout | workload | commands | instructions | instructions/command |{cycle[0]}\n"
        f"|---|---|---:|---:|---:|{cycle[1]}"
    )
    print("\n".join(rows))


if __name__ == "__main__":
    main()
