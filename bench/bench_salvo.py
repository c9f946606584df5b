"""Salvo benchmarks: fold rate, ?at= latency, command throughput over HTTP, reconnect bytes.

    .venv/bin/python bench/bench_salvo.py            # full run (~3-4 minutes)
    .venv/bin/python bench/bench_salvo.py --quick    # smaller games, shorter runs (~1 minute)
    .venv/bin/python bench/bench_salvo.py --only fold,at --json out.json
    .venv/bin/python bench/bench_salvo.py --only commands --profile   # cProfile the server (50 games, SQLite)
    .venv/bin/python bench/bench_salvo.py --only commands --no-pg --pin --peer <run.sh dir | RESULTS.md>

The HTTP figures are taken against a real server subprocess (`python -m service serve`: uvicorn, uvloop,
httptools, one worker) with the load client in this process on the same machine, so the client's CPU
comes out of the same cores; the client is a minimal keep-alive HTTP/1.1 client (much cheaper per request
than httpx) so that it, not the server, is the smaller cost. See docs/benchmarks.md for what was measured.

Big games are built in memory by the real GameService (decide, evolve, dice, snapshots every 500) over a
buffering store, then bulk-inserted: building a 100,000-event game one durable command at a time would
take minutes and measure nothing we want here.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib
import json
import os
import random
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import msgspec  # noqa: E402
import uvloop  # noqa: E402

from service.domain.core import find_ruleset, register_ruleset, seat  # noqa: E402
from service.domain.core.choices import option_commands  # noqa: E402
from service.events.application import GameService  # noqa: E402
from service.events.head import codec_for, head_from_rows  # noqa: E402
from service.events.replay import Folder, decode_rows  # noqa: E402
from service.events.store import SqlEventStore, WriteBatch  # noqa: E402
from service.events.tables import EVENTS, GAMES, IDEMPOTENCY, SEATS, SEEDS, SNAPSHOTS  # noqa: E402
from tests.support import tiny  # noqa: E402
from tests.support.server import ServerProcess  # noqa: E402

PG_DEFAULT = "postgresql://postgres@127.0.0.1:5432/test"
ENDLESS = {"hull": 10**6, "turn_limit": 10**6}  # outlasts any run (scenario values are capped at 10**6)
RESULTS: dict[str, Any] = {}
PIN: list[str] = []  # --pin: the server's taskset prefix


def say(text: str = "") -> None:
    print(text, flush=True)


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


# --- building big games ------------------------------------------------------------------------------


class BufferStore:
    """Enough of SqlEventStore for GameService to run with no I/O; keeps every batch for a bulk load."""

    def __init__(self) -> None:
        self.batches: list[WriteBatch] = []
        self.seeds: dict[tuple[str, int], Any] = {}
        self.games: dict[str, Any] = {}
        self.events: dict[str, list[dict[str, Any]]] = {}

    async def write(self, batch: WriteBatch) -> None:
        self.batches.append(batch)
        if batch.game is not None:
            self.games[batch.game["id"]] = SimpleNamespace(**batch.game)
        for s in batch.seeds:
            self.seeds[(s["game_id"], s["turn"])] = SimpleNamespace(**s)
        self.events.setdefault(batch.game_id, []).extend(batch.events)

    async def seed(self, game_id: str, turn: int) -> Any:
        return self.seeds.get((game_id, turn))

    async def game(self, game_id: str) -> Any:
        return self.games.get(game_id)

    async def idempotency(self, game_id: str, key: str) -> Any:
        return None

    async def read_events_of_types(self, game_id: str, types: tuple[str, ...]) -> list[Any]:
        return [SimpleNamespace(**e) for e in self.events.get(game_id, []) if e["type"] in types]

    async def snapshot(self, game_id: str, at_most: int) -> Any:
        return None

    async def read_events(
        self, game_id: str, after: int = 0, upto: int | None = None, limit: int | None = None
    ) -> list[Any]:
        return [SimpleNamespace(**e) for e in self.events.get(game_id, []) if e["seq"] > after]

    def flush_into(self, url: str) -> None:
        """Bulk-insert everything into a real database (schema created by the store's migrations)."""
        store = SqlEventStore(url)
        store.start()
        try:
            tables = {"games": [], "seats": [], "seeds": [], "events": [], "idem": [], "snaps": []}
            for b in self.batches:
                if b.game is not None:
                    tables["games"].append(b.game)
                tables["seats"] += b.seats
                tables["seeds"] += b.seeds
                tables["events"] += b.events
                if b.idempotency is not None:
                    tables["idem"].append(b.idempotency)
                if b.snapshot is not None:
                    tables["snaps"].append(b.snapshot)
            with store.engine.begin() as conn:
                for table, key in (
                    (GAMES, "games"),
                    (SEATS, "seats"),
                    (SEEDS, "seeds"),
                    (EVENTS, "events"),
                    (IDEMPOTENCY, "idem"),
                    (SNAPSHOTS, "snaps"),
                ):
                    rows = tables[key]
                    for i in range(0, len(rows), 5000):
                        conn.execute(table.insert(), rows[i : i + 5000])
        finally:
            store.close()


def tiny_cycle() -> list[tuple[str, dict[str, Any]]]:
    """One tiny turn: two shots (dice), two hides, both seats end 'fire', both end 'end' (new turn:
    seed revealed, next seed committed). 8 commands, 12 events."""
    return [
        ("red", {"type": "tiny.shoot", "shooter": "red", "target": "blue"}),
        ("blue", {"type": "tiny.shoot", "shooter": "blue", "target": "red"}),
        ("red", {"type": "tiny.hide", "seat": "red", "secret": 1}),
        ("blue", {"type": "tiny.hide", "seat": "blue", "secret": 2}),
        ("red", {"type": "tiny.end_phase", "seat": "red"}),
        ("blue", {"type": "tiny.end_phase", "seat": "blue"}),
        ("red", {"type": "tiny.end_phase", "seat": "red"}),
        ("blue", {"type": "tiny.end_phase", "seat": "blue"}),
    ]


async def build_tiny_game(buffer: BufferStore, events: int, snapshot_every: int = 500) -> dict[str, Any]:
    service = GameService(buffer, snapshot_every)  # type: ignore[arg-type]
    created = await service.create_game("tiny", ENDLESS)
    bodies = [(who, msgspec.json.encode({"command": cmd})) for who, cmd in tiny_cycle()]
    head = await service.head(created.game_id)
    i = 0
    while head.seq < events:
        who, body = bodies[i % len(bodies)]
        await service.handle_command(created.game_id, seat(who), body)
        i += 1
    return {
        "game_id": created.game_id,
        "seats": created.seat_tokens,
        "umpire_token": created.umpire_token,
        "events": head.seq,
        "commands": i,
    }


async def build_options_game(buffer: BufferStore, ruleset_name: str, events: int, seed: int = 7) -> dict[str, Any]:
    """Play a ruleset by its own options() (a random legal command of a random seat), game after game
    (its scenarios end in a few hundred events), until the games hold ``events`` events in all."""
    ruleset = find_ruleset(ruleset_name)
    service = GameService(buffer, 500)  # type: ignore[arg-type]
    rng = random.Random(seed)
    scenarios = sorted(ruleset.scenarios())
    played: list[str] = []
    total = refused = 0
    while total < events:
        created = await service.create_game(ruleset_name, scenarios[len(played) % len(scenarios)])
        head = await service.head(created.game_id)
        stuck = 0
        while not ruleset.is_over(head.state) and stuck < 50:
            seats = list(head.seats)
            rng.shuffle(seats)
            for s in seats:
                options = option_commands(ruleset.options(head.state, seat(s)))
                if options:
                    body = msgspec.json.encode({"command": options[rng.randrange(len(options))]})
                    try:
                        await service.handle_command(created.game_id, seat(s), body)
                    except Exception:  # noqa: BLE001 - an option decide() refuses is itself a finding
                        refused += 1
                        stuck += 1
                    break
            else:
                stuck += 1  # nobody has anything to do and the game is not over
        played.append(created.game_id)
        total += head.seq
        if head.seq < 10:
            break  # the ruleset does not get anywhere on random options; measure what we have
    return {"game_ids": played, "events": total, "refused_options": refused}


# --- 1. fold rate ------------------------------------------------------------------------------------


def timed(fn: Callable[[], Any], repeat: int = 3) -> tuple[float, Any]:
    best, result = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def fold_figures(url: str, game_ids: list[str], label: str) -> dict[str, Any]:
    """Figures summed over ``game_ids`` (each folded from its own initial state)."""
    store = SqlEventStore(url)
    store.start()
    try:
        games = []
        for game_id in game_ids:
            game_row = asyncio.run(store.game(game_id))
            rows = asyncio.run(store.read_events(game_id))
            ruleset = find_ruleset(game_row.ruleset)
            initial = ruleset.initial_state(ruleset.parse_setup(msgspec.json.decode(game_row.setup)))
            games.append((game_id, game_row, rows, ruleset, codec_for(ruleset), initial))
        n = sum(len(g[2]) for g in games)

        def each(fn: Callable[..., Any]) -> Callable[[], list[Any]]:
            return lambda: [fn(*g) for g in games]

        decode_s, decoded = timed(each(lambda _i, _g, rows, _r, codec, _s: decode_rows(codec, rows)))
        by_game = dict(zip(game_ids, decoded, strict=True))
        fold_s, finals = timed(each(lambda i, _g, _rows, r, _c, s: Folder(r).fold(s, by_game[i])))
        evolve_s, _ = timed(each(lambda i, _g, _rows, r, _c, s: _bare_evolve(r, s, by_game[i])))
        load_s, heads = timed(each(lambda i, g, rows, *_: head_from_rows(i, g, rows)))
        assert [h.state for h in heads] == finals
        gc.collect()
        gc.freeze()
        gc.disable()
        try:
            decode_nogc_s, _ = timed(each(lambda _i, _g, rows, _r, codec, _s: decode_rows(codec, rows)))
            load_nogc_s, _ = timed(each(lambda i, g, rows, *_: head_from_rows(i, g, rows)))
        finally:
            gc.enable()
            gc.unfreeze()
        t0 = time.perf_counter()
        for game_id in game_ids:
            asyncio.run(store.read_events(game_id))
        read2_s = time.perf_counter() - t0
        out = {
            "label": label,
            "events": n,
            "read_rows_per_s": n / read2_s,
            "decode_per_s": n / decode_s,
            "decode_nogc_per_s": n / decode_nogc_s,
            "fold_per_s": n / fold_s,
            "bare_evolve_per_s": n / evolve_s,
            "load_per_s": n / load_s,
            "load_nogc_per_s": n / load_nogc_s,
            "read_decode_fold_per_s": n / (read2_s + load_s),
            "games": len(game_ids),
        }
    finally:
        store.close()
    say(f"  fold [{label}] {n:,} events in {len(game_ids)} game(s)")
    say(f"    read rows from the database        {out['read_rows_per_s']:>12,.0f} events/s")
    say(f"    decode (codec.decode, GC on / off)  {out['decode_per_s']:>12,.0f} / {out['decode_nogc_per_s']:,.0f}")
    say(
        f"    fold decoded events (Folder.fold)   {out['fold_per_s']:>12,.0f} events/s"
        f"   (bare ruleset.evolve loop {out['bare_evolve_per_s']:,.0f})"
    )
    say(f"    decode+fold (head_from_rows) GC on  {out['load_per_s']:>12,.0f} / off {out['load_nogc_per_s']:,.0f}")
    say(f"    read+decode+fold (a cold load)      {out['read_decode_fold_per_s']:>12,.0f} events/s")
    return out


def _bare_evolve(ruleset: Any, state: Any, decoded: Iterable[Any]) -> Any:
    from service.events.envelope import SERVICE_EVENT_TYPES

    evolve = ruleset.evolve
    for d in decoded:
        if not isinstance(d.event, SERVICE_EVENT_TYPES):
            state = evolve(state, d.event)
    return state


# --- a minimal keep-alive HTTP/1.1 client ---------------------------------------------------------------


class RawHTTP:
    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def connect(self) -> RawHTTP:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        return self

    async def request(self, method: str, path: str, body: bytes = b"", headers: str = "") -> tuple[int, bytes]:
        assert self.reader is not None and self.writer is not None
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\n{headers}"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        self.writer.write(head.encode() + body)
        raw = await self.reader.readuntil(b"\r\n\r\n")
        status = int(raw[9:12])
        length = 0
        for line in raw.split(b"\r\n")[1:]:
            if line[:15].lower() == b"content-length:":
                length = int(line[15:])
                break
        return status, (await self.reader.readexactly(length)) if length else b""

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            try:
                await self.writer.wait_closed()
            except OSError:
                pass


def auth(token: str) -> str:
    return f"Authorization: Bearer {token}\r\n"


# --- 2. ?at= latency ---------------------------------------------------------------------------------


async def at_latency(server: ServerProcess, game: dict[str, Any], samples: int) -> dict[str, Any]:
    client = await RawHTTP(server.host, int(server.port)).connect()
    rng = random.Random(1)
    out: dict[str, Any] = {"events": game["events"], "samples": samples}
    try:
        # the first request for a game after a (re)start loads its head: a fold of the whole log
        t0 = time.perf_counter()
        status, body = await client.request(
            "GET", f"/v1/games/{game['game_id']}?at={game['events'] // 2}", headers=auth(game["umpire_token"])
        )
        out["cold_first_ms"] = (time.perf_counter() - t0) * 1000
        assert status == 200, body[:300]
        say(
            f"  first request after server start (GameService._load folds the whole log): {out['cold_first_ms']:.0f} ms"
        )
        for label, token in (("umpire", game["umpire_token"]), ("seat red", game["seats"]["red"]), ("spectator", None)):
            lat: list[float] = []
            hdr = auth(token) if token else ""
            for _ in range(samples):
                at = rng.randrange(1, game["events"])
                t0 = time.perf_counter()
                status, body = await client.request("GET", f"/v1/games/{game['game_id']}?at={at}", headers=hdr)
                lat.append(time.perf_counter() - t0)
                assert status == 200, body[:300]
            worst = []
            for at in (499, 999, game["events"] - 1):  # just before a snapshot: the longest tail
                t0 = time.perf_counter()
                status, _ = await client.request("GET", f"/v1/games/{game['game_id']}?at={at}", headers=hdr)
                worst.append(time.perf_counter() - t0)
            out[label] = {
                "p50_ms": pct(lat, 50) * 1000,
                "p99_ms": pct(lat, 99) * 1000,
                "max_ms": max(lat) * 1000,
                "worst_tail_ms": max(worst) * 1000,
            }
            say(
                f"  GET ?at=random [{label}] {samples} samples: p50 {ms(pct(lat, 50))}, p99 {ms(pct(lat, 99))},"
                f" max {ms(max(lat))}; at=snapshot-1 {ms(max(worst))}"
            )
        t0 = time.perf_counter()
        status, _ = await client.request("GET", f"/v1/games/{game['game_id']}", headers=auth(game["umpire_token"]))
        say(f"  GET (live head, no ?at=) {ms(time.perf_counter() - t0)}")
    finally:
        await client.close()
    return out


# --- 3. command throughput ----------------------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def endless_games(host: str, port: int, games: int) -> list[dict[str, Any]]:
    """Create ``games`` endless tiny games; their creation bodies (ids and tokens)."""
    setup = await RawHTTP(host, port).connect()
    created = []
    for _ in range(games):
        status, body = await setup.request(
            "POST", "/v1/games", msgspec.json.encode({"ruleset": "tiny", "scenario": ENDLESS})
        )
        assert status == 201, body
        created.append(json.loads(body))
    await setup.close()
    return created


async def command_load(server: ServerProcess, games: int, seconds: float, warmup: float) -> dict[str, Any]:
    host, port = server.host, int(server.port)
    created = await endless_games(host, port, games)
    cycle = [(who, msgspec.json.encode({"command": cmd})) for who, cmd in tiny_cycle()]
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    count = 0
    state = {"measuring": False, "stop": False}

    async def player(game: dict[str, Any]) -> None:
        nonlocal count
        conn = await RawHTTP(host, port).connect()
        path = f"/v1/games/{game['game_id']}/commands"
        headers = {s: auth(t) for s, t in game["seats"].items()}
        i = 0
        try:
            while not state["stop"]:
                who, body = cycle[i % len(cycle)]
                t0 = time.perf_counter()
                status, _ = await conn.request("POST", path, body, headers[who])
                dt = time.perf_counter() - t0
                i += 1
                if state["measuring"]:
                    latencies.append(dt)
                    statuses[status] = statuses.get(status, 0) + 1
                    count += status == 201
        finally:
            await conn.close()

    tasks = [asyncio.create_task(player(g)) for g in created]
    await asyncio.sleep(warmup)
    state["measuring"] = True
    cpu0, cpu_client0, t0 = cpu_seconds(server.pid), time.process_time(), time.perf_counter()
    await asyncio.sleep(seconds)
    state["measuring"] = False
    elapsed = time.perf_counter() - t0
    cpu_server, cpu_client = cpu_seconds(server.pid) - cpu0, time.process_time() - cpu_client0
    state["stop"] = True
    await asyncio.gather(*tasks)
    return {
        "games": games,
        "seconds": elapsed,
        "commands": count,
        "per_s": count / elapsed,
        "p50_ms": pct(latencies, 50) * 1000,
        "p99_ms": pct(latencies, 99) * 1000,
        "max_ms": max(latencies) * 1000,
        "statuses": statuses,
        "server_cpu": cpu_server / elapsed,
        "client_cpu": cpu_client / elapsed,
    }


async def ws_command_load(server: ServerProcess, games: int, seconds: float, warmup: float) -> dict[str, Any]:
    """The same closed loop as command_load, but each seat sends its commands over its websocket stream
    (which also delivers every event of the game to it, as a live client would receive them)."""
    from websockets.asyncio.client import connect

    host, port = server.host, int(server.port)
    created = await endless_games(host, port, games)
    cycle = [(who, msgspec.json.encode({"kind": "command", "command": cmd}).decode()) for who, cmd in tiny_cycle()]
    latencies: list[float] = []
    count = 0
    errors = 0
    state = {"measuring": False, "stop": False}
    counted = {"event_frames": 0}  # live event frames read by the seats (proof that events are sent)

    async def player(game: dict[str, Any]) -> None:
        nonlocal count, errors
        sockets = {}
        for who, token in game["seats"].items():
            # after=0: the socket replays the game and then receives every live event, as a client does
            # (after=999999999 made the stream drop every live event as already seen: no event sends)
            url = f"ws://{host}:{port}/v1/games/{game['game_id']}/stream?after=0" + (
                "&own_events=result" if OWN_EVENTS_IN_RESULT else ""
            )
            sockets[who] = await connect(
                url, compression=None, max_queue=None, additional_headers={"Authorization": f"Bearer {token}"}
            )
            while json.loads(await sockets[who].recv())["kind"] != "caught_up":
                pass  # start only once caught up, as a boardgame.io player waits for its sync
        i = 0
        try:
            while not state["stop"]:
                who, text = cycle[i % len(cycle)]
                ws = sockets[who]
                t0 = time.perf_counter()
                await ws.send(text)
                while True:
                    msg = json.loads(await ws.recv())
                    if msg["kind"] in ("result", "error"):
                        break
                    if state["measuring"] and msg["kind"] == "event":
                        counted["event_frames"] += 1
                dt = time.perf_counter() - t0
                i += 1
                if state["measuring"]:
                    latencies.append(dt)
                    count += msg["kind"] == "result"
                    errors += msg["kind"] == "error"
        finally:
            for ws in sockets.values():
                await ws.close()

    tasks = [asyncio.create_task(player(g)) for g in created]
    await asyncio.sleep(warmup)
    state["measuring"] = True
    cpu0, t0 = cpu_seconds(server.pid), time.perf_counter()
    await asyncio.sleep(seconds)
    state["measuring"] = False
    elapsed = time.perf_counter() - t0
    cpu_server = cpu_seconds(server.pid) - cpu0
    state["stop"] = True
    await asyncio.gather(*tasks)
    return {
        "games": games,
        "seconds": elapsed,
        "commands": count,
        "per_s": count / elapsed,
        "errors": errors,
        "p50_ms": pct(latencies, 50) * 1000,
        "p99_ms": pct(latencies, 99) * 1000,
        "max_ms": max(latencies) * 1000,
        "server_cpu": cpu_server / elapsed,
        "transport": "websocket",
        "event_frames": counted["event_frames"],
    }


async def healthz_load(server: ServerProcess, conns: int, seconds: float) -> dict[str, Any]:
    host, port = server.host, int(server.port)
    lat: list[float] = []
    stop = False

    async def one() -> None:
        c = await RawHTTP(host, port).connect()
        while not stop:
            t0 = time.perf_counter()
            await c.request("GET", "/healthz")
            lat.append(time.perf_counter() - t0)
        await c.close()

    tasks = [asyncio.create_task(one()) for _ in range(conns)]
    await asyncio.sleep(seconds)
    stop = True
    await asyncio.gather(*tasks)
    return {"per_s": len(lat) / seconds, "p50_ms": pct(lat, 50) * 1000, "p99_ms": pct(lat, 99) * 1000}


OWN_EVENTS_IN_RESULT = True  # --own-events frames: the socket also gets its own events as event frames


def peer_ratio_table(peer: str, results: list[dict[str, Any]]) -> list[str]:
    """This script's command rows (tiny cycle, SQLite) beside boardgame.io's moves/s from the peer's
    results (a run.sh results dir or its RESULTS.md, read as bench/peer_table.py reads it). The
    like-for-like table (the harness's own client and workload) is bench/peer_table.py's."""
    sys.path.insert(0, str(ROOT / "bench"))
    import peer_table

    path = Path(peer)
    if path.is_dir():
        files = {p.stem: json.loads(p.read_text()) for p in path.glob("moves-*.json")}
    else:
        files = peer_table.peer_from_results_md(path.read_text())
    lines = ["| what | boardgame.io (best client) | Salvo (this run) | Salvo ÷ bgio |", "|---|---:|---:|---:|"]
    rows = [(r.get("transport", "http"), r["games"], r) for r in results if r.get("backend") == "sqlite"]
    for transport, games, r in rows:
        if transport == "http" and games != 50:
            continue
        bgio = [f for f in (files.get(f"moves-raw-K{games}"), files.get(f"moves-bgio-K{games}")) if f]
        if not bgio:
            continue
        best = max(f["movesPerSec"] for f in bgio)
        bp99 = min(f["latencyMs"]["p99"] for f in bgio)
        lines.append(
            f"| commands/s, {games} game(s), {transport} (p99) | {best:,.0f} ({bp99} ms) "
            f"| {r['per_s']:,.0f} ({r['p99_ms']:.1f} ms) | {r['per_s'] / best:.2f}× |"
        )
    return lines


NO_RATE_LIMITS = {"SALVO_RATE_COMMANDS_PER_TOKEN": "off", "SALVO_RATE_COMMANDS_PER_ADDRESS": "off"}


def run_commands(
    url: str, label: str, levels: list[int], seconds: float, warmup: float, workdir: Path, profile: bool = False
) -> list[dict[str, Any]]:
    results = []
    python = [*PIN, sys.executable]
    prof_path = workdir / f"server-{label}.prof"
    if profile:
        python = [*PIN, sys.executable, "-m", "cProfile", "-o", str(prof_path)]
    # a benchmark is one address sending thousands of commands a second: rate limits off
    server = ServerProcess(url, python=python, log_path=workdir / f"server-{label}.log", env=NO_RATE_LIMITS)
    server.start()
    try:
        if label == "sqlite":
            base = uvloop.run(healthz_load(server, 50, min(seconds, 3)))
            say(
                f"  [{label}] baseline GET /healthz, 50 connections: {base['per_s']:,.0f} req/s,"
                f" p50 {base['p50_ms']:.2f} ms, p99 {base['p99_ms']:.2f} ms"
            )
            RESULTS["healthz"] = base
        for games in levels:
            r = uvloop.run(command_load(server, games, seconds, warmup))
            r["backend"] = label
            results.append(r)
            other = {k: v for k, v in r["statuses"].items() if k != 201}
            say(
                f"  [{label}] {games:>2} games: {r['per_s']:>7,.0f} commands/s  p50 {r['p50_ms']:6.2f} ms"
                f"  p99 {r['p99_ms']:6.2f} ms  max {r['max_ms']:6.1f} ms  server CPU {r['server_cpu']:.0%}"
                f"  client CPU {r['client_cpu']:.0%}" + (f"  non-201: {other}" if other else "")
            )
        for games in levels:
            r = uvloop.run(ws_command_load(server, games, seconds, warmup))
            r["backend"] = label
            results.append(r)
            say(
                f"  [{label}] websocket {games:>2} games: {r['per_s']:>7,.0f} commands/s  p50 {r['p50_ms']:6.2f} ms"
                f"  p99 {r['p99_ms']:6.2f} ms  max {r['max_ms']:6.1f} ms  server CPU {r['server_cpu']:.0%}"
                f"  event frames read {r['event_frames']:,}" + (f"  errors: {r['errors']}" if r["errors"] else "")
            )
    finally:
        server.stop(timeout=30)
    if profile and prof_path.exists():
        import pstats

        say(f"  cProfile of the server main thread ({prof_path}), top by tottime:")
        stats = pstats.Stats(str(prof_path))
        stats.sort_stats("tottime").print_stats(25)
        stats.sort_stats("cumulative").print_stats(40)
    return results


# --- 4. reconnect bytes -------------------------------------------------------------------------------


def frame_overhead(n: int) -> int:
    return 2 if n < 126 else 4 if n < 65536 else 10  # server frames are unmasked


async def reconnect_bytes(server: ServerProcess, game: dict[str, Any]) -> list[dict[str, Any]]:
    import websockets

    n = game["events"]
    out = []
    for missed in (1, 10, 100, 1000, n):
        for who, token in (("spectator", None), ("umpire", game["umpire_token"])):
            after = n - missed
            url = f"{server.ws_url}/v1/games/{game['game_id']}/stream?after={after}"
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            payload = wire = messages = events = 0
            t0 = time.perf_counter()
            async with websockets.connect(url, compression=None, max_size=None, additional_headers=headers) as ws:
                handshake = sum(len(k) + len(v) + 4 for k, v in ws.response.headers.raw_items()) + 40
                async for message in ws:
                    size = len(message.encode() if isinstance(message, str) else message)
                    payload += size
                    wire += size + frame_overhead(size)
                    messages += 1
                    kind = json.loads(message)["kind"]
                    events += kind == "event"
                    if kind == "caught_up":
                        break
            elapsed = time.perf_counter() - t0
            out.append(
                {
                    "viewer": who,
                    "missed": missed,
                    "messages": messages,
                    "events": events,
                    "payload_bytes": payload,
                    "wire_bytes": wire + handshake,
                    "seconds": elapsed,
                }
            )
            say(
                f"  [{who:9}] after={after:>6} (missed {missed:>6}): {events:>6} events, {payload:>10,} payload B,"
                f" ~{wire + handshake:>10,} B on the wire incl. handshake, {elapsed * 1000:8.1f} ms to caught_up"
            )
    return out


# --- main -----------------------------------------------------------------------------------------------


def pg_schema_url(base: str) -> tuple[str, Callable[[], None]] | None:
    from sqlalchemy import create_engine, text

    try:
        admin = create_engine(base.replace("postgresql://", "postgresql+psycopg://", 1))
        schema = "bench_" + uuid.uuid4().hex[:10]
        with admin.begin() as conn:
            conn.execute(text(f"create schema {schema}"))
    except Exception as exc:  # noqa: BLE001
        say(f"  PostgreSQL not reachable at {base}: {exc}; skipped")
        return None

    def drop() -> None:
        with admin.begin() as conn:
            conn.execute(text(f"drop schema {schema} cascade"))
        admin.dispose()

    sep = "&" if "?" in base else "?"
    return f"{base}{sep}options=-csearch_path%3D{schema}", drop


def machine() -> str:
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
    except (OSError, StopIteration):
        cpu = "?"
    return f"{os.cpu_count()} CPUs ({cpu}), Python {sys.version.split()[0]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smaller games and shorter runs")
    parser.add_argument("--only", default="fold,at,commands,reconnect")
    parser.add_argument("--seconds", type=float, default=None, help="measured seconds per load level")
    parser.add_argument("--pg", default=os.environ.get("SALVO_TEST_DATABASE_URL", PG_DEFAULT))
    parser.add_argument("--no-pg", action="store_true")
    parser.add_argument("--profile", action="store_true", help="cProfile the server (commands, SQLite)")
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    parser.add_argument(
        "--peer",
        default=None,
        help="the peer's results (run.sh dir or RESULTS.md): print the "
        "ratio table of the command rows against boardgame.io",
    )
    parser.add_argument(
        "--own-events",
        choices=["result", "frames"],
        default="result",
        help="websocket seats take their own events from the result (default) or as frames too",
    )
    parser.add_argument("--pin", action="store_true", help="server on CPU 0, this load generator on CPU 1")
    args = parser.parse_args()
    only = set(args.only.split(","))
    global OWN_EVENTS_IN_RESULT, PIN
    OWN_EVENTS_IN_RESULT = args.own_events == "result"
    if args.pin and (os.cpu_count() or 1) > 1:
        PIN = ["taskset", "-c", "0"]
        os.sched_setaffinity(0, {1})
    big = 20_000 if args.quick else 100_000
    seconds = args.seconds or (3.0 if args.quick else 10.0)
    warmup = 1.0
    register_ruleset("tiny", tiny.RULESET)
    workdir = Path(tempfile.mkdtemp(prefix="salvo-bench-"))
    db_url = f"sqlite:///{workdir}/bench.db"
    say(f"Salvo benchmarks on {machine()}; work dir {workdir}")
    RESULTS["machine"] = machine()

    games: dict[str, dict[str, Any]] = {}
    if only & {"fold", "at", "reconnect"}:
        buffer = BufferStore()
        t0 = time.perf_counter()
        games["big"] = asyncio.run(build_tiny_game(buffer, big))
        build_s = time.perf_counter() - t0
        games["reconnect"] = asyncio.run(build_tiny_game(buffer, 10_000))
        buffer.flush_into(db_url)
        say(
            f"built a {games['big']['events']:,}-event tiny game ({games['big']['commands']:,} commands through"
            f" GameService with no I/O: {games['big']['commands'] / build_s:,.0f} commands/s decide+evolve+encode)"
            f" and a {games['reconnect']['events']:,}-event one"
        )
        RESULTS["build_commands_per_s_no_io"] = games["big"]["commands"] / build_s

    if "fold" in only:
        say("\n1. Fold rate")
        RESULTS["fold"] = [fold_figures(db_url, [games["big"]["game_id"]], "tiny")]
        try:
            gsc2 = importlib.import_module("service.domain.gsc2")
            ruleset = gsc2.RULESET
            assert ruleset.scenarios()
        except Exception as exc:  # noqa: BLE001
            say(f"  GSC2: not measured (service.domain.gsc2 has no playable RULESET yet: {exc!r})")
            RESULTS["gsc2"] = f"not measured: {exc!r}"
        else:
            gsc2_url = f"sqlite:///{workdir}/gsc2.db"
            gbuf = BufferStore()
            try:
                t0 = time.perf_counter()
                played = asyncio.run(build_options_game(gbuf, "gsc2", big))
                say(
                    f"  GSC2: played {len(played['game_ids'])} games by random options() ({played['events']:,}"
                    f" events, {time.perf_counter() - t0:.1f} s; options decide() refused:"
                    f" {played['refused_options']})"
                )
                gbuf.flush_into(gsc2_url)
                RESULTS["fold"].append(fold_figures(gsc2_url, played["game_ids"], "gsc2"))
            except Exception as exc:  # noqa: BLE001
                say(f"  GSC2: playing by options() failed: {exc!r}")
                RESULTS["gsc2"] = f"failed: {exc!r}"

    if only & {"at", "reconnect"}:
        server = ServerProcess(db_url, log_path=workdir / "server-read.log")
        server.start()
        try:
            if "at" in only:
                say(
                    f"\n2. GET /v1/games/{{id}}?at=SEQ on the {games['big']['events']:,}-event game"
                    " (snapshots every 500), HTTP, one connection"
                )
                RESULTS["at"] = uvloop.run(at_latency(server, games["big"], 100 if args.quick else 300))
            if "reconnect" in only:
                say(
                    f"\n4. Reconnect to the {games['reconnect']['events']:,}-event game over the websocket"
                    " with after=SEQ"
                )
                RESULTS["reconnect"] = uvloop.run(reconnect_bytes(server, games["reconnect"]))
        finally:
            server.stop()

    if "commands" in only:
        levels = [1, 10, 50]
        say(
            f"\n3. Commands over HTTP (one client per game, next command when the previous is answered;"
            f" {warmup:.0f} s warm-up, {seconds:.0f} s measured)"
        )
        RESULTS["commands"] = run_commands(
            f"sqlite:///{workdir}/load.db", "sqlite", levels, seconds, warmup, workdir, profile=args.profile
        )
        if not args.no_pg:
            made = pg_schema_url(args.pg)
            if made is not None:
                pg_url, drop = made
                try:
                    RESULTS["commands"] += run_commands(pg_url, "postgresql", levels, seconds, warmup, workdir)
                finally:
                    drop()
    if args.peer and RESULTS.get("commands"):
        say("\nRatio against the peer (" + args.peer + "):")
        for line in peer_ratio_table(args.peer, RESULTS["commands"]):
            say("  " + line)
    if args.json:
        Path(args.json).write_text(json.dumps(RESULTS, indent=2, default=str))
    say(f"\ndone; logs and databases in {workdir}")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(130)
