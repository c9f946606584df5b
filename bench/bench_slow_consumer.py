"""Does a stalled websocket reader slow the others? Live-event latency (command sent → event received)
of N keeping-up readers, without and then with one reader that never reads; the stalled one must be
closed with 1013 and its resume seq, and the others' p99 should stay within 2x.

    .venv/bin/python bench/bench_slow_consumer.py [--readers 10] [--commands 2000] [--rate 200]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx
from websockets.asyncio.client import connect

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.api.test_robustness_server import StalledReader  # noqa: E402
from tests.support.server import ServerProcess  # noqa: E402

SALT = "s" * 20_000
ENV = {
    "SALVO_RATE_COMMANDS_PER_TOKEN": "off",
    "SALVO_RATE_COMMANDS_PER_ADDRESS": "off",
    "SALVO_WS_QUEUE_SIZE": "32",
    "SALVO_WS_SEND_TIMEOUT": "1",
}


async def measure(server: ServerProcess, readers: int, commands: int, rate: float, stall: bool) -> dict:
    async with httpx.AsyncClient(base_url=server.url) as http:
        game = (await http.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"})).json()
    gid = game["game_id"]
    stalled = StalledReader(server.host, int(server.port), f"/v1/games/{gid}/stream") if stall else None
    sent: dict[int, float] = {}
    latencies: list[float] = []
    done = asyncio.Event()

    async def reader() -> None:
        async with connect(f"{server.ws_url}/v1/games/{gid}/stream", max_queue=None) as ws:
            async for text in ws:
                now = time.perf_counter()
                msg = json.loads(text)
                if msg["kind"] == "event" and msg["event"]["seq"] in sent:
                    latencies.append(now - sent[msg["event"]["seq"]])
                    if msg["event"]["seq"] == max(sent) and done.is_set():
                        return

    tasks = [asyncio.create_task(reader()) for _ in range(readers)]
    await asyncio.sleep(0.5)
    headers = {"Authorization": f"Bearer {game['seats']['red']}"}
    async with connect(f"{server.ws_url}/v1/games/{gid}/stream?after=999999", additional_headers=headers) as ws:
        for _ in range(commands):
            started = time.perf_counter()
            # a rolled shot's envelope carries its salt: 20 KB frames fill a stalled socket's buffers
            await ws.send(
                json.dumps(
                    {
                        "kind": "command",
                        "salt": SALT,
                        "command": {"type": "tiny.shoot", "shooter": "red", "target": "blue"},
                    }
                )
            )
            while (msg := json.loads(await ws.recv()))["kind"] != "result":
                pass
            sent[msg["version"]] = started
            await asyncio.sleep(max(0.0, 1 / rate - (time.perf_counter() - started)))
    done.set()
    await asyncio.wait(tasks, timeout=3)  # a reader whose last event came before done.set() waits no longer
    for task in tasks:
        task.cancel()
    close: object = None
    if stalled is not None:
        await asyncio.sleep(3)  # past the send timeout
        try:
            _messages, close = await asyncio.to_thread(stalled.read_all, 10)
        except TimeoutError:
            close = "not closed: its backlog still fitted in the socket buffers"
    latencies.sort()
    return {
        "p50": statistics.median(latencies) * 1000,
        "p99": latencies[int(len(latencies) * 0.99)] * 1000,
        "samples": len(latencies),
        "stalled_close": close,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--readers", type=int, default=10)
    parser.add_argument("--commands", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=300.0, help="commands per second (at most)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        with ServerProcess(f"sqlite:///{tmp}/slow.db", env=ENV, log_path=Path(tmp) / "server.log") as server:
            base = asyncio.run(measure(server, args.readers, args.commands, args.rate, stall=False))
            slow = asyncio.run(measure(server, args.readers, args.commands, args.rate, stall=True))
    for label, r in (("no stalled reader", base), ("one stalled reader", slow)):
        print(f"{label:>20}: p50 {r['p50']:.2f} ms, p99 {r['p99']:.2f} ms over {r['samples']:,} deliveries")
    print(f"stalled reader closed with {slow['stalled_close']}; p99 ratio {slow['p99'] / base['p99']:.2f}x")


if __name__ == "__main__":
    main()
