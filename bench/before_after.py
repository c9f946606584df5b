"""Before/after in one sitting: the same Salvo scenarios (bench/peer_table.py: fresh server pinned to
CPU 0, generator on CPU 1) against two checkouts, alternating scenario by scenario so that both see the
same machine, then the comparison table and the plots (bench/plot_bench.py).

    .venv/bin/python bench/before_after.py --before /tmp/salvo-main --peer RESULTS.md --out /tmp/ba \\
        [--after .] [--groups commands,busy,catchup] [--seconds 10] [--py-spy .venv/bin/py-spy] [--plots docs/bench]

Each group is one peer_table.py run per checkout (``--only GROUP --match REGEX``); results land in
OUT/before and OUT/after, each with the peer's figures copied beside them.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# (peer_table --only, --match): the shared harness's command rows, the busy game, the joins
GROUPS = {
    "commands": [("commands", r"shoot-K1$"), ("commands", r"shoot-K10$"), ("commands", r"shoot-K50$")],
    "busy": [("busy", r"busy-C1$"), ("busy", r"busy-C8$"), ("busy", r"busy-C32$")],
    "catchup": [("catchup", r"catchup")],
}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--before", required=True, help="the checkout to compare against (e.g. main)")
    p.add_argument("--after", default=str(ROOT))
    p.add_argument("--peer", required=True, help="run.sh results dir, or its RESULTS.md")
    p.add_argument("--out", required=True)
    p.add_argument("--groups", default="commands,busy,catchup")
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--warmup", type=float, default=2.0)
    p.add_argument("--py-spy", default=None, help="profile the 50-game websocket row of both checkouts")
    p.add_argument("--plots", default=None, help="write the PNG plots here (bench/plot_bench.py)")
    a = p.parse_args()
    out = Path(a.out)
    for group in a.groups.split(","):
        for only, match in GROUPS[group]:
            for label, checkout in (("before", a.before), ("after", a.after)):
                cmd = [sys.executable, str(HERE / "peer_table.py"), "--peer", a.peer, "--only", only, "--match", match,
                       "--seconds", str(a.seconds), "--warmup", str(a.warmup), "--salvo-dir", checkout,
                       "--out", str(out / label)]
                if a.py_spy:
                    cmd += ["--py-spy", a.py_spy]
                print(f"=== {label}: {only} {match}", flush=True)
                subprocess.run(cmd, check=False, stdout=subprocess.DEVNULL)
    plot = [sys.executable, str(HERE / "plot_bench.py"), "--before", str(out / "before"), "--after", str(out / "after")]
    if a.plots:
        plot += ["--plots", a.plots]
    subprocess.run(plot, check=False)


if __name__ == "__main__":
    main()
