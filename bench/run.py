"""The maintained benchmarks, by name: what each measures and how to run it (docs/benchmarks.md has the
figures, the machine and what limits each row).

    .venv/bin/python bench/run.py                 # list them
    .venv/bin/python bench/run.py NAME [ARGS...]  # run one; ARGS go to its script (--help for its own)
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import NamedTuple

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


class Bench(NamedTuple):
    script: str  # relative to bench/
    what: str


BENCHES: dict[str, Bench] = {
    "peer": Bench(
        "peer/run.sh",
        "Salvo beside boardgame.io, every row of the side-by-side table (~25 min; "
        "npm ci in bench/peer/boardgameio first)",
    ),
    "peer-table": Bench(
        "peer_table.py",
        "Salvo's rows of the peer table alone, against an earlier run's results "
        "(--peer DIR), plus the busy-game rows (--only busy)",
    ),
    "ab": Bench(
        "ab_commands.sh",
        "A/B of websocket commands at 1 and 10 games between two checkouts, interleaved (DIR_BEFORE DIR_AFTER)",
    ),
    "ceiling": Bench(
        "k1_ideal.sh",
        "the command rows' ceiling here: an ideal server (no rules, one commit) beside "
        "boardgame.io and Salvo in the same minutes",
    ),
    "operations": Bench(
        "bench_salvo.py",
        "fold rate, ?at= latency, commands over HTTP and the websocket, reconnect bytes (--quick: ~1 min)",
    ),
    "costs": Bench("bench_costs.py", "per-operation costs docs/capacity.md computes with (SQLite, PostgreSQL, Redis)"),
    "spectators": Bench(
        "bench_spectators.py",
        "spectator fan-out at 1,000 / 5,000 / more, one process or socket processes (--before DIR for an A/B)",
    ),
    "slow-consumer": Bench("bench_slow_consumer.py", "the others' latency with one stalled websocket reader"),
    "memory": Bench("bench_memory.py", "server memory over 20,000 games (the head and token caches' bounds)"),
    "notify-latency": Bench(
        "notify_latency.py",
        "a move's notification at a local webhook receiver, and the "
        "command rate of a watched game beside an unwatched one",
    ),
    "long-games": Bench(
        "long_games.py", "battle files of 10,000 and 100,000 events per ruleset, imported into a real server"
    ),
    "real-play": Bench(
        "real_play.py",
        "random legal play of every sample scenario over the websocket, 10 games at "
        "once, beside tiny.shoot (commands/s, p50/p99, CPU per command)",
    ),
    "instructions": Bench(
        "bench_ws_callgrind.py",
        "instructions per websocket command under callgrind: a figure a loaded machine does not move",
    ),
    "bots": Bench("bots.py", "each ruleset's rules bot against the random bot (win rates)"),
    "bot-games": Bench(
        "bot_games.py", "rules bots on every seat of every sample scenario: stalls, refused options, winners"
    ),
}


def listing() -> str:
    width = max(map(len, BENCHES))
    rows = [f"  {name:<{width}}  bench/{b.script}\n  {'':<{width}}  {b.what}" for name, b in BENCHES.items()]
    return "usage: bench/run.py NAME [ARGS...]\n\n" + "\n".join(rows)


def command(name: str, args: list[str]) -> list[str]:
    script = HERE / BENCHES[name].script
    if script.suffix == ".sh":
        return ["bash", str(script), *args]
    return [sys.executable, str(script), *args]


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help", "list"):
        print(listing())
        return 0
    name, args = argv[0], argv[1:]
    if name not in BENCHES:
        print(f"no benchmark {name!r}\n\n{listing()}", file=sys.stderr)
        return 2
    if not (HERE / BENCHES[name].script).exists():
        print(f"bench/{BENCHES[name].script} is not in this checkout", file=sys.stderr)
        return 2
    os.chdir(ROOT)
    cmd = command(name, args)
    os.execvp(cmd[0], cmd)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
