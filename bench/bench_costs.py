"""The per-operation costs docs/capacity.md computes with: commit rates, CPU per command on SQLite and
PostgreSQL with Redis linked, transactions and bytes per command, Redis CPU per published event.

    .venv/bin/python bench/bench_costs.py                       # PostgreSQL at --pg, Redis at REDIS_URL
    .venv/bin/python bench/bench_costs.py --seconds 8 --json costs.json

1. Commit rate (fsync-bound): INSERT one row + COMMIT in a loop, one connection (what one writer
   waiting for each commit gets), then 8 connections (PostgreSQL shares WAL flushes between them):
   SQLite (WAL, synchronous=FULL, as the store) and PostgreSQL (synchronous_commit on).
2. Commands through the real server (`python -m service serve`, pinned to CPU 0, Redis linked), the
   shared harness's websocket shoot workload on 50 games (bench/peer/salvo_client.py, CPU 1): commands/s,
   server CPU µs per command, and, on PostgreSQL, transactions and WAL bytes per command (from
   pg_stat_database of a database of its own; the WAL is the cluster's, so others' load adds to it);
   every Redis message is counted by a subscriber: bytes per event.
3. Redis: its CPU (INFO cpu) per PUBLISH of a message of that size with 1 and 2 subscribers reading.
4. ``--idle-only``: the commands of 2. on SQLite with a socket process that has no sockets beside it,
   pattern-subscribed (``all``) and per game (``games``): its CPU per message is what per-game
   subscriptions save a socket process for each event of a game none of its sockets watches.

Figures in CPU time and bytes hold on a loaded machine; rates do not (say the load: it is printed).
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import psycopg
import redis

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from servers import ROOT, Server, cpu_seconds, pinned  # noqa: E402

CLIENT = HERE / "peer" / "salvo_client.py"
REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")


def commit_rate_sqlite(path: Path, seconds: float) -> float:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("pragma journal_mode=wal")
    db.execute("pragma synchronous=full")
    db.execute("create table t (id integer primary key, v blob)")
    n, end = 0, time.monotonic() + seconds
    while time.monotonic() < end:
        db.execute("begin")
        db.execute("insert into t (v) values (?)", (b"x" * 300,))
        db.execute("commit")
        n += 1
    db.close()
    return n / seconds


def commit_rate_pg(url: str, seconds: float, connections: int) -> float:
    counts = [0] * connections
    end = time.monotonic() + seconds

    def loop(i: int) -> None:
        with psycopg.connect(url, autocommit=True) as conn:
            while time.monotonic() < end:
                conn.execute("insert into commit_probe (v) values (%s)", (b"x" * 300,))
                counts[i] += 1

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("create table if not exists commit_probe (id bigserial primary key, v bytea)")
    threads = [threading.Thread(target=loop, args=(i,)) for i in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("drop table commit_probe")
    return sum(counts) / seconds


class RedisCounter:
    """Counts the messages and bytes Redis carries on salvo:game:* while running."""

    def __init__(self, url: str) -> None:
        self.pubsub = redis.Redis.from_url(url).pubsub()
        self.pubsub.psubscribe("salvo:game:*")
        self.messages = self.bytes = 0
        self.stop = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop:
            m = self.pubsub.get_message(timeout=0.2)
            if m and m["type"] == "pmessage":
                self.messages += 1
                self.bytes += len(m["data"])

    def close(self) -> None:
        self.stop = True
        self.thread.join()
        self.pubsub.close()


def pg_counters(url: str) -> dict[str, int]:
    with psycopg.connect(url, autocommit=True) as conn:
        commits = conn.execute("select xact_commit from pg_stat_database where datname = current_database()").fetchone()
        wal = conn.execute("select wal_bytes, wal_sync from pg_stat_wal").fetchone()
    return {"xact_commit": int(commits[0]), "wal_bytes": int(wal[0]), "wal_sync": int(wal[1])}


def commands(
    work: Path, name: str, database_url: str | None, seconds: float, pg: str | None, idle_mode: str | None = None
) -> dict[str, Any]:
    """``idle_mode``: also run a socket process with no sockets (SALVO_REDIS_SUBSCRIBE=idle_mode) on the
    same database: its CPU per Redis message is what a process pays for games it does not watch."""
    db = database_url or f"sqlite:///{work}/{name}.sqlite"
    server = Server(work, name, "0", database_url=db, env={"REDIS_URL": REDIS_URL})
    idle = (
        Server(
            work, f"{name}-idle", "1", database_url=db, env={"REDIS_URL": REDIS_URL, "SALVO_REDIS_SUBSCRIBE": idle_mode}
        )
        if idle_mode
        else None
    )
    counter = RedisCounter(REDIS_URL)
    out = work / f"{name}.json"
    idle0 = sum(cpu_seconds(idle.pid)) if idle else 0.0
    try:
        before = pg_counters(pg) if pg else None
        subprocess.run(
            [
                *pinned("1"),
                sys.executable,
                str(CLIENT),
                "commands",
                "--transport",
                "ws",
                "--workload",
                "shoot",
                "--games",
                "50",
                "--seconds",
                str(seconds),
                "--warmup",
                "2",
                "--port",
                str(server.port),
                "--server-pid",
                str(server.pid),
                "--out",
                str(out),
            ],
            cwd=ROOT,
            timeout=600,
            check=True,
            capture_output=True,
        )
        after = pg_counters(pg) if pg else None
        idle_used = sum(cpu_seconds(idle.pid)) - idle0 if idle else 0.0
    finally:
        counter.close()
        server.stop()
        if idle is not None:
            idle.stop()
    r = json.loads(out.read_text())
    total = r["commands"] + 20 * 50  # what the counters saw includes the warm-up; an estimate of it
    res = {
        "commandsPerSec": r["perSec"],
        "p99Ms": r["latencyMs"]["p99"],
        "serverCpuUsPerCommand": round(r["serverCpuPct"] / 100 * r["seconds"] * 1e6 / max(1, r["commands"]), 1),
        "serverCpuPct": r["serverCpuPct"],
        "foreignCpuPct": r["foreignCpuPct"],
        "redisBytesPerMessage": round(counter.bytes / max(1, counter.messages)),
        "redisMessages": counter.messages,
    }
    if idle is not None:
        res[f"idle socket process ({idle_mode}): CPU µs per message"] = round(
            idle_used * 1e6 / max(1, counter.messages), 2
        )
    if before and after:
        seen = counter.messages or total  # one message per committed batch of a game's events
        res.update(
            {
                "pgCommitsPerMessage": round((after["xact_commit"] - before["xact_commit"]) / seen, 3),
                "walBytesPerMessage": round((after["wal_bytes"] - before["wal_bytes"]) / seen),
                "walSyncsPerMessage (cluster-wide)": round((after["wal_sync"] - before["wal_sync"]) / seen, 3),
            }
        )
    return res


def redis_publish_cost(size: int, subscribers: int, n: int = 20_000) -> float:
    """Redis CPU µs per PUBLISH of ``size`` bytes with ``subscribers`` readers of the channel."""
    channel = "salvo:costprobe:" + os.urandom(4).hex()
    subs = [redis.Redis.from_url(REDIS_URL).pubsub() for _ in range(subscribers)]
    for s in subs:
        s.subscribe(channel)
    got = [0] * subscribers
    done = threading.Event()

    def read(i: int) -> None:
        while got[i] < n and not done.is_set():
            m = subs[i].get_message(timeout=0.5)
            if m and m["type"] == "message":
                got[i] += 1

    threads = [threading.Thread(target=read, args=(i,), daemon=True) for i in range(subscribers)]
    for t in threads:
        t.start()
    client = redis.Redis.from_url(REDIS_URL)
    cpu0 = client.info("cpu")
    payload = b"x" * size
    pipe = client.pipeline(transaction=False)
    for i in range(n):
        pipe.publish(channel, payload)
        if i % 200 == 199:
            pipe.execute()
    pipe.execute()
    for t in threads:
        t.join(60)
    done.set()
    cpu1 = client.info("cpu")
    for s in subs:
        s.close()
    used = (cpu1["used_cpu_sys"] + cpu1["used_cpu_user"]) - (cpu0["used_cpu_sys"] + cpu0["used_cpu_user"])
    return round(used * 1e6 / n, 2)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--pg",
        default="postgresql://postgres@127.0.0.1:5432/postgres",
        help="an admin URL: a database salvo_costs is created there and dropped afterwards",
    )
    p.add_argument("--seconds", type=float, default=8.0)
    p.add_argument("--json", default=None)
    p.add_argument(
        "--idle-only",
        action="store_true",
        help="only the idle socket process's cost per message, with all and with games",
    )
    a = p.parse_args()
    if a.idle_only:
        work = Path(tempfile.mkdtemp(prefix="salvo-costs-"))
        for mode in ("all", "games"):
            print(
                json.dumps(
                    {
                        "load": os.getloadavg(),
                        mode: commands(work, f"idle-{mode}", None, a.seconds, None, idle_mode=mode),
                    }
                ),
                flush=True,
            )
        return
    work = Path(tempfile.mkdtemp(prefix="salvo-costs-"))
    out: dict[str, Any] = {"load": os.getloadavg()}
    dbname = "salvo_costs_" + os.urandom(3).hex()
    with psycopg.connect(a.pg, autocommit=True) as admin:
        admin.execute(f"create database {dbname}")
    pg = a.pg.rsplit("/", 1)[0] + "/" + dbname
    try:
        out["commitsPerSec"] = {
            "sqlite, 1 connection": round(commit_rate_sqlite(work / "probe.sqlite", 3)),
            "postgresql, 1 connection": round(commit_rate_pg(pg, 3, 1)),
            "postgresql, 8 connections": round(commit_rate_pg(pg, 3, 8)),
        }
        print(json.dumps(out, indent=1), flush=True)
        out["commands, sqlite"] = commands(work, "sqlite", None, a.seconds, None)
        print(json.dumps(out["commands, sqlite"]), flush=True)
        out["commands, postgresql"] = commands(work, "postgresql", pg, a.seconds, pg)
        print(json.dumps(out["commands, postgresql"]), flush=True)
        size = out["commands, postgresql"]["redisBytesPerMessage"] or 1000
        out["redis µs per PUBLISH"] = {f"{k} subscriber(s), {size} B": redis_publish_cost(size, k) for k in (1, 2)}
    finally:
        with psycopg.connect(a.pg, autocommit=True) as admin:
            admin.execute(f"drop database if exists {dbname} with (force)")
    out["loadAfter"] = os.getloadavg()
    print(json.dumps(out, indent=1))
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
