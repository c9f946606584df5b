"""Websocket stream: catch-up, live, resume without gap or duplicate, slow consumers, heartbeats — each
over both send paths: the queued one (the TestClient's own send) and the pre-framed fan-out written to
the transport (tests/support/direct.py hands the TestClient a transport that parses the frames)."""

from __future__ import annotations

import json
from contextlib import ExitStack

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from service.api.app import create_app
from service.settings import Settings
from tests.support.direct import direct_client, stalled

SHOOT = {"type": "tiny.shoot", "shooter": "red", "target": "blue"}


@pytest.fixture(params=["queued", "direct"])
def client(request, sqlite_url):
    app = create_app(Settings(database_url=sqlite_url, ws_queue_size=4, heartbeat_seconds=0.2))
    with TestClient(app) if request.param == "queued" else direct_client(app) as c:
        c.path = request.param
        yield c
        if request.param == "direct":  # every socket was handed a transport
            assert c.app.transports


def _auth(token):
    """How a browser authenticates its socket: subprotocols, never the URL."""
    return ["salvo.v1", f"salvo.token.{token}"] if token else ["salvo.v1"]


def _game(client, scenario="long"):
    r = client.post("/v1/games", json={"ruleset": "tiny", "scenario": scenario})
    assert r.status_code == 201
    return r.json()


def _send(client, game, cmd, seat="red"):
    r = client.post(
        f"/v1/games/{game['game_id']}/commands",
        json={"command": cmd},
        headers={"Authorization": f"Bearer {game['seats'][seat]}"},
    )
    assert r.status_code == 201, r.text
    return r.json()


def _events_until_caught_up(ws):
    seen = []
    while True:
        msg = ws.receive_json()
        if msg["kind"] == "caught_up":
            return seen, msg["seq"]
        assert msg["kind"] == "event"
        seen.append(msg["event"]["seq"])


def _next_event(ws):
    while True:
        msg = ws.receive_json()
        if msg["kind"] == "event":
            return msg["event"]


def test_catch_up_then_live(client):
    game = _game(client)
    _send(client, game, SHOOT)
    with client.websocket_connect(f"/v1/games/{game['game_id']}/stream?after=0") as ws:
        seen, seq = _events_until_caught_up(ws)
        assert seen == [1, 2, 3] and seq == 3
        _send(client, game, SHOOT)
        assert _next_event(ws)["seq"] == 4
    if client.path == "direct":  # catch-up, caught_up and the live frame, all written as frames
        assert client.app.transports[0].frames == 5


def test_reconnect_with_after_receives_exactly_the_missed_events(client):
    game = _game(client)
    with client.websocket_connect(f"/v1/games/{game['game_id']}/stream") as ws:
        _events_until_caught_up(ws)
        _send(client, game, SHOOT)
        last = _next_event(ws)["seq"]
    assert last == 3
    for _ in range(5):  # missed while disconnected
        _send(client, game, SHOOT)
    with client.websocket_connect(f"/v1/games/{game['game_id']}/stream?after={last}") as ws:
        seen, seq = _events_until_caught_up(ws)
        assert seen == [4, 5, 6, 7, 8] and seq == 8
        _send(client, game, SHOOT)
        assert _next_event(ws)["seq"] == 9  # live, no gap, no duplicate


def test_spectator_stream_is_redacted(client):
    game = _game(client)
    with client.websocket_connect(f"/v1/games/{game['game_id']}/stream") as ws:
        _events_until_caught_up(ws)
        _send(client, game, {"type": "tiny.hide", "seat": "red", "secret": 31337})
        event = _next_event(ws)
        assert event["type"] == "tiny.hidden" and event["data"]["secret"] is None
    token = game["umpire_token"]
    with client.websocket_connect(f"/v1/games/{game['game_id']}/stream", subprotocols=_auth(token)) as ws:
        _events_until_caught_up(ws)
        _send(client, game, {"type": "tiny.hide", "seat": "red", "secret": 31338})
        assert _next_event(ws)["data"]["secret"] == 31338


def test_bad_token_gets_an_error_and_a_close(client):
    game = _game(client)
    with client.websocket_connect(f"/v1/games/{game['game_id']}/stream", subprotocols=_auth("nope")) as ws:
        msg = ws.receive_json()
        assert msg["kind"] == "error" and msg["status"] == 401
        with pytest.raises(WebSocketDisconnect) as info:
            ws.receive_json()
        assert info.value.code == 1008


def test_heartbeats_when_idle(client):
    game = _game(client)
    with client.websocket_connect(f"/v1/games/{game['game_id']}/stream") as ws:
        _events_until_caught_up(ws)
        assert ws.receive_json() == {"kind": "ping"}


def test_slow_consumer_is_closed_with_a_resumable_reason(client):
    game = _game(client)
    broadcaster = client.app.state.broadcaster
    with client.websocket_connect(f"/v1/games/{game['game_id']}/stream") as ws:
        _, seq = _events_until_caught_up(ws)

        async def flood():  # more items than the connection's queue holds, before it can drain
            broadcaster.deliver(game["game_id"], [(seq + i, None) for i in range(1, 20)])

        if client.path == "queued":
            client.portal.call(flood)
        else:  # the transport reports more unsent bytes than SALVO_WS_BUFFER_LIMIT: the next event closes it
            assert stalled(client, game["game_id"]) == 1
            _send(client, game, SHOOT)
        with pytest.raises(WebSocketDisconnect) as info:
            while True:
                ws.receive_json()
        assert info.value.code == 1013 and f"after={seq}" in info.value.reason


def test_frames_are_encoded_once_per_audience(client):
    game = _game(client)
    published = []
    broadcaster = client.app.state.broadcaster
    original = broadcaster.publish

    def spy(game_id, items):
        published.extend(items)
        return original(game_id, items)

    broadcaster.publish = spy
    client.app.state.service.publish = spy
    _send(client, game, SHOOT)  # nobody listens yet: nothing is encoded for live sockets
    [(seq, frames)] = published
    assert seq == 3 and frames == {}
    published.clear()
    gid = game["game_id"]
    tokens = {"umpire": game["umpire_token"], "spectator": None, **game["seats"]}
    with ExitStack() as stack:
        sockets = {}
        for name, token in tokens.items():  # two sockets per audience, still one frame per audience
            for _ in range(2):
                url = f"/v1/games/{gid}/stream?after=3"
                ws = stack.enter_context(client.websocket_connect(url, subprotocols=_auth(token)))
                _events_until_caught_up(ws)
                sockets.setdefault(name, []).append(ws)
        _send(client, game, SHOOT)
        [(seq, frames)] = published
        assert seq == 4 and set(frames) == {"umpire", "spectator", "seat:red", "seat:blue"}
        assert json.loads(frames["spectator"])["event"]["seq"] == 4
        for group in sockets.values():
            assert [_next_event(ws)["seq"] for ws in group] == [4, 4]


def test_commands_over_the_socket_share_the_decide_path(client):
    game = _game(client)
    token = game["seats"]["red"]
    with client.websocket_connect(
        f"/v1/games/{game['game_id']}/stream", headers={"Authorization": f"Bearer {token}"}
    ) as ws:
        _events_until_caught_up(ws)
        ws.send_json({"kind": "command", "ref": "r1", "command": SHOOT})
        seen_result = seen_event = False
        while not (seen_result and seen_event):
            msg = ws.receive_json()
            if msg["kind"] == "result":
                assert msg["ref"] == "r1" and msg["version"] == 3 and msg["events"][0]["type"] == "tiny.shot"
                seen_result = True
            elif msg["kind"] == "event":
                assert msg["event"]["seq"] == 3
                seen_event = True
        ws.send_json(
            {"kind": "command", "ref": "r2", "command": {"type": "tiny.shoot", "shooter": "blue", "target": "red"}}
        )
        msg = ws.receive_json()
        assert msg == {
            "kind": "error",
            "ref": "r2",
            "status": 403,
            "title": "Not your piece",
            "type": "/problems/rule/TINY-SEAT",
            "detail": "seat red cannot act for blue",
            "rule": "TINY-SEAT",
            "code": "not-your-piece",  # the decider's typed refusal (issue 34), as in problem+json
        }
        ws.send_json({"kind": "command", "ref": "r3", "command": {"type": "tiny.shoot", "shooter": 1}})
        msg = ws.receive_json()
        assert msg["kind"] == "error" and msg["status"] == 422 and msg["field"] == "$.command.shooter"
    spectator_game = client.get(f"/v1/games/{game['game_id']}").json()
    assert spectator_game["version"] == 3  # the rejected ones appended nothing
    with client.websocket_connect(f"/v1/games/{game['game_id']}/stream") as ws:
        _events_until_caught_up(ws)
        ws.send_json({"kind": "command", "command": SHOOT})
        assert ws.receive_json()["status"] == 403  # a spectator cannot command here either
