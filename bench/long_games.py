"""Long games: battle files of N events for every ruleset, built in-process, imported into a real server.

    .venv/bin/python bench/long_games.py                                # 10,000 and 100,000 events
    .venv/bin/python bench/long_games.py --sizes 20000 --rulesets ftcampaign

How a file is built (``build_file``): the ruleset's sample scenario is played in-process (``GameService`` on
the in-memory store) until the log holds N events, then exported as the umpire (unsigned: the server imports
it with ``allow_unverified=true``, as an anonymous client may). The campaign's file is rich in rulings (the
umpire's ``record_ruling``, one event each, the history that once grew with the square of the log); the
tactical rulesets are played by their options, preferring orders that never end the game (phase ends,
passes, sensors, repairs: nobody moves off the table or is shot) so a game lasts N events as a long fleet action does.

What is measured, per ruleset and size, against ``python -m service serve`` on SQLite in a temp directory:
the import (POST /v1/games/import), the first load (the first GET after a restart, so the head is folded
from the store), ``GET ?at=`` at 200 random seqs (p50/p99), one turn's replay (GET /turns/{n}), the export,
and the server's RSS growth from before the import to after all of these.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.long_games import SCENARIOS, build_file  # noqa: E402
from tests.support.server import ServerProcess, rss_mb  # noqa: E402

NO_LIMITS = {
    "SALVO_RATE_COMMANDS_PER_TOKEN": "off",
    "SALVO_RATE_COMMANDS_PER_ADDRESS": "off",
    "SALVO_RATE_IMPORTS_PER_ADDRESS": "off",
    "SALVO_LOG_LEVEL": "warning",
}


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def measure(body: bytes, events: int, at_samples: int = 200) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProcess(f"sqlite:///{tmp}/salvo.db", env=NO_LIMITS).start()
        try:
            with httpx.Client(base_url=server.url, timeout=600) as client:
                client.get("/v1/rulesets").raise_for_status()
                before = rss_mb(server.pid)
                t = time.perf_counter()
                r = client.post(
                    "/v1/games/import?allow_unverified=true",
                    content=body,
                    headers={"content-type": "application/x-ndjson"},
                )
                import_s = time.perf_counter() - t
                r.raise_for_status()
                created = r.json()
                game_id, umpire = created["game_id"], created["umpire_token"]
            server.stop()
            server.start()  # the first load folds from the store, not from the import's cache
            with httpx.Client(
                base_url=server.url, timeout=600, headers={"authorization": f"Bearer {umpire}"}
            ) as client:
                client.get("/v1/rulesets").raise_for_status()
                before = rss_mb(server.pid)
                t = time.perf_counter()
                game = client.get(f"/v1/games/{game_id}")
                first_load = time.perf_counter() - t
                game.raise_for_status()
                version = int(game.json()["version"])  # the import's own log: created + inherited events
                rng = random.Random(7)
                ats = []
                for _ in range(at_samples):
                    t = time.perf_counter()
                    client.get(f"/v1/games/{game_id}", params={"at": rng.randint(1, version)}).raise_for_status()
                    ats.append(time.perf_counter() - t)
                ats.sort()
                turn = max(1, int(game.json()["turn"]) // 2)
                t = time.perf_counter()
                client.get(f"/v1/games/{game_id}/turns/{turn}")
                turn_s = time.perf_counter() - t
                t = time.perf_counter()
                exported = client.get(f"/v1/games/{game_id}/export")
                export_s = time.perf_counter() - t
                exported.raise_for_status()
                after = rss_mb(server.pid)
            return {
                "events": events,
                "file_mb": round(len(body) / 2**20, 1),
                "import_ms": _ms(import_s),
                "first_load_ms": _ms(first_load),
                "at_p50_ms": _ms(statistics.median(ats)),
                "at_p99_ms": _ms(ats[int(len(ats) * 0.99) - 1]),
                "turn_replay_ms": _ms(turn_s),
                "export_ms": _ms(export_s),
                "rss_growth_mb": round(after - before, 1),
            }
        finally:
            server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--rulesets", nargs="+", default=list(SCENARIOS))
    args = parser.parse_args()
    print(
        "| ruleset | events | file MB | import ms | first load ms | ?at= p50 ms | ?at= p99 ms | turn replay ms "
        "| export ms | RSS growth MB |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for ruleset in args.rulesets:
        for size in args.sizes:
            t = time.perf_counter()
            body, events = asyncio.run(build_file(ruleset, size))
            print(f"(built {ruleset} {events} events in {time.perf_counter() - t:.1f} s)", file=sys.stderr)
            row = measure(body, events)
            print(
                f"| {ruleset} | {row['events']} | {row['file_mb']} | {row['import_ms']} | {row['first_load_ms']} "
                f"| {row['at_p50_ms']} | {row['at_p99_ms']} | {row['turn_replay_ms']} | {row['export_ms']} "
                f"| {row['rss_growth_mb']} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
