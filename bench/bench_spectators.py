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
added to the server's: the relay's cost per delivery is the difference from a run without it);
``--front ab`` runs each split layout straight and through nginx back to back (A/B, one sitting), and
``--repeat N`` runs every layout N times in turn (A B A B …).

Descriptors: a spectator is one socket in the generator and one in the server process that holds it (two
in nginx). A process cannot hold more sockets than its ``nofile`` limit (raised to the hard limit here;
raising the hard limit needs CAP_SYS_RESOURCE), so a layout whose server process would need more is
skipped with the reason in its row (``--sockets 0`` with 20,000 spectators under a 20,000 limit; with
``--sockets 2`` each socket process holds about half). The generator is split the same way:
``--generators K`` (default: the fewest processes of at most the limit less 500 spectators each) — one
process drives the seat and measures, K watcher processes (``bench_spectators.py watch``) hold the
spectators and time every frame on the same monotonic clock (CLOCK_MONOTONIC is one clock for every
process), so the latencies merge. Watchers also add generator cores: one Python process reads only
≈ 140,000–190,000 frames/s. "generator CPU" is then the driver's and the watchers' sum (not "foreign").
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
from array import array
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from servers import ROOT, Server, pinned  # noqa: E402
from topology import Topology  # noqa: E402

CLIENT = HERE / "peer" / "salvo_client.py"
SERVER_FDS = 100  # a server process's descriptors besides its spectators' sockets (≈ 26 measured), with room
GENERATOR_HEADROOM = 500  # a generator process's, likewise (its seat, pipes, the interpreter's own)


def raise_fd_limit() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def generators_for(spectators: int, limit: int) -> int:
    """The fewest generator processes that hold ``spectators`` sockets under a ``limit`` of descriptors each."""
    return max(1, math.ceil(spectators / (limit - GENERATOR_HEADROOM)))


def too_many_fds(spectators: int, sockets: int, front: bool, limit: int) -> str | None:
    """Why a layout cannot run under ``limit`` descriptors per process, or None. SO_REUSEPORT spreads the
    connections by a hash of their addresses: the busiest of k socket processes holds ≈ S/k + a few √S."""
    per = spectators if sockets <= 1 else math.ceil(spectators / sockets + 4 * math.sqrt(spectators))
    if per + SERVER_FDS > limit:
        where = "one process" if sockets == 0 else f"the busiest of {sockets} socket process(es)"
        return (
            f"{where} would hold ≈ {per:,} spectator sockets, past the {limit:,}-descriptor limit per "
            f"process (the hard limit: raising it needs CAP_SYS_RESOURCE)"
        )
    if front and 2 * spectators + SERVER_FDS > limit:  # nginx: the client's socket and the upstream's
        return f"nginx's one worker would hold {2 * spectators:,} sockets, past the {limit:,}-descriptor limit"
    return None


def generate(
    work: Path,
    name: str,
    spectators: int,
    moves: int,
    rate: float,
    port: int,
    pid: int,
    cpu: str | None,
    spectator_port: int | None = None,
    spectator_pids: list[int] | None = None,
    generators: int = 1,
    page: bool = False,
) -> dict[str, Any]:
    out = work / f"{name}.json"
    extra = (
        ["--spectator-port", str(spectator_port), "--spectator-pid", ",".join(map(str, spectator_pids or []))]
        if spectator_port
        else []
    )
    program = (
        [str(CLIENT), "fanout"]
        if generators == 1 and not page
        else [__file__, "drive", "--generators", str(generators), *(["--page"] if page else [])]
    )
    done = subprocess.run(
        [
            *pinned(cpu),
            sys.executable,
            *program,
            "--spectators",
            str(spectators),
            "--moves",
            str(moves),
            "--rate",
            str(rate),
            "--batch",
            "100",
            "--grace",
            "20",
            "--port",
            str(port),
            "--server-pid",
            str(pid),
            *extra,
            "--label",
            name,
            "--out",
            str(out),
        ],
        cwd=ROOT,
        timeout=900,
        capture_output=True,
        text=True,
        check=False,
    )
    if not out.exists():
        return {"label": name, "error": (done.stderr or done.stdout)[-800:]}
    result = dict(json.loads(out.read_text()))
    result["load"] = os.getloadavg()
    return result


def run_one(
    work: Path,
    checkout: Path,
    label: str,
    spectators: int,
    moves: int,
    rate: float,
    generators: int = 1,
    rep: int = 1,
    page: bool = False,
) -> dict[str, Any]:
    name = f"{label}-S{spectators}-r{rep}{'-page' if page else ''}"
    server = Server(work, name, "0", checkout)
    try:
        return generate(
            work, name, spectators, moves, rate, server.port, server.pid, "1", generators=generators, page=page
        )
    finally:
        server.stop()


def run_split(
    work: Path,
    checkout: Path,
    label: str,
    spectators: int,
    moves: int,
    rate: float,
    redis_url: str,
    sockets: int,
    front: bool = False,
    generators: int = 1,
    rep: int = 1,
) -> dict[str, Any]:
    name = f"{label}-K{sockets}{'-front' if front else ''}-S{spectators}-r{rep}"
    cpus: list[str | None] = ["0", "1"] if sockets == 1 else [None]
    top = Topology(
        work / name, sockets, redis_url=redis_url, front="nginx" if front else "none", checkout=checkout, cpus=cpus
    )
    try:
        if front:  # spectators through nginx: its workers' CPU and memory count as the server's
            return generate(
                work,
                name,
                spectators,
                moves,
                rate,
                top.command.port,
                top.command.pid,
                None,
                top.port,
                top.pids + top.front_pids,
                generators,
            )
        return generate(
            work,
            name,
            spectators,
            moves,
            rate,
            top.command.port,
            top.command.pid,
            None,
            top.socket_port,
            top.pids,
            generators,
        )
    finally:
        top.stop()


def row(label: str, r: dict[str, Any]) -> str:
    if "skipped" in r:
        return f"| {label} | {r['spectators']:,} | not run: {r['skipped']} |"
    if "error" in r:
        return f"| {label} | {r['label']} | failed: {r['error'][-120:]!r} |"
    lat = r["deliveryLatencyMs"]
    delivered = max(1, r["deliveriesExpected"] - r["deliveriesMissing"])
    cpu_us = r["serverCpuPct"] / 100 * r["seconds"] * 1e6 / delivered  # server CPU per delivery
    user_us = r.get("serverUserPct", 0) / 100 * r["seconds"] * 1e6 / delivered  # of which in user space
    load = f"{r['load'][0]:.1f}" if r.get("load") else "–"
    return (
        f"| {label} | {r['connected']:,} | {r['connectAllMs'] / 1000:.1f} | {r['achievedRate']} | "
        f"{r['deliveriesPerSec']:,} | {lat['p50']} | {lat['p99']} | {lat['max']} | "
        f"{r['fanoutCompleteMs']['p99']} | {r['deliveriesMissing']:,} | {r['closedDuringRun']} | "
        f"{r['serverCpuPct']} | {r.get('commandServerCpuPct', '–')} | {cpu_us:.1f} ({user_us:.1f} user) | "
        f"{r['rssPerSpectatorKB']} | "
        f"{r['clientCpuPct']} | {r['foreignCpuPct']} | {load} |"
    )


HEADER = (
    "| checkout, layout | spectators | connect all s | events/s held | deliveries/s | p50 ms | p99 ms | max ms "
    "| all-reached p99 ms | missing | closed | server CPU % | command process CPU % | server µs/delivery "
    "| KB/spectator | generator CPU % | foreign CPU % | load (1 min) |\n"
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] in ("drive", "watch"):  # the generator's processes (below)
        role = sys.argv.pop(1)
        run_async(drive_main() if role == "drive" else watch_main())
        return
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--spectators", default="1000,5000,max", help="comma list; 'max' = the fd limit less headroom")
    p.add_argument("--before", default=None, help="another checkout to measure first (e.g. /work/main)")
    p.add_argument("--moves", type=int, default=200)
    p.add_argument("--rate", type=float, default=20.0)
    p.add_argument("--json", default=None, help="write every result here")
    p.add_argument("--sockets", default="0", help="comma list of socket-process counts; 0 = one process for all")
    p.add_argument("--processes", default=None, help="the older form: 1 = --sockets 0, 2 = --sockets 1")
    p.add_argument(
        "--front",
        nargs="?",
        const="yes",
        default="no",
        choices=["no", "yes", "ab"],
        help="with --sockets N: spectators through the nginx front (its CPU and RSS counted in); "
        "'ab': each split layout straight, then through nginx",
    )
    p.add_argument(
        "--generators", type=int, default=0, help="generator processes (0: the fewest that stay under the fd limit)"
    )
    p.add_argument("--repeat", type=int, default=1, help="run every layout this many times, in turn")
    p.add_argument(
        "--page",
        action="store_true",
        help="page-like spectators (one process): each joins with ?frames=view and parses every message whole, "
        "as the web page does; a delivery is the message that carries the view after a command",
    )
    a = p.parse_args()
    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    layouts = [int(x) - 1 for x in a.processes.split(",")] if a.processes else [int(x) for x in a.sockets.split(",")]
    limit = raise_fd_limit()
    counts = [limit - 500 if s == "max" else int(s) for s in a.spectators.split(",")]
    print(f"file descriptors: {limit}; spectators: {counts}", flush=True)
    work = Path(tempfile.mkdtemp(prefix="salvo-spectators-"))
    checkouts = ([("before", Path(a.before).resolve())] if a.before else []) + [("after", ROOT)]
    results: dict[str, list[dict[str, Any]]] = {label: [] for label, _ in checkouts}
    lines = [HEADER]
    fronts = {"no": [False], "yes": [True], "ab": [False, True]}[a.front]
    for n in counts:  # before and after side by side for each N: the machine's load drifts less between them
        gens = a.generators or generators_for(n, limit)
        for rep in range(1, a.repeat + 1):
            for label, checkout in checkouts:
                for sockets in layouts:
                    for front in fronts if sockets else [False]:
                        layout = (
                            "1 process" if sockets == 0 else f"command + {sockets} socket process{'es' * (sockets > 1)}"
                        )
                        layout += ", via nginx" if front else ""
                        layout += f", {gens} generator processes" if gens > 1 else ""
                        layout += ", page-like clients (frames=view)" if a.page else ""
                        print(f">>> {label} ({checkout}) with {n} spectators, {layout} (run {rep})", flush=True)
                        why = too_many_fds(n, sockets, front, limit)
                        if why:
                            r: dict[str, Any] = {"label": f"{label}-K{sockets}-S{n}", "spectators": n, "skipped": why}
                        elif sockets == 0:
                            r = run_one(work, checkout, label, n, a.moves, a.rate, gens, rep, a.page)
                        else:
                            r = run_split(
                                work, checkout, label, n, a.moves, a.rate, redis_url, sockets, front, gens, rep
                            )
                        r["layout"], r["run"], r["generators"] = layout, rep, gens
                        results[label].append(r)
                        lines.append(row(f"{label}, {layout}", r))
                        print(lines[-1], flush=True)
    print("\n" + "\n".join(lines))
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1) + "\n")
    print(f"\nresults in {work}/")


# --- the generator over several processes ------------------------------------------------------------------


def run_async(coro: Any) -> None:
    try:
        import uvloop

        uvloop.run(coro)
    except ImportError:
        asyncio.run(coro)


def client() -> Any:
    """bench/peer/salvo_client.py (the shared harness's generator): its websocket client and measures."""
    sys.path.insert(0, str(CLIENT.parent))
    import salvo_client

    return salvo_client


def say(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


async def order() -> dict[str, Any]:
    line = await asyncio.to_thread(sys.stdin.readline)  # the loop keeps reading frames meanwhile
    if not line:
        raise SystemExit("the driver went away")
    return dict(json.loads(line))


async def watch_main() -> None:
    """A watcher: ``--count`` spectators of ``--game`` joined at ``--after``; each event frame's (receipt
    time, seq) kept. Talks to the driver in lines of JSON: says {"connected"}; is told {"last", "until"}
    and says {"drained"} once every open socket has the last event (or at "until"); is told {"sent",
    "acked"} and writes each delivery's latency (seconds, doubles) to ``--out``.send/.ack, says its counts."""
    p = argparse.ArgumentParser()
    for flag in ("--port", "--after", "--count", "--batch"):
        p.add_argument(flag, type=int, required=True)
    p.add_argument("--game", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--page", action="store_true")
    a = p.parse_args()
    sc = client()
    times, seqs = array("d"), array("q")
    state = {"last": -1, "got": 0}
    view_bytes = array("q")  # --page: the size of each message that carried a view

    def on_event(payload: bytes, t: float) -> None:
        if payload.startswith(b'{"kind":"event"'):
            s = sc.frame_seq(payload)
            times.append(t)
            seqs.append(s)
            if s == state["last"]:
                state["got"] += 1

    def on_page_message(payload: bytes, t: float) -> None:
        """As the page's GameStream: every message parsed whole; an update has arrived (and the page
        renders from it, with no request) when a message carries the view."""
        m = json.loads(payload)
        view = m.get("view")
        if view is None:
            return
        s = m["event"]["seq"] if m["kind"] == "event" else m["seq"]
        times.append(t)
        seqs.append(s)
        view_bytes.append(len(payload))
        if s == state["last"]:
            state["got"] += 1

    on_message = on_page_message if a.page else on_event
    path, token = sc.stream_path(a.game, None, a.after)
    if a.page:
        path += "&frames=view"

    specs: list[Any] = []
    failures = 0
    t0 = sc.now()
    for i in range(0, a.count, a.batch):
        batch = [sc.ws_open(a.port, (path, token), on_message) for _ in range(min(a.batch, a.count - i))]
        for r in await asyncio.gather(*batch, return_exceptions=True):
            if isinstance(r, BaseException):
                failures += 1
            else:
                specs.append(r)
    say({"connected": len(specs), "failures": failures, "connectMs": round((sc.now() - t0) * 1000)})
    told = await order()
    state["last"], state["got"] = told["last"], seqs.count(told["last"])
    while sc.now() < told["until"] and state["got"] < sum(1 for s in specs if not s.closed):
        await asyncio.sleep(0.05)
    say({"drained": True})
    told = await order()
    sent = {int(k): float(v) for k, v in told["sent"].items()}
    acked = {int(k): float(v) for k, v in told["acked"].items()}
    lat_send, lat_ack = array("d"), array("d")
    received: dict[int, int] = {}
    last_rx: dict[int, float] = {}
    for t, s in zip(times, seqs, strict=True):
        t_sent = sent.get(s)
        if t_sent is None:
            continue
        lat_send.append(t - t_sent)
        lat_ack.append(t - acked[s])
        received[s] = received.get(s, 0) + 1
        if t > last_rx.get(s, 0.0):
            last_rx[s] = t
    Path(a.out + ".send").write_bytes(lat_send.tobytes())
    Path(a.out + ".ack").write_bytes(lat_ack.tobytes())
    closed = [s for s in specs if s.closed]
    codes: dict[str, int] = {}
    for s in closed:
        codes[str(s.close_code)] = codes.get(str(s.close_code), 0) + 1
    for s in specs:
        s.close()
    await asyncio.sleep(0.5)
    said: dict[str, Any] = {"received": received, "lastRx": last_rx, "closed": len(closed), "closeCodes": codes}
    if a.page and view_bytes:
        said["viewMessageBytes"] = round(sum(view_bytes) / len(view_bytes))
    say(said)


async def drive_main() -> None:
    """salvo_client.py fanout's run and result, with the spectators held by ``--generators`` watchers."""
    p = argparse.ArgumentParser()
    for flag, kind, default in (
        ("--port", int, None),
        ("--server-pid", int, None),
        ("--generators", int, 2),
        ("--spectators", int, 100),
        ("--moves", int, 200),
        ("--rate", float, 20.0),
        ("--batch", int, 50),
        ("--grace", float, 15.0),
        ("--spectator-port", int, 0),
        ("--spectator-pid", str, ""),
        ("--label", str, ""),
        ("--out", str, ""),
    ):
        p.add_argument(flag, type=kind, default=default, required=default is None)
    p.add_argument("--page", action="store_true", help="page-like watchers (frames=view, every message parsed)")
    a = p.parse_args()
    result = await drive(a)
    result["label"] = a.label
    Path(a.out).write_text(json.dumps(result, indent=1) + "\n")


async def drive(a: argparse.Namespace) -> dict[str, Any]:
    sc = client()
    g = await sc.create_game(a.port)
    gid = g["game_id"]
    player = await sc.ws_open(a.port, sc.stream_path(gid, g["seats"]["red"], 0, own=True))
    await asyncio.wait_for(sc.caught_up(player), 30)
    text = json.dumps({"kind": "command", "command": sc.SHOOT}, separators=(",", ":")).encode()
    version = 0
    for _ in range(20):  # warm-up
        version = json.loads(await sc.ws_command(player, text))["version"]
    await asyncio.sleep(0.3)
    spec_pids = tuple(int(x) for x in a.spectator_pid.split(",") if x) or (a.server_pid,)
    spec_port = a.spectator_port or a.port
    rss_before = sum(sc.rss_mb(x) or 0.0 for x in spec_pids)
    k = a.generators
    shares = [a.spectators // k + (i < a.spectators % k) for i in range(k)]
    out = a.out or str(Path(tempfile.mkdtemp(prefix="salvo-watch-")) / "w")
    t_conn = sc.now()
    watchers = [
        await asyncio.create_subprocess_exec(
            sys.executable,
            __file__,
            "watch",
            "--port",
            str(spec_port),
            "--game",
            gid,
            "--after",
            str(version),
            "--count",
            str(n),
            "--batch",
            str(a.batch),
            "--out",
            f"{out}.w{i}",
            *(["--page"] if a.page else []),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=2**26,
        )
        for i, n in enumerate(shares)
    ]

    async def hear(w: Any) -> dict[str, Any]:
        line = await w.stdout.readline()
        if not line:
            raise RuntimeError(f"watcher {w.pid} exited ({await w.wait()})")
        return dict(json.loads(line))

    async def tell(obj: dict[str, Any]) -> None:
        for w in watchers:
            assert w.stdin is not None
            w.stdin.write(json.dumps(obj).encode() + b"\n")
            await w.stdin.drain()

    try:
        ready = [await hear(w) for w in watchers]
        connect_s = sc.now() - t_conn
        await asyncio.sleep(1.0)
        rss_after = sum(sc.rss_mb(x) or 0.0 for x in spec_pids)
        S = sum(r["connected"] for r in ready)
        win_ = sc.Window(spec_pids[0], spec_pids[1:])
        gen0 = [sc.proc_ticks(w.pid) or 0 for w in watchers]
        command_ticks0 = sc.proc_ticks(a.server_pid) if spec_pids[0] != a.server_pid else None
        win_.start_sampler(0.25)
        sent: dict[int, float] = {}
        acked: dict[int, float] = {}
        player_lat: list[float] = []
        late = errors = 0
        interval = 1.0 / a.rate
        t_start = sc.now()
        for i in range(a.moves):
            wait = t_start + i * interval - sc.now()
            if wait > 0:
                await asyncio.sleep(wait)
            elif wait < -0.001:
                late += 1
            t0 = sc.now()
            player.send(text)
            while True:
                msg = await player.recv()
                if msg.startswith(b'{"kind":"result"') or msg.startswith(b'{"kind":"error"'):
                    break
            t1 = sc.now()
            if msg.startswith(b'{"kind":"error"'):
                errors += 1
                continue
            v = json.loads(msg)["version"]
            sent[v], acked[v] = t0, t1
            player_lat.append(t1 - t0)
        t_sent = sc.now()
        await tell({"last": max(sent) if sent else 0, "until": sc.now() + a.grace})
        for w in watchers:
            await hear(w)
        t_drained = sc.now()
        gen = [(sc.proc_ticks(w.pid) or 0) - t for w, t in zip(watchers, gen0, strict=True)]
        win = win_.stop()
        secs = win["seconds"]
        watchers_pct = [round(100 * t / sc.CLK / secs, 1) for t in gen]
        win["driverCpuPct"] = win["clientCpuPct"]
        win["watcherCpuPct"] = watchers_pct
        win["clientCpuPct"] = round(win["clientCpuPct"] + sum(watchers_pct), 1)
        win["foreignCpuPct"] = round(win["foreignCpuPct"] - sum(watchers_pct), 1)  # the watchers are ours
        if command_ticks0 is not None:
            win["commandServerCpuPct"] = round(
                100 * ((sc.proc_ticks(a.server_pid) or 0) - command_ticks0) / sc.CLK / secs, 1
            )
        await tell({"sent": sent, "acked": acked})
        tallies = [await hear(w) for w in watchers]
        for w in watchers:
            await w.wait()
    finally:
        for w in watchers:
            if w.returncode is None:
                w.kill()
                await w.wait()
    lat_send: list[float] = []
    lat_ack: list[float] = []
    for i in range(k):
        for suffix, into in ((".send", lat_send), (".ack", lat_ack)):
            f = Path(f"{out}.w{i}{suffix}")
            arr = array("d")
            arr.frombytes(f.read_bytes())
            into.extend(arr)
            f.unlink()
    received: dict[int, int] = {}
    last_rx: dict[int, float] = {}
    for t in tallies:
        for s, n in t["received"].items():
            received[int(s)] = received.get(int(s), 0) + n
        for s, at in t["lastRx"].items():
            last_rx[int(s)] = max(last_rx.get(int(s), 0.0), at)
    missing = sum(S - received.get(s, 0) for s in sent)
    codes: dict[str, int] = {}
    for t in tallies:
        for c, n in t["closeCodes"].items():
            codes[c] = codes.get(c, 0) + n
    complete = [last_rx[s] - sent[s] for s in sent if s in last_rx]
    player.close()
    result = {
        "test": "fanout",
        "system": "salvo",
        "spectators": a.spectators,
        "connected": S,
        "connectFailures": sum(r["failures"] for r in ready),
        "connectAllMs": round(connect_s * 1000),
        "watcherConnectMs": [r["connectMs"] for r in ready],
        "watcherSpectators": [r["connected"] for r in ready],
        "movesSent": len(sent),
        "targetRate": a.rate,
        "achievedRate": round(len(sent) / (t_sent - t_start), 1),
        "lateSends": late,
        "errors": errors,
        "deliveriesExpected": len(sent) * S,
        "deliveriesMissing": missing,
        "closedDuringRun": sum(t["closed"] for t in tallies),
        "closeCodes": codes,
        "drainMsAfterLastSend": round((t_drained - t_sent) * 1000),
        "deliveryLatencyMs": sc.summary(lat_send),
        "ackToReceiptMs": sc.summary(lat_ack),
        "fanoutCompleteMs": sc.summary(complete),
        "playerOwnLatencyMs": sc.summary(player_lat),
        "rssBeforeSpectatorsMB": rss_before,
        "rssAfterSpectatorsMB": rss_after,
        "rssPerSpectatorKB": (
            round((rss_after - rss_before) * 1024 / max(1, S), 1) if rss_before and rss_after else None
        ),
        "deliveriesPerSec": round(len(lat_send) / (t_drained - t_start)),
        **({"page": True, "viewMessageBytes": [t.get("viewMessageBytes") for t in tallies]} if a.page else {}),
        **win,
    }
    result["struggled"] = bool(
        missing
        or result["connectFailures"]
        or result["closedDuringRun"]
        or errors
        or result["achievedRate"] < 0.9 * a.rate
        or (result["deliveryLatencyMs"]["p99"] or 0) > 1000
        or win["serverCpuPct"] > 90
    )
    return result


if __name__ == "__main__":
    main()
