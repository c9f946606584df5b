"""Memory under many games: create N games (default 20,000), play a few commands in each, and report
the server's resident memory as it goes. Heads live in an LRU (SALVO_HEAD_CACHE_SIZE, default 2,000),
locks only while held and tokens in a bounded LRU, so the RSS should level off once the budget is full.

    .venv/bin/python bench/bench_memory.py                      # 20,000 tiny games, 3 commands each
    .venv/bin/python bench/bench_memory.py --ruleset gsc2 --games 5000

The server is the real one (`python -m service serve`, SQLite in a temp directory), rate limits off.
Each command is the acting seat's first option (GET /options, then POST /commands) for rulesets other
than tiny; tiny games take fixed shots.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.server import ServerProcess  # noqa: E402

NO_RATE_LIMITS = {"SALVO_RATE_COMMANDS_PER_TOKEN": "off", "SALVO_RATE_COMMANDS_PER_ADDRESS": "off"}


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


async def request(client: httpx.AsyncClient, method: str, url: str, **kwargs: Any) -> httpx.Response:
    """One retry on a dropped keep-alive connection (the server closes idle ones; a reuse may race it)."""
    try:
        return await client.request(method, url, **kwargs)
    except httpx.TransportError:
        return await client.request(method, url, **kwargs)


async def play(client: httpx.AsyncClient, ruleset: str, scenario: str, commands: int) -> int:
    r = await request(client, "POST", "/v1/games", json={"ruleset": ruleset, "scenario": scenario})
    r.raise_for_status()
    game: dict[str, Any] = r.json()
    gid, done = game["game_id"], 0
    for i in range(commands):
        if ruleset == "tiny":
            who, other = ("red", "blue") if i % 2 == 0 else ("blue", "red")
            body = {"command": {"type": "tiny.shoot", "shooter": who, "target": other}}
        else:
            body = None
            for seat, token in game["seats"].items():
                opts = await request(
                    client, "GET", f"/v1/games/{gid}/options", headers={"Authorization": f"Bearer {token}"}
                )
                if opts.json()["options"]:
                    who, body = seat, {"command": opts.json()["options"][0]["command"]}
                    break
            if body is None:
                break
        r = await request(
            client,
            "POST",
            f"/v1/games/{gid}/commands",
            json=body,
            headers={"Authorization": f"Bearer {game['seats'][who]}"},
        )
        done += r.status_code == 201
    await request(client, "GET", f"/v1/games/{gid}")
    return done


async def run(server: ServerProcess, args: argparse.Namespace) -> list[tuple[int, float, float]]:
    samples = [(0, rss_mb(server.pid), 0.0)]
    started = time.perf_counter()
    limits = httpx.Limits(max_connections=args.concurrency, max_keepalive_connections=args.concurrency)
    async with httpx.AsyncClient(base_url=server.url, timeout=30, limits=limits) as client:
        made = 0
        while made < args.games:
            batch = min(args.concurrency, args.games - made)
            await asyncio.gather(*(play(client, args.ruleset, args.scenario, args.commands) for _ in range(batch)))
            made += batch
            if made % args.every < batch or made == args.games:
                samples.append((made, rss_mb(server.pid), time.perf_counter() - started))
                print(f"{made:>7,} games  RSS {samples[-1][1]:7.1f} MB  ({samples[-1][2]:6.1f} s)", flush=True)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--commands", type=int, default=3)
    parser.add_argument("--ruleset", default="tiny")
    parser.add_argument("--scenario", default=None)
    parser.add_argument("--head-cache", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--every", type=int, default=2000, help="sample the RSS every N games")
    args = parser.parse_args()
    args.scenario = args.scenario or ("long" if args.ruleset == "tiny" else "duel")
    with tempfile.TemporaryDirectory() as tmp:
        env = {**NO_RATE_LIMITS, "SALVO_HEAD_CACHE_SIZE": str(args.head_cache)}
        with ServerProcess(f"sqlite:///{tmp}/memory.db", env=env, log_path=Path(tmp) / "server.log") as server:
            try:
                samples = asyncio.run(run(server, args))
            except httpx.HTTPError:
                print(server.tail(), file=sys.stderr)
                raise
    budget = [rss for games, rss, _ in samples if games >= args.head_cache]
    print(f"\n{args.games:,} {args.ruleset} games, {args.commands} commands each, head cache {args.head_cache:,}:")
    print(
        f"  RSS at start {samples[0][1]:.1f} MB, at the budget {budget[0]:.1f} MB, "
        f"at the end {samples[-1][1]:.1f} MB, peak {max(s[1] for s in samples):.1f} MB; "
        f"growth after the budget {samples[-1][1] - budget[0]:+.1f} MB"
    )


if __name__ == "__main__":
    main()
