"""Real play: random legal play of every sample scenario of every ruleset, N games at once, closed loop over the
websocket, beside the tiny ruleset's ``tiny.shoot`` in the same run (issue 37).

    .venv/bin/python bench/real_play.py                       # every ruleset's scenarios, 10 games, 20 s each
    .venv/bin/python bench/real_play.py --games 10 --seconds 20 --only gsc2

Each game is played as a page plays it: after every result the client asks ``GET /options`` for each seat (and
the umpire, when no seat may act) and sends one option at random over that seat's websocket
(``{"kind":"command"}``), waiting for its ``result`` before the next; a game that ends is replaced by a new one of
the same scenario. A command refused (the rules, a race with nobody) counts as refused, not as a command.

Per scenario: commands/s, p50/p99 of the websocket round trip (send → result), the server's CPU per command
(``/proc``; the options reads included, as a page makes them) and the ratio of commands/s to ``tiny.shoot``'s in
the same run. The server runs on SQLite in a temp directory, rate limits off, every command durable.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_salvo import cpu_seconds, pct  # noqa: E402
from tests.support.server import ServerProcess  # noqa: E402

NO_LIMITS = {"SALVO_RATE_COMMANDS_PER_TOKEN": "off", "SALVO_RATE_COMMANDS_PER_ADDRESS": "off"}
TINY = ("tiny", "long")  # the endless tiny game: tiny.shoot after tiny.shoot, as the harness plays it


def scenarios(client: httpx.Client, only: list[str] | None) -> list[tuple[str, str]]:
    out = []
    for info in client.get("/v1/rulesets").json()["rulesets"]:
        name = info["name"]
        if name == "tiny" or (only and name not in only):
            continue
        out += [(name, scenario) for scenario in info["scenarios"]]
    return out


class Table:
    """One game being played: its seats' sockets and tokens, renewed when the game ends."""

    def __init__(self, server: ServerProcess, http: httpx.AsyncClient, ruleset: str, scenario: str) -> None:
        self.server, self.http, self.ruleset, self.scenario = server, http, ruleset, scenario
        self.sockets: dict[str, Any] = {}
        self.tokens: dict[str, str] = {}
        self.game_id = ""

    async def open(self) -> None:
        from websockets.asyncio.client import connect

        await self.close()
        r = await self.http.post("/v1/games", json={"ruleset": self.ruleset, "scenario": self.scenario})
        r.raise_for_status()
        game = r.json()
        self.game_id = game["game_id"]
        self.tokens = {**game["seats"], "umpire": game["umpire_token"]}
        for who, token in self.tokens.items():
            url = f"{self.server.ws_url}/v1/games/{self.game_id}/stream?after=0&own_events=result"
            ws = await connect(
                url, compression=None, max_queue=None, additional_headers={"Authorization": f"Bearer {token}"}
            )
            while json.loads(await ws.recv())["kind"] != "caught_up":
                pass
            self.sockets[who] = ws

    async def close(self) -> None:
        for ws in self.sockets.values():
            await ws.close()
        self.sockets = {}

    async def choice(self, rng: random.Random) -> tuple[str, dict[str, Any]] | None:
        """A random option of a seat that may act (the umpire's only when no seat has any); None: game over."""
        for group in ([w for w in self.tokens if w != "umpire"], ["umpire"]):
            offered = []
            for who in group:
                r = await self.http.get(
                    f"/v1/games/{self.game_id}/options", headers={"Authorization": f"Bearer {self.tokens[who]}"}
                )
                offered += [(who, o["command"]) for o in r.json()["options"]]
            if offered:
                return rng.choice(offered)
        return None


async def play(
    server: ServerProcess, ruleset: str, scenario: str, games: int, seconds: float, warmup: float
) -> dict[str, Any]:
    latencies: list[float] = []
    counts = {"commands": 0, "refused": 0, "games_ended": 0}
    state = {"measuring": False, "stop": False}

    async def player(seed: int, http: httpx.AsyncClient) -> None:
        rng = random.Random(seed)
        table = Table(server, http, ruleset, scenario)
        await table.open()
        try:
            while not state["stop"]:
                picked = await table.choice(rng)
                if picked is None:
                    counts["games_ended"] += state["measuring"]
                    await table.open()
                    continue
                who, command = picked
                ws = table.sockets[who]
                t0 = time.perf_counter()
                await ws.send(json.dumps({"kind": "command", "command": command}))
                while True:
                    msg = json.loads(await ws.recv())
                    if msg["kind"] in ("result", "error"):
                        break
                if state["measuring"]:
                    latencies.append(time.perf_counter() - t0)
                    counts["commands" if msg["kind"] == "result" else "refused"] += 1
        finally:
            await table.close()

    async with httpx.AsyncClient(base_url=server.url, timeout=60) as http:
        tasks = [asyncio.create_task(player(i, http)) for i in range(games)]
        await asyncio.sleep(warmup)
        state["measuring"] = True
        cpu0, t0 = cpu_seconds(server.pid), time.perf_counter()
        await asyncio.sleep(seconds)
        state["measuring"] = False
        elapsed = time.perf_counter() - t0
        cpu = cpu_seconds(server.pid) - cpu0
        state["stop"] = True
        await asyncio.gather(*tasks)
    done = max(1, counts["commands"])
    return {
        "ruleset": ruleset,
        "scenario": scenario,
        "per_s": counts["commands"] / elapsed,
        "p50_ms": pct(latencies, 50) * 1000 if latencies else 0.0,
        "p99_ms": pct(latencies, 99) * 1000 if latencies else 0.0,
        "cpu_ms": cpu / done * 1000,
        **counts,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--only", nargs="*", help="rulesets to run (default: all)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProcess(f"sqlite:///{tmp}/salvo.db", env=NO_LIMITS).start()
        try:
            with httpx.Client(base_url=server.url) as client:
                runs = [TINY, *scenarios(client, args.only)]
            rows = [asyncio.run(play(server, r, s, args.games, args.seconds, args.warmup)) for r, s in runs]
        finally:
            server.stop()
    tiny = rows[0]["per_s"] or 1.0
    print(
        f"{args.games} games at once, {args.seconds:.0f} s each (closed loop over the websocket; "
        "options read over HTTP after every result, as the page does)\n"
    )
    print(
        "| ruleset | scenario | commands/s | × tiny.shoot | p50 ms | p99 ms | server CPU ms/command | refused "
        "| games ended |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        print(
            f"| {row['ruleset']} | {row['scenario']} | {row['per_s']:.0f} | {row['per_s'] / tiny:.2f} "
            f"| {row['p50_ms']:.1f} | {row['p99_ms']:.1f} | {row['cpu_ms']:.2f} | {row['refused']} "
            f"| {row['games_ended']} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
