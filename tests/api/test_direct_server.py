"""The pre-framed fan-out on a real server (uvicorn, real sockets): each audience's frames are written
straight to the transports (the metrics say so), redacted per audience; a socket that sends its own
commands with own_events=result gets each event once; a reconnect resumes with no gap or duplicate;
idle sockets get heartbeats. Plus the transport finder: uvicorn's protocols only, else the normal path."""

from __future__ import annotations

import asyncio
import json
from contextlib import ExitStack

import httpx
import pytest
from websockets.sync.client import connect

from service.api.fast.rawsocket import from_send
from tests.support.fast import fast_only
from tests.support.server import ServerProcess

pytestmark = [pytest.mark.slow, fast_only]

SECRET = 734_211
ENV = {
    "SALVO_RATE_COMMANDS_PER_TOKEN": "off",
    "SALVO_RATE_COMMANDS_PER_ADDRESS": "off",
    "SALVO_HEARTBEAT_SECONDS": "0.3",
}


def _until_caught_up(ws) -> list[int]:
    seqs = []
    while (msg := json.loads(ws.recv(timeout=10)))["kind"] != "caught_up":
        seqs.append(msg["event"]["seq"])
    return seqs


def _events(ws, n: int) -> list[dict]:
    out = []
    while len(out) < n:
        msg = json.loads(ws.recv(timeout=10))
        if msg["kind"] == "event":
            out.append(msg["event"])
    return out


def test_frames_reach_every_audience_redacted_without_gap_or_repeat(tmp_path):
    with (
        ServerProcess(f"sqlite:///{tmp_path}/d.db", log_path=tmp_path / "server.log", env=ENV) as server,
        httpx.Client(base_url=server.url, timeout=10) as http,
    ):
        game = http.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
        gid, red = game["game_id"], {"Authorization": f"Bearer {game['seats']['red']}"}
        tokens = {"umpire": game["umpire_token"], "spectator": None, **game["seats"]}
        with ExitStack() as stack:
            socks = {}
            for name, token in tokens.items():
                for i in range(2):
                    headers = {"Authorization": f"Bearer {token}"} if token else {}
                    url = f"{server.ws_url}/v1/games/{gid}/stream"
                    ws = stack.enter_context(connect(url, additional_headers=headers))
                    assert _until_caught_up(ws) == [1, 2]
                    socks[f"{name}{i}"] = ws
            assert "salvo_direct_sockets 8.0" in http.get("/metrics").text
            r = http.post(
                f"/v1/games/{gid}/commands",
                headers=red,
                json={"command": {"type": "tiny.hide", "seat": "red", "secret": SECRET}},
            )
            assert r.status_code == 201
            for _ in range(3):
                assert (
                    http.post(
                        f"/v1/games/{gid}/commands",
                        headers=red,
                        json={"command": {"type": "tiny.shoot", "shooter": "red", "target": "blue"}},
                    ).status_code
                    == 201
                )
            for name, ws in socks.items():
                events = _events(ws, 4)
                assert [e["seq"] for e in events] == [3, 4, 5, 6], name
                sees = str(SECRET) in json.dumps(events)
                assert sees == name.startswith(("umpire", "red")), name  # only the hider and the umpire
            assert json.loads(socks["spectator0"].recv(timeout=5)) == {"kind": "ping"}  # idle: a heartbeat
        # a socket commanding with own_events=result: its events once, in the result; a reconnect from
        # the last seq it holds has no gap and no repeat
        with connect(f"{server.ws_url}/v1/games/{gid}/stream?after=6&own_events=result", additional_headers=red) as ws:
            assert _until_caught_up(ws) == []
            for i in range(5):
                ws.send(
                    json.dumps(
                        {
                            "kind": "command",
                            "ref": f"r{i}",
                            "command": {"type": "tiny.shoot", "shooter": "red", "target": "blue"},
                        }
                    )
                )
                while (msg := json.loads(ws.recv(timeout=10)))["kind"] == "ping":
                    pass
                assert msg["kind"] == "result" and msg["ref"] == f"r{i}" and msg["version"] == 7 + i, msg
            blue = {"Authorization": f"Bearer {game['seats']['blue']}"}
            assert (
                http.post(
                    f"/v1/games/{gid}/commands",
                    headers=blue,
                    json={"command": {"type": "tiny.shoot", "shooter": "blue", "target": "red"}},
                ).status_code
                == 201
            )
            assert [e["seq"] for e in _events(ws, 1)] == [12]  # another seat's event: a frame
        with connect(f"{server.ws_url}/v1/games/{gid}/stream?after=9") as ws:
            assert _until_caught_up(ws) == [10, 11, 12]


def test_only_uvicorns_own_protocols_give_a_transport():
    async def send(message):  # any other server's send (or a wrapped one)
        return None

    class Lookalike:  # has a transport, but is not a protocol this module knows
        transport = writable = asyncio.Event()

        async def send(self, message):
            return None

    assert from_send(send) is None
    assert from_send(Lookalike().send) is None


def test_socket_commands_are_counted_by_outcome_as_http_ones(tmp_path):
    """The detached socket's worker counts through the gate's steps: accepted, rejected (and its rule),
    invalid; a message refused before the gate (an unknown kind) is not a command, and not counted."""
    with (
        ServerProcess(f"sqlite:///{tmp_path}/d.db", log_path=tmp_path / "server.log", env=ENV) as server,
        httpx.Client(base_url=server.url, timeout=10) as http,
    ):
        game = http.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
        red = {"Authorization": f"Bearer {game['seats']['red']}"}
        with connect(
            f"{server.ws_url}/v1/games/{game['game_id']}/stream?own_events=result", additional_headers=red
        ) as ws:
            _until_caught_up(ws)
            sent = [
                {"type": "tiny.shoot", "shooter": "red", "target": "blue"},
                {"type": "tiny.shoot", "shooter": "blue", "target": "red"},  # not red's to fire
                {"type": "tiny.nope"},
            ]
            for i, command in enumerate(sent):
                ws.send(json.dumps({"kind": "command", "ref": f"r{i}", "command": command}))
            ws.send(json.dumps({"kind": "nope", "ref": "n", "command": {}}))
            answers = []
            while len(answers) < 4:
                if (msg := json.loads(ws.recv(timeout=10)))["kind"] in ("result", "error"):
                    answers.append((msg["kind"], msg["ref"]))
            assert answers == [("result", "r0"), ("error", "r1"), ("error", "r2"), ("error", "n")]
        text = http.get("/metrics").text
    assert 'salvo_commands_total{outcome="accepted",ruleset="tiny"} 1.0' in text
    assert 'salvo_commands_total{outcome="rejected",ruleset="tiny"} 1.0' in text
    assert 'salvo_commands_total{outcome="invalid",ruleset="tiny"} 1.0' in text
    assert 'salvo_rule_rejections_total{rule="TINY-SEAT"} 1.0' in text
    assert text.count("salvo_commands_total{") == 3
