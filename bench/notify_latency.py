"""Notification latency (issue 40): from the answer to B's move to A's webhook receiver holding the signed
notification it caused, through a real server (`salvo serve`) on SQLite; and the commands' rate of a game
that nobody watches beside one whose two seats are watched (what a notification costs the command path).

    .venv/bin/python bench/run.py notify-latency [--moves 40]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.server import ServerProcess  # noqa: E402
from tests.support.webhook_receiver import Receiver  # noqa: E402

ENV = {
    "SALVO_WEBHOOK_ALLOW": "127.0.0.1",
    "SALVO_RATE_COMMANDS_PER_TOKEN": "off",
    "SALVO_RATE_COMMANDS_PER_ADDRESS": "off",
}


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _end(client: httpx.Client, game: dict, token: str, seat: str) -> None:
    r = client.post(
        f"/v1/games/{game['game_id']}/commands",
        headers=_auth(token),
        json={"command": {"type": "tiny.end_phase", "seat": seat}},
    )
    r.raise_for_status()


def _watched_game(client: httpx.Client, url: str) -> tuple[dict, dict]:
    game = client.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
    player = client.post("/v1/players", json={}).json()
    client.post("/v1/players/me/seats", json={"token": game["seats"]["red"]}, headers=_auth(player["key"]))
    client.post("/v1/players/me/subscriptions", json={"url": url}, headers=_auth(player["key"]))
    return game, player


def _rate(client: httpx.Client, game: dict, n: int) -> float:
    hide = {"command": {"type": "tiny.hide", "seat": "red", "secret": 1}}
    start = time.perf_counter()
    for _ in range(n):
        client.post(
            f"/v1/games/{game['game_id']}/commands", headers=_auth(game["seats"]["red"]), json=hide
        ).raise_for_status()
    return n / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("--commands", type=int, default=500)
    args = parser.parse_args()
    db = Path(tempfile.mkdtemp()) / "salvo.db"
    with (
        Receiver() as receiver,
        ServerProcess(f"sqlite:///{db}", env=ENV) as server,
        httpx.Client(base_url=server.url, timeout=10) as client,
    ):
        game, player = _watched_game(client, receiver.url)
        latencies = []
        for i in range(args.moves):
            _end(client, game, player["key"], "red")
            before = len(receiver.requests())
            _end(client, game, game["seats"]["blue"], "blue")  # B's move: A's turn
            answered = time.perf_counter()
            while len(receiver.requests()) == before:
                time.sleep(0.0005)
            latencies.append(time.perf_counter() - answered)
            assert i < args.moves
        lat = sorted(latencies)
        print(
            f"B's answer -> A's receiver: median {statistics.median(lat) * 1000:.0f} ms, "
            f"p90 {lat[int(len(lat) * 0.9) - 1] * 1000:.0f} ms, max {lat[-1] * 1000:.0f} ms ({len(lat)} moves)"
        )
        plain = client.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
        watched, _ = _watched_game(client, receiver.url)
        blue_player = client.post("/v1/players", json={}).json()
        client.post("/v1/players/me/seats", json={"token": watched["seats"]["blue"]}, headers=_auth(blue_player["key"]))
        client.post("/v1/players/me/subscriptions", json={"url": receiver.url}, headers=_auth(blue_player["key"]))
        for label, g in (("unwatched", plain), ("watched", watched), ("unwatched", plain), ("watched", watched)):
            print(f"{label:9} game: {_rate(client, g, args.commands):.0f} commands/s (one client, HTTP)")


if __name__ == "__main__":
    main()
