# ruff: noqa: E501
# Part of the peer benchmark (bench/peer/README.md).
"""Side-by-side tables (Markdown) from the JSON files run.sh writes. Ratios are Salvo / boardgame.io.

python summarize.py RESULTS_DIR > table.md      (also writes RESULTS_DIR/summary.json)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def load(d: Path, name: str) -> dict[str, Any] | None:
    p = d / f"{name}.json"
    return json.loads(p.read_text()) if p.exists() else None


def f(x: Any, nd: int = 0) -> str:
    if x is None:
        return "–"
    if isinstance(x, (int, float)):
        return f"{x:,.{nd}f}"
    return str(x)


def ratio(a: Any, b: Any) -> str:
    if a is None or b in (None, 0):
        return "–"
    return f"{a / b:.2f}×"


def main() -> None:
    d = Path(sys.argv[1])
    out: dict[str, Any] = {"commands": [], "fanout": [], "catchup": {}}
    lines: list[str] = []
    w = lines.append

    w("## Commands (closed loop, one client per game/match, 10 s measured)\n")
    w(
        "Ratios are Salvo ÷ boardgame.io at the same K: against the official `Client` and against the raw "
        "socket.io client. Throughput ratio > 1 = Salvo faster; p99 ratio < 1 = Salvo's tail shorter.\n"
    )
    w(
        "| K | system / path | workload | ops/s | p50 ms | p99 ms | server CPU % | generator CPU % | foreign CPU % "
        "| ops/s ÷ bgio official | ops/s ÷ bgio raw | p99 ÷ bgio official | p99 ÷ bgio raw |"
    )
    w("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for k in (1, 10, 50):
        bo = load(d, f"moves-bgio-K{k}")
        br = load(d, f"moves-raw-K{k}")
        base = {}
        for label, r in (("boardgame.io official Client", bo), ("boardgame.io raw socket.io", br)):
            if r is None:
                continue
            row = {
                "K": k,
                "system": label,
                "workload": "roll (1 move, 1 D10)",
                "perSec": r["movesPerSec"],
                "p50": r["latencyMs"]["p50"],
                "p99": r["latencyMs"]["p99"],
                "serverCpu": r["server"]["avgCpuPct"],
                "clientCpu": r["clientCpuPct"],
                "foreign": r["foreignCpuPct"],
                "first2s_last2s": [r.get("movesPerSecFirst2s"), r.get("movesPerSecLast2s")],
            }
            base["official" if "official" in label else "raw"] = row
            out["commands"].append(row)
            w(
                f"| {k} | {label} | {row['workload']} | {f(row['perSec'])} | {f(row['p50'], 2)} | {f(row['p99'], 2)} "
                f"| {f(row['serverCpu'], 1)} | {f(row['clientCpu'], 1)} | {f(row['foreign'], 1)} | | | | |"
            )
        for tr, trl in (("ws", "Salvo websocket command"), ("http", "Salvo HTTP POST /commands")):
            for wl, wll in (
                ("shoot", "tiny.shoot (1 cmd, 1 d10, 1 event)"),
                ("cycle", "tiny turn cycle (8 cmds, 12 events)"),
            ):
                r = load(d, f"salvo-{tr}-{wl}-K{k}")
                if r is None:
                    continue
                row = {
                    "K": k,
                    "system": trl,
                    "workload": wll,
                    "perSec": r["perSec"],
                    "p50": r["latencyMs"]["p50"],
                    "p99": r["latencyMs"]["p99"],
                    "serverCpu": r["serverCpuPct"],
                    "clientCpu": r["clientCpuPct"],
                    "foreign": r["foreignCpuPct"],
                    "errors": r["errors"],
                }
                bo_, br_ = base.get("official"), base.get("raw")
                row["ratio_vs_official"] = row["perSec"] / bo_["perSec"] if bo_ else None
                row["ratio_vs_raw"] = row["perSec"] / br_["perSec"] if br_ else None
                out["commands"].append(row)
                w(
                    f"| {k} | {trl} | {wll} | {f(row['perSec'])} | {f(row['p50'], 2)} | {f(row['p99'], 2)} "
                    f"| {f(row['serverCpu'], 1)} | {f(row['clientCpu'], 1)} | {f(row['foreign'], 1)} "
                    f"| {ratio(row['perSec'], bo_ and bo_['perSec'])} | {ratio(row['perSec'], br_ and br_['perSec'])} "
                    f"| {ratio(row['p99'], bo_ and bo_['p99'])} | {ratio(row['p99'], br_ and br_['p99'])} |"
                )

    w("\n## Spectator fan-out (one game, one player at 20 moves/s, 200 moves; latency = send → receipt)\n")
    w(
        "| spectators | system | achieved /s | delivery p50 ms | p99 ms | max ms | last spectator p99 ms | lost "
        "| server CPU % | RSS/spectator KB | generator CPU % | foreign CPU % | held? | p99 ratio | CPU ratio | RSS/spect. ratio |"
    )
    w("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|")
    specs = sorted({int(p.stem.split("-S")[1]) for p in d.glob("fanout-*-S*.json") if ".try" not in p.name})
    for s in specs:
        b = load(d, f"fanout-bgio-S{s}")
        sv = load(d, f"fanout-salvo-S{s}")
        brow = None
        if b:
            brow = {
                "S": s,
                "system": "boardgame.io",
                "rate": b["achievedRate"],
                "p50": b["deliveryLatencyMs"]["p50"],
                "p99": b["deliveryLatencyMs"]["p99"],
                "max": b["deliveryLatencyMs"]["max"],
                "last_p99": b["fanoutCompleteMs"]["p99"],
                "lost": b["deliveriesMissing"],
                "cpu": b["server"]["avgCpuPct"],
                "rssPer": b["server"]["rssPerSpectatorKB"],
                "clientCpu": b["clientCpuPct"],
                "foreign": b["foreignCpuPct"],
                "struggled": b["struggled"],
                "disconnected": b.get("disconnectedDuringRun"),
                "connectFailures": b.get("connectFailures"),
            }
            out["fanout"].append(brow)
            w(
                f"| {s} | boardgame.io (raw spectators) | {f(brow['rate'], 1)} | {f(brow['p50'], 1)} | {f(brow['p99'], 1)} "
                f"| {f(brow['max'], 0)} | {f(brow['last_p99'], 1)} | {f(brow['lost'])} | {f(brow['cpu'], 1)} "
                f"| {f(brow['rssPer'], 1)} | {f(brow['clientCpu'], 1)} | {f(brow['foreign'], 1)} "
                f"| {'no' if brow['struggled'] else 'yes'} | | | |"
            )
        if sv:
            row = {
                "S": s,
                "system": "Salvo",
                "rate": sv["achievedRate"],
                "p50": sv["deliveryLatencyMs"]["p50"],
                "p99": sv["deliveryLatencyMs"]["p99"],
                "max": sv["deliveryLatencyMs"]["max"],
                "last_p99": sv["fanoutCompleteMs"]["p99"],
                "lost": sv["deliveriesMissing"],
                "cpu": sv["serverCpuPct"],
                "rssPer": sv["rssPerSpectatorKB"],
                "clientCpu": sv["clientCpuPct"],
                "foreign": sv["foreignCpuPct"],
                "struggled": sv["struggled"],
                "closed": sv["closedDuringRun"],
                "closeCodes": sv["closeCodes"],
                "ackToReceipt_p50": sv["ackToReceiptMs"]["p50"],
                "ackToReceipt_p99": sv["ackToReceiptMs"]["p99"],
            }
            out["fanout"].append(row)
            w(
                f"| {s} | Salvo (websocket spectators) | {f(row['rate'], 1)} | {f(row['p50'], 1)} | {f(row['p99'], 1)} "
                f"| {f(row['max'], 0)} | {f(row['last_p99'], 1)} | {f(row['lost'])} | {f(row['cpu'], 1)} "
                f"| {f(row['rssPer'], 1)} | {f(row['clientCpu'], 1)} | {f(row['foreign'], 1)} "
                f"| {'no' if row['struggled'] else 'yes'} "
                f"| {ratio(row['p99'], brow and brow['p99'])} | {ratio(row['cpu'], brow and brow['cpu'])} "
                f"| {ratio(row['rssPer'], brow and brow['rssPer'])} |"
            )
    for s in specs:
        sv = load(d, f"fanout-salvo-S{s}")
        if sv:
            w(
                f"\nSalvo S={s}: ack → receipt p50 {f(sv['ackToReceiptMs']['p50'], 1)} ms, p99 "
                f"{f(sv['ackToReceiptMs']['p99'], 1)} ms; player's own command latency p50 "
                f"{f(sv['playerOwnLatencyMs']['p50'], 2)} ms; sockets closed during run {sv['closedDuringRun']} "
                f"{sv['closeCodes'] or ''}; deliveries/s {f(sv['deliveriesPerSec'])}; drain after last send "
                f"{f(sv['drainMsAfterLastSend'])} ms."
            )

    w("\n## Catch-up: a client joining / reconnecting to a 10,000-event game\n")
    b = load(d, "catchup-bgio-N10000")
    sv = load(d, "catchup-salvo-N10000")
    w("| what | boardgame.io | Salvo | ratio Salvo ÷ bgio |")
    w("|---|---:|---:|---:|")
    if b and sv:
        rows = [
            ("history length", b["movesInHistory"], sv["eventsInHistory"], None),
            ("fresh join (spectator): payload bytes", b["syncFrameBytes"], sv["freshSpectator"]["payloadBytes"], True),
            (
                "fresh join (spectator): time to synced, median of 5, ms",
                b["rawSpectator"]["totalMs"]["p50"],
                sv["freshSpectator"]["totalMs"]["p50"],
                True,
            ),
            (
                "fresh join (player/seat): payload bytes",
                b["syncFrameBytesPlayer1"],
                sv["freshSeat"]["payloadBytes"],
                True,
            ),
            (
                "fresh join (player/seat): time, median ms",
                b["rawPlayer1"]["totalMs"]["p50"],
                sv["freshSeat"]["totalMs"]["p50"],
                True,
            ),
            (
                "fresh join, official bgio Client: time, median ms",
                b["bgioClientSpectator"]["totalMs"]["p50"],
                None,
                None,
            ),
            (
                "fresh join, join=present (snapshot + tail, spectator): payload bytes",
                b["syncFrameBytes"],
                (sv.get("freshPresentSpectator") or {}).get("payloadBytes"),
                True,
            ),
            (
                "fresh join, join=present: time, median ms",
                b["rawSpectator"]["totalMs"]["p50"],
                ((sv.get("freshPresentSpectator") or {}).get("totalMs") or {}).get("p50"),
                True,
            ),
            (
                "fresh join, history=compact (all events in compact pages, spectator): payload bytes",
                b["syncFrameBytes"],
                (sv.get("freshCompactSpectator") or {}).get("payloadBytes"),
                True,
            ),
            (
                "fresh join, history=compact (spectator): time, median ms",
                b["rawSpectator"]["totalMs"]["p50"],
                ((sv.get("freshCompactSpectator") or {}).get("totalMs") or {}).get("p50"),
                True,
            ),
            (
                "fresh join, history=compact (seat): payload bytes",
                b["syncFrameBytesPlayer1"],
                (sv.get("freshCompactSeat") or {}).get("payloadBytes"),
                True,
            ),
            (
                "reconnect having missed 1 event: payload bytes (bgio: a reconnect is a full sync)",
                b["syncFrameBytes"],
                sv["reconnectMissed1Spectator"]["payloadBytes"],
                True,
            ),
            (
                "reconnect having missed 1 event: time, median ms",
                b["rawSpectator"]["totalMs"]["p50"],
                sv["reconnectMissed1Spectator"]["totalMs"]["p50"],
                True,
            ),
            (
                "Salvo wire bytes in, incl. 101 handshake and frame headers: fresh / reconnect-1",
                None,
                f"{sv['freshSpectator']['wireBytesIn']:,} / {sv['reconnectMissed1Spectator']['wireBytesIn']:,}",
                None,
            ),
            ("foreign CPU % during the test", b["foreignCpuPct"], sv["foreignCpuPct"], None),
        ]
        for label, bv, svv, r in rows:
            w(
                f"| {label} | {f(bv, 1 if isinstance(bv, float) else 0)} | {f(svv, 1 if isinstance(svv, float) else 0)} "
                f"| {ratio(svv, bv) if r else ''} |"
            )
        out["catchup"] = {
            "bgio": {k: b[k] for k in ("movesInHistory", "syncFrameBytes", "syncFrameBytesPlayer1")},
            "salvo": {
                k: sv[k]
                for k in (
                    "eventsInHistory",
                    "freshSpectator",
                    "freshSeat",
                    "reconnectMissed1Spectator",
                    "reconnectMissed1Seat",
                )
            },
        }
    (d / "summary.json").write_text(json.dumps(out, indent=1, default=str) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
