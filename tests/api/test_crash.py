"""kill -9 the real server mid-load, restart it on the same SQLite file: every acknowledged command is
in the log exactly as acknowledged, seq is dense, and the state is a pure fold of what survived.

Commands in flight at the kill may or may not have landed; only what got a 2xx is promised.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from typing import Any

import httpx
import msgspec
import pytest

from service.domain.core import UMPIRE
from service.domain.core.guards import full_view
from service.events.head import codec_for
from service.events.replay import Decoded, Folder
from tests.support import tiny
from tests.support.server import ServerProcess

pytestmark = pytest.mark.slow

GAMES = 2
SEATS = ("red", "blue")
LOAD_SECONDS = 1.2  # load before the kill (after the first acknowledgement)


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class _Row:
    def __init__(self, env: dict[str, Any]) -> None:
        self.seq = env["seq"]


def _fold_views(log: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The umpire's view after each seq (index = seq), folded here from the envelopes alone."""
    ruleset = tiny.RULESET
    codec = codec_for(ruleset)
    created = log[0]
    assert created["type"] == "game.created"
    state = ruleset.initial_state(ruleset.parse_setup(created["data"]["setup"]))
    decoded = [
        Decoded(
            _Row(e),
            codec.decode(e["type"], e["v"], msgspec.json.encode(e["data"]), msgspec.json.encode(e.get("rolls", []))),
        )
        for e in log
    ]
    views: list[dict[str, Any]] = [json.loads(msgspec.json.encode(full_view(ruleset, state, UMPIRE)))]
    for _d, after in Folder(ruleset).walk(state, decoded):
        views.append(json.loads(msgspec.json.encode(full_view(ruleset, after, UMPIRE))))
    return views


async def _load(
    client: httpx.AsyncClient,
    game: dict[str, Any],
    who: str,
    acked: list[dict[str, Any]],
    cut: list[str],
    started: asyncio.Event,
) -> None:
    """One client: its next command as soon as the previous one is answered, until the server dies."""
    other = "blue" if who == "red" else "red"
    url = f"/v1/games/{game['game_id']}/commands"
    rng = random.Random(f"{game['game_id']}{who}")
    headers = _bearer(game["seats"][who])
    while True:
        if rng.random() < 0.5:
            cmd: dict[str, Any] = {"type": "tiny.shoot", "shooter": who, "target": other}
        else:
            cmd = {"type": "tiny.hide", "seat": who, "secret": rng.randrange(1_000_000)}
        try:
            r = await client.post(url, json={"command": cmd}, headers=headers)
        except httpx.HTTPError as exc:  # the kill: this command's fate is unknown
            cut.append(type(exc).__name__)
            return
        assert r.status_code == 201, r.text
        acked.append(r.json())
        started.set()


async def _umpire_log(client: httpx.AsyncClient, game: dict[str, Any]) -> list[dict[str, Any]]:
    log: list[dict[str, Any]] = []
    while True:
        r = await client.get(
            f"/v1/games/{game['game_id']}/events",
            params={"after": len(log), "limit": 1000},
            headers=_bearer(game["umpire_token"]),
        )
        assert r.status_code == 200, r.text
        page = r.json()["events"]
        if not page:
            return log
        log.extend(page)


async def _summary(client: httpx.AsyncClient, game: dict[str, Any], at: int | None = None) -> dict[str, Any]:
    params = {} if at is None else {"at": at}
    r = await client.get(f"/v1/games/{game['game_id']}", params=params, headers=_bearer(game["umpire_token"]))
    assert r.status_code == 200, r.text
    return r.json()


@pytest.mark.parametrize(("games_n", "per_seat"), [(GAMES, 2), (1, 6)], ids=["2-games", "1-busy-game"])
async def test_kill_9_mid_load_loses_no_acknowledged_command(tmp_path, games_n, per_seat):
    """Several clients per game: its commands are decided on the head ahead of the disk while earlier
    ones commit (the busy-game pipeline); a kill in the middle still loses nothing acknowledged."""
    db = tmp_path / "crash.db"
    server = ServerProcess(
        f"sqlite:///{db}",
        log_path=tmp_path / "server.log",
        env={
            "SALVO_SNAPSHOT_EVERY": "25",
            "SALVO_RATE_COMMANDS_PER_TOKEN": "off",
            "SALVO_RATE_COMMANDS_PER_ADDRESS": "off",
        },
    )  # a load test, not a client
    await asyncio.to_thread(server.start)
    try:
        limits = httpx.Limits(max_connections=64, max_keepalive_connections=64)
        async with httpx.AsyncClient(base_url=server.url, timeout=10.0, limits=limits) as client:
            games = []
            for _ in range(games_n):
                r = await client.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"})
                assert r.status_code == 201, r.text
                games.append(r.json())
            acked: dict[str, list[dict[str, Any]]] = {g["game_id"]: [] for g in games}
            cut: list[str] = []
            started = asyncio.Event()
            clients = [
                asyncio.create_task(_load(client, g, who, acked[g["game_id"]], cut, started))
                for g in games
                for who in SEATS
                for _each in range(per_seat)
            ]
            await asyncio.wait_for(started.wait(), 10)
            await asyncio.sleep(LOAD_SECONDS / 2)
            before = {g["game_id"]: await _summary(client, g) for g in games}  # mid-load, still acknowledged
            await asyncio.sleep(LOAD_SECONDS / 2)
            metrics = (await client.get("/metrics")).text
            pipelined = next(
                float(line.split()[-1])
                for line in metrics.splitlines()
                if line.startswith("salvo_commands_pipelined_total ")
            )
            await asyncio.to_thread(server.kill)  # SIGKILL while every client has a command going
            done, pending = await asyncio.wait(clients, timeout=15)
            assert not pending, "a client did not notice the crash"
            for task in done:
                task.result()  # a non-201 answer before the kill fails the test here
            assert len(cut) == len(clients)

        await asyncio.to_thread(server.start)  # same file, fresh process: heads folded from the log
        async with httpx.AsyncClient(base_url=server.url, timeout=10.0) as client:
            total_acked = 0
            for game in games:
                gid = game["game_id"]
                mine = acked[gid]
                total_acked += len(mine)
                log = await _umpire_log(client, game)
                seqs = [e["seq"] for e in log]
                assert seqs == list(range(1, len(log) + 1)), "seq is not dense after the crash"

                # every acknowledged command is there, exactly as acknowledged, once
                by_seq = {e["seq"]: e for e in log}
                for body in mine:
                    for env in body["events"]:
                        stored = by_seq.get(env["seq"])
                        assert stored is not None, f"{gid}: acknowledged seq {env['seq']} lost in the crash"
                        for key in ("command_id", "type", "data", "rolls", "actor"):
                            assert stored.get(key) == env.get(key), (gid, key, stored, env)
                acked_ids = {body["events"][0]["command_id"] for body in mine}
                assert len(acked_ids) == len(mine)
                landed = [e["command_id"] for e in log if e.get("command_id")]
                assert len(landed) == len(set(landed)), "an event was doubled"
                unacked = set(landed) - acked_ids
                assert len(unacked) <= len(SEATS) * per_seat, f"more commands landed than were in flight: {unacked}"
                assert max((b["version"] for b in mine), default=2) <= len(log)

                # the state reported before the crash is the state at that seq now
                pre = before[gid]
                assert pre["version"] <= len(log)
                assert (await _summary(client, game, at=pre["version"]))["state"] == pre["state"]

                # after restart: live view == fresh fold of the whole log == the ?at= path (snapshot + tail)
                views = _fold_views(log)
                live = await _summary(client, game)
                assert live["version"] == len(log)
                assert live["state"] == views[len(log)]
                assert views[pre["version"]] == pre["state"]
                rng = random.Random(gid)
                points = sorted(
                    {
                        len(log) - 1,
                        pre["version"],
                        1,
                        2,
                        *(b["version"] for b in mine[-3:]),
                        *rng.sample(range(1, len(log)), min(25, len(log) - 1)),
                    }
                )
                for at in points:
                    assert (await _summary(client, game, at=at))["state"] == views[at], f"{gid} ?at={at}"

                # and the game goes on where it stopped
                r = await client.post(
                    f"/v1/games/{gid}/commands",
                    headers=_bearer(game["seats"]["red"]),
                    json={"command": {"type": "tiny.hide", "seat": "red", "secret": 1}},
                )
                assert r.status_code == 201, r.text
                assert r.json()["version"] == len(log) + 1
            assert total_acked >= 20, f"too little load before the kill ({total_acked} commands)"
            if games_n == 1:
                assert pipelined > 0, "no command was decided while another of its game was committing"
    finally:
        await asyncio.to_thread(server.stop)


def test_crash_helper_kills_by_pid_only(tmp_path):
    """The helper's kill is a real SIGKILL of its own child: the process is gone, the file survives."""
    server = ServerProcess(f"sqlite:///{tmp_path}/k.db", log_path=tmp_path / "k.log")
    server.start()
    try:
        pid = server.pid
        t0 = time.monotonic()
        server.kill()
        assert server.proc is not None and server.proc.returncode == -9
        assert time.monotonic() - t0 < 5
        with pytest.raises(httpx.HTTPError):
            httpx.get(server.url + "/healthz", timeout=0.5)
        server.start()
        assert server.pid != pid
        assert httpx.get(server.url + "/healthz").status_code == 200
    finally:
        server.stop()
