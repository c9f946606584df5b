"""Salvo's side of the shared peer benchmark, and the ratio table against boardgame.io's figures.

Runs the same workloads as bench/peer/run.sh for Salvo only (a fresh server per
scenario pinned to CPU 0, the generator bench/peer/salvo_client.py pinned to CPU 1, foreign CPU recorded
in every window), then prints the side-by-side tables of bench/peer/summarize.py with the goals of
issue 11 checked row by row.

    .venv/bin/python bench/peer_table.py --peer <run.sh results dir>
    .venv/bin/python bench/peer_table.py --peer <run.sh results dir> --only commands,fanout
    .venv/bin/python bench/peer_table.py --peer <RESULTS.md or dir> --salvo <dir of Salvo JSON>  # no run

--peer is either a results directory written by run.sh (its moves-*, fanout-bgio-*, catchup-bgio-* JSON)
or a RESULTS.md from it: its boardgame.io rows are read back from the Markdown tables.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from servers import ROOT, SERVER_ENV, Server, free_port, pinned  # noqa: E402,F401 - re-exported for the other scripts

PEER = HERE / "peer"


# --- the peer's figures --------------------------------------------------------------------------------


def _num(cell: str) -> float | None:
    cell = cell.strip().replace(",", "").replace("×", "")
    try:
        return float(cell)
    except ValueError:
        return None


def _rows(md: str, header_start: str) -> list[list[str]]:
    """The body rows of the first Markdown table whose header starts with ``header_start``."""
    lines = md.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(header_start):
            out = []
            for row in lines[i + 2 :]:
                if not row.startswith("|"):
                    break
                out.append([c.strip() for c in row.strip().strip("|").split("|")])
            return out
    return []


def peer_from_results_md(md: str) -> dict[str, dict[str, Any]]:
    """boardgame.io's rows of a RESULTS.md, as the JSON files summarize.py reads."""
    files: dict[str, dict[str, Any]] = {}
    for r in _rows(md, "| K | system"):
        if not r[1].startswith("boardgame.io"):
            continue
        kind = "bgio" if "official" in r[1] else "raw"
        files[f"moves-{kind}-K{int(_num(r[0]) or 0)}"] = {
            "movesPerSec": _num(r[3]),
            "latencyMs": {"p50": _num(r[4]), "p99": _num(r[5])},
            "server": {"avgCpuPct": _num(r[6])},
            "clientCpuPct": _num(r[7]),
            "foreignCpuPct": _num(r[8]),
        }
    for r in _rows(md, "| spectators | system"):
        if not r[1].startswith("boardgame.io"):
            continue
        files[f"fanout-bgio-S{int(_num(r[0]) or 0)}"] = {
            "achievedRate": _num(r[2]),
            "deliveryLatencyMs": {"p50": _num(r[3]), "p99": _num(r[4]), "max": _num(r[5])},
            "fanoutCompleteMs": {"p99": _num(r[6])},
            "deliveriesMissing": _num(r[7]),
            "server": {"avgCpuPct": _num(r[8]), "rssPerSpectatorKB": _num(r[9])},
            "clientCpuPct": _num(r[10]),
            "foreignCpuPct": _num(r[11]),
            "struggled": r[12].strip() != "yes",
        }
    catch = {r[0]: r[1] for r in _rows(md, "| what | boardgame.io")}
    if catch:

        def cell(prefix: str) -> float | None:
            return next((_num(v) for k, v in catch.items() if k.startswith(prefix)), None)

        files["catchup-bgio-N10000"] = {
            "movesInHistory": cell("history length"),
            "syncFrameBytes": cell("fresh join (spectator): payload"),
            "syncFrameBytesPlayer1": cell("fresh join (player/seat): payload"),
            "rawSpectator": {"totalMs": {"p50": cell("fresh join (spectator): time")}},
            "rawPlayer1": {"totalMs": {"p50": cell("fresh join (player/seat): time")}},
            "bgioClientSpectator": {"totalMs": {"p50": cell("fresh join, official")}},
            "foreignCpuPct": cell("foreign CPU"),
        }
    return files


def copy_peer(peer: Path, out: Path) -> None:
    if peer.is_dir():
        for p in peer.glob("*.json"):
            if p.name.startswith(("moves-", "fanout-bgio-", "catchup-bgio-")) and ".try" not in p.name:
                shutil.copy(p, out / p.name)
        return
    for name, data in peer_from_results_md(peer.read_text()).items():
        (out / f"{name}.json").write_text(json.dumps(data, indent=1) + "\n")


BUSY_CLIENTS = (1, 8, 32)

# --- Salvo's scenarios (as run.sh) -----------------------------------------------------------------------


def scenarios(
    only: set[str], seconds: float, warmup: float, spectators: list[int], stagger: float = 0.0
) -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []
    if "commands" in only:
        for k in (1, 10, 50):
            for wl in ("shoot", "cycle"):
                for tr in ("ws", "http"):
                    out.append(
                        (
                            f"salvo-{tr}-{wl}-K{k}",
                            [
                                "commands",
                                "--transport",
                                tr,
                                "--workload",
                                wl,
                                "--games",
                                str(k),
                                "--seconds",
                                str(seconds),
                                "--warmup",
                                str(warmup),
                            ],
                        )
                    )
    if "busy" in only:  # one game, several closed-loop clients: the pipelined command path
        for c in BUSY_CLIENTS:
            for tr in ("ws", "http"):
                late = ["--stagger", str(stagger)] if stagger and tr == "ws" else []
                out.append(
                    (
                        f"salvo-{tr}-busy-C{c}",
                        [
                            "commands",
                            "--transport",
                            tr,
                            "--workload",
                            "shoot",
                            "--games",
                            "1",
                            "--clients",
                            str(c),
                            "--seconds",
                            str(seconds),
                            "--warmup",
                            str(warmup),
                            *late,
                        ],
                    )
                )
    if "fanout" in only:
        for s in spectators:
            out.append((f"fanout-salvo-S{s}", ["fanout", "--spectators", str(s), "--moves", "200", "--rate", "20"]))
    if "catchup" in only:
        out.append(("catchup-salvo-N10000", ["catchup", "--events", "10000", "--reps", "5"]))
    return out


def run_salvo(
    out: Path,
    work: Path,
    only: set[str],
    seconds: float,
    warmup: float,
    spectators: list[int],
    match: str | None,
    checkout: Path = ROOT,
    py_spy: str | None = None,
    profile_match: str = "ws-shoot-K50",
    stagger: float = 0.0,
) -> None:
    """Each scenario on a fresh server; with ``py_spy``, the scenarios matching ``profile_match`` also get
    a py-spy profile of the server (attached for the whole run, GIL-holding samples, raw folded stacks,
    summarized by bench/peer/folded_top.py into <name>.top.txt)."""
    client = PEER / "salvo_client.py"
    for name, args in scenarios(only, seconds, warmup, spectators, stagger):
        if match and not re.search(match, name):
            continue
        server = Server(work, name, "0", checkout)
        print(f">>> {name} (port {server.port}, server pid {server.proc.pid})", flush=True)
        spy = None
        if py_spy and re.search(profile_match, name):
            folded = out / f"{name}.folded"
            spy = subprocess.Popen(
                [
                    *pinned("1"),
                    py_spy,
                    "record",
                    "--pid",
                    str(server.proc.pid),
                    "--rate",
                    "250",
                    "--format",
                    "raw",
                    "--nonblocking",
                    "--gil",
                    "--threads",
                    "--duration",
                    str(int(seconds + warmup)),
                    "--output",
                    str(folded),
                ],
                stdout=subprocess.DEVNULL,
                stderr=open(work / f"py-spy-{name}.err", "w"),
            )  # noqa: SIM115
        try:
            done = subprocess.run(
                [
                    *pinned("1"),
                    sys.executable,
                    str(client),
                    *args,
                    "--port",
                    str(server.port),
                    "--server-pid",
                    str(server.proc.pid),
                    "--label",
                    name,
                    "--out",
                    str(out / f"{name}.json"),
                ],
                cwd=ROOT,
                timeout=600,
                capture_output=True,
                text=True,
                check=False,
            )
            (work / f"client-{name}.err").write_text(done.stderr)
            print((done.stdout or done.stderr[-600:]).strip()[:300], flush=True)
            if spy is not None:
                spy.wait(60)
                top = subprocess.run(
                    [sys.executable, str(PEER / "folded_top.py"), str(out / f"{name}.folded"), "25"],
                    capture_output=True,
                    text=True,
                    check=False,
                ).stdout
                (out / f"{name}.top.txt").write_text(top)
                print(top[:1500], flush=True)
        finally:
            if spy is not None and spy.poll() is None:
                spy.kill()
            server.stop()


# --- goals of issue 11 ------------------------------------------------------------------------------------


def _load(d: Path, name: str) -> dict[str, Any] | None:
    p = d / f"{name}.json"
    return json.loads(p.read_text()) if p.exists() else None


def goals(d: Path) -> list[str]:
    """Each goal of issue 11 that the figures in ``d`` can speak to: met, short, or not measured."""
    lines = ["\n## Goals of issue 11, row by row\n", "| goal | figure | verdict |", "|---|---|---|"]

    def row(goal: str, figure: str, ok: bool | None) -> None:
        lines.append(f"| {goal} | {figure} | {'met' if ok else 'short' if ok is not None else 'not measured'} |")

    def best_bgio(k: int) -> dict[str, Any] | None:
        """The stronger of bgio's two clients at K (its higher rate, its lower p99): the stricter bar."""
        runs = [r for r in (_load(d, f"moves-bgio-K{k}"), _load(d, f"moves-raw-K{k}")) if r]
        if not runs:
            return None
        return {
            "movesPerSec": max(r["movesPerSec"] for r in runs),
            "latencyMs": {"p99": min(r["latencyMs"]["p99"] for r in runs)},
        }

    for k in (1, 10, 50):
        b, s = best_bgio(k), _load(d, f"salvo-ws-shoot-K{k}")
        if b and s:
            r = s["perSec"] / b["movesPerSec"]
            p99 = (s["latencyMs"]["p99"] or 1e9) <= (b["latencyMs"]["p99"] or 0)
            row(
                f"websocket commands ≥ 1.2× bgio at {k} game(s), p99 ≤ bgio's",
                f"{r:.2f}×, p99 {s['latencyMs']['p99']} vs {b['latencyMs']['p99']} ms",
                r >= 1.2 and p99,
            )
        else:
            row(f"websocket commands ≥ 1.2× bgio at {k} game(s)", "–", None)
    b, s = best_bgio(50), _load(d, "salvo-http-shoot-K50")
    row(
        "HTTP ≥ 0.6× bgio at 50 games",
        f"{s['perSec'] / b['movesPerSec']:.2f}×" if b and s else "–",
        (s["perSec"] / b["movesPerSec"] >= 0.6) if b and s else None,
    )
    b, s = _load(d, "fanout-bgio-S1000"), _load(d, "fanout-salvo-S1000")
    if b and s:
        rp = s["deliveryLatencyMs"]["p99"] / b["deliveryLatencyMs"]["p99"]
        rc = s["serverCpuPct"] / b["server"]["avgCpuPct"]
        row(
            "1,000 spectators: p99 ≤ 0.75× and CPU ≤ 0.75× bgio's",
            f"p99 {rp:.2f}×, CPU {rc:.2f}×",
            rp <= 0.75 and rc <= 0.75,
        )
        row("≤ 20 KB per spectator", f"{s['rssPerSpectatorKB']} KB", (s["rssPerSpectatorKB"] or 1e9) <= 20)
    s = _load(d, "fanout-salvo-S5000")
    row(
        "5,000 spectators hold 20 events/s, p99 ≤ 100 ms",
        f"{s['achievedRate']}/s, p99 {s['deliveryLatencyMs']['p99']} ms" if s else "–",
        (s["achievedRate"] >= 18 and (s["deliveryLatencyMs"]["p99"] or 1e9) <= 100) if s else None,
    )
    b, s = _load(d, "catchup-bgio-N10000"), _load(d, "catchup-salvo-N10000")
    if b and s:
        fresh = s.get("freshPresentSpectator") or s["freshSpectator"]  # the compact join where there is one
        fb, ft = fresh["payloadBytes"], fresh["totalMs"]["p50"]
        row(
            "fresh join of 10,000 events ≤ bgio's bytes and time",
            f"{fb / b['syncFrameBytes']:.2f}× bytes, {ft / b['rawSpectator']['totalMs']['p50']:.2f}× time",
            fb <= b["syncFrameBytes"] and ft <= b["rawSpectator"]["totalMs"]["p50"],
        )
    else:
        row("fresh join of 10,000 events ≤ bgio's bytes and time", "–", None)
    return lines


def busy_table(d: Path) -> list[str]:
    """One game commanded by several closed-loop clients at once (Salvo only: the shared harness has no
    such row), with the one-client loop of the same game for scale."""
    rows = [(c, tr, _load(d, f"salvo-{tr}-busy-C{c}")) for c in BUSY_CLIENTS for tr in ("ws", "http")]
    if not any(r for _c, _tr, r in rows):
        return []
    lines = [
        "\n## One busy game (several clients commanding one game)\n",
        "| clients | transport | commands/s | p50 ms | p99 ms | server CPU % | foreign CPU % | errors "
        "| replies held | store catch-ups | fallbacks (overflowed, broken) | frames per write |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for c, tr, r in rows:
        if r:
            lat = r["latencyMs"]
            f = r.get("fanout") if tr == "ws" else None  # the direct fan-out's counters over the window
            if f:
                replies = (f["replies_held"] + f["replies_unheld"]) or 1
                extra = (
                    f"{100 * f['replies_held'] / replies:.1f} % | {f['catch_ups']:,} | {f['fallbacks']:,} "
                    f"({f['holds_overflowed']:,}, {f['holds_broken']:,}) | {f.get('framesPerWrite', '–')} |"
                )
            else:
                extra = "– | – | – | – |"
            lines.append(
                f"| {c} | {tr} | {r['perSec']:,} | {lat['p50']} | {lat['p99']} | "
                f"{r.get('serverCpuPct')} | {r.get('foreignCpuPct')} | {r['errors']} | {extra}"
            )
    return lines


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--peer", required=True, help="run.sh results dir, or its RESULTS.md")
    p.add_argument("--salvo", default=None, help="use Salvo JSON from this dir instead of running")
    p.add_argument("--only", default="commands,fanout,catchup", help="any of commands,busy,fanout,catchup")
    p.add_argument("--match", default=None, help="regex of scenario names to run")
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--warmup", type=float, default=2.0)
    p.add_argument("--spectators", default="100,1000,5000")
    p.add_argument("--out", default=None, help="where the JSON and the table go (default: a temp dir)")
    p.add_argument("--salvo-dir", default=str(ROOT), help="serve this Salvo checkout (a before/after run)")
    p.add_argument("--py-spy", default=None, help="a py-spy binary: profile the scenarios matching --profile-match")
    p.add_argument("--profile-match", default="ws-shoot-K50")
    p.add_argument(
        "--stagger",
        type=float,
        default=0.0,
        help="busy games over the websocket: client c joins c × this many seconds in (a game already "
        "busy; keep it × clients under --warmup)",
    )
    a = p.parse_args()
    out = Path(a.out or tempfile.mkdtemp(prefix="salvo-peer-"))
    out.mkdir(parents=True, exist_ok=True)
    copy_peer(Path(a.peer), out)
    if a.salvo:
        for f in Path(a.salvo).glob("*.json"):
            if f.name.startswith(("salvo-", "fanout-salvo-", "catchup-salvo-")) and ".try" not in f.name:
                shutil.copy(f, out / f.name)
    else:
        run_salvo(
            out,
            out,
            set(a.only.split(",")),
            a.seconds,
            a.warmup,
            [int(s) for s in a.spectators.split(",")],
            a.match,
            Path(a.salvo_dir).resolve(),
            a.py_spy,
            a.profile_match,
            a.stagger,
        )
    table = subprocess.run(
        [sys.executable, str(PEER / "summarize.py"), str(out)], capture_output=True, text=True, check=True
    ).stdout
    text_out = table + "\n".join(goals(out) + busy_table(out)) + "\n"
    (out / "RESULTS.table.md").write_text(text_out)
    print(text_out)
    print(f"results in {out}/")


if __name__ == "__main__":
    main()
