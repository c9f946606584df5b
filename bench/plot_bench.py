"""Tables and plots from a before/after sitting (bench/before_after.py) or any peer_table.py output:
throughput and p99 against load (games; clients of one busy game), Salvo before and after beside
boardgame.io's figures copied into the same directories.

    .venv/bin/python bench/plot_bench.py --before OUT/before --after OUT/after --plots docs/bench
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

GAMES = (1, 10, 50)
CLIENTS = (1, 8, 32)


def load(d: Path | None, name: str) -> dict[str, Any] | None:
    if d is None:
        return None
    p = d / f"{name}.json"
    return json.loads(p.read_text()) if p.exists() else None


def rate(r: dict[str, Any] | None) -> float | None:
    if not r:
        return None
    return r.get("perSec", r.get("movesPerSec"))


def p99(r: dict[str, Any] | None) -> float | None:
    return (r.get("latencyMs") or {}).get("p99") if r else None


def fmt(v: float | None, digits: int = 0) -> str:
    return "–" if v is None else f"{v:,.{digits}f}"


def ratio(a: float | None, b: float | None) -> str:
    return "–" if not a or not b else f"{a / b:.2f}×"


def tables(before: Path, after: Path) -> list[str]:
    w = ["## Commands: Salvo before / after (same sitting) beside boardgame.io\n",
         "| games | transport | bgio (raw socket.io) | before: /s (p99 ms) | after: /s (p99 ms) | after ÷ before "
         "| after ÷ bgio | server CPU % before / after | foreign CPU % before / after |",
         "|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    for k in GAMES:
        bgio = load(after, f"moves-raw-K{k}") or load(after, f"moves-bgio-K{k}")
        for tr in ("ws", "http"):
            b, a = load(before, f"salvo-{tr}-shoot-K{k}"), load(after, f"salvo-{tr}-shoot-K{k}")
            if not (a or b):
                continue
            w.append(f"| {k} | {tr} | {fmt(rate(bgio))} ({fmt(p99(bgio), 1)}) | {fmt(rate(b))} ({fmt(p99(b), 1)}) "
                     f"| {fmt(rate(a))} ({fmt(p99(a), 1)}) | {ratio(rate(a), rate(b))} | {ratio(rate(a), rate(bgio))} "
                     f"| {fmt((b or {}).get('serverCpuPct'))} / {fmt((a or {}).get('serverCpuPct'))} "
                     f"| {fmt((b or {}).get('foreignCpuPct'))} / {fmt((a or {}).get('foreignCpuPct'))} |")
    w += ["\n## One busy game (C closed-loop clients on one game, shots alternating seats)\n",
          "| clients | transport | before: /s (p99 ms) | after: /s (p99 ms) | after ÷ before "
          "| foreign CPU % before / after |",
          "|---:|---|---:|---:|---:|---:|"]
    for c in CLIENTS:
        for tr in ("ws", "http"):
            b, a = load(before, f"salvo-{tr}-busy-C{c}"), load(after, f"salvo-{tr}-busy-C{c}")
            if a or b:
                w.append(f"| {c} | {tr} | {fmt(rate(b))} ({fmt(p99(b), 1)}) | {fmt(rate(a))} ({fmt(p99(a), 1)}) "
                         f"| {ratio(rate(a), rate(b))} | {fmt((b or {}).get('foreignCpuPct'))} / "
                         f"{fmt((a or {}).get('foreignCpuPct'))} |")
    b, a = load(before, "catchup-salvo-N10000"), load(after, "catchup-salvo-N10000")
    if a or b:
        w += ["\n## Fresh join of a 10,000-event game (spectator unless said)\n",
              "| join | before: bytes, median ms | after: bytes, median ms |", "|---|---:|---:|"]
        for key, label in (("freshSpectator", "history, one event frame each (default)"),
                           ("freshCompactSpectator", "history, `history=compact` pages"),
                           ("freshCompactSeat", "history, `history=compact` pages (seat)"),
                           ("freshPresentSpectator", "`join=present` (snapshot + tail)"),
                           ("reconnectMissed1Spectator", "reconnect having missed 1 event")):
            def cell(r: dict[str, Any] | None, key: str = key) -> str:
                j = (r or {}).get(key)
                return "–" if not j else f"{j['payloadBytes']:,} B, {fmt(j['totalMs']['p50'], 1)} ms"
            w.append(f"| {label} | {cell(b)} | {cell(a)} |")
    return w


def plots(before: Path, after: Path, where: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    where.mkdir(parents=True, exist_ok=True)
    made = []
    foreign = [r["foreignCpuPct"] for d in (before, after) for f in sorted(d.glob("salvo-*.json"))
               if (r := json.loads(f.read_text())).get("foreignCpuPct") is not None]
    note = (f"Salvo rows: other processes used {min(foreign):.0f}–{max(foreign):.0f} % CPU (of 200 %) meanwhile"
            if foreign else "")
    bgio_note = "boardgame.io: the figures copied from the peer's run"
    for metric, ylabel, fname in ((rate, "commands/s", "commands-throughput.png"),
                                  (p99, "p99 latency, ms", "commands-p99.png")):
        fig, ax = plt.subplots(figsize=(7, 4.2))
        for name, label, style in (("moves-raw-K{k}", "boardgame.io (raw socket.io, in memory)", "k--"),
                                   ("moves-bgio-K{k}", "boardgame.io (official client)", "k:")):
            ys = [metric(load(after, name.format(k=k))) for k in GAMES]
            if any(y is not None for y in ys):
                ax.plot(GAMES, ys, style, marker="s", label=label)
        for tr, colour in (("ws", "tab:blue"), ("http", "tab:orange")):
            for d, when, style in ((before, "before", ":"), (after, "after", "-")):
                ys = [metric(load(d, f"salvo-{tr}-shoot-K{k}")) for k in GAMES]
                if any(y is not None for y in ys):
                    ax.plot(GAMES, ys, style, color=colour, marker="o", label=f"Salvo {tr} ({when}, durable)")
        ax.set_xscale("log")
        ax.set_xticks(GAMES, [str(k) for k in GAMES])
        ax.set_xlabel("games (one closed-loop client each)")
        ax.set_title(f"{note}\n{bgio_note}", fontsize=8)
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(where / fname, dpi=110)
        plt.close(fig)
        made.append(where / fname)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, metric, ylabel in ((axes[0], rate, "commands/s"), (axes[1], p99, "p99 latency, ms")):
        for tr, colour in (("ws", "tab:blue"), ("http", "tab:orange")):
            for d, when, style in ((before, "before", ":"), (after, "after", "-")):
                ys = [metric(load(d, f"salvo-{tr}-busy-C{c}")) for c in CLIENTS]
                if any(y is not None for y in ys):
                    ax.plot(CLIENTS, ys, style, color=colour, marker="o", label=f"{tr} ({when})")
        ax.set_xscale("log")
        ax.set_xticks(CLIENTS, [str(c) for c in CLIENTS])
        ax.set_xlabel("clients commanding one game")
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(f"One busy game: Salvo before / after deciding ahead of the commit\n{note}", fontsize=9)
    fig.tight_layout()
    fig.savefig(where / "busy-game.png", dpi=110)
    plt.close(fig)
    made.append(where / "busy-game.png")
    return made


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--before", required=True)
    p.add_argument("--after", required=True)
    p.add_argument("--plots", default=None, help="directory for the PNGs (e.g. docs/bench)")
    a = p.parse_args()
    before, after = Path(a.before), Path(a.after)
    print("\n".join(tables(before, after)))
    for top in sorted(set(before.glob("*.top.txt")) | set(after.glob("*.top.txt"))):
        print(f"\nprofile: {top}")
    if a.plots:
        for path in plots(before, after, Path(a.plots)):
            print(f"wrote {path}")


if __name__ == "__main__":
    main()
