"""Idempotency is bound to the decoded command in a canonical form, the same over HTTP and the websocket:
the same command with the same Idempotency-Key appends once and both paths get the same answer."""

from __future__ import annotations

import json

import pytest
from starlette.testclient import TestClient

from service.api.app import create_app
from service.settings import Settings

SHOOT = {"type": "tiny.shoot", "shooter": "red", "target": "blue"}


@pytest.fixture
def client(sqlite_url):
    app = create_app(Settings(database_url=sqlite_url, heartbeat_seconds=5))
    with TestClient(app) as c:
        yield c


def _game(client):
    r = client.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"})
    assert r.status_code == 201
    return r.json()


def _version(client, game):
    return client.get(f"/v1/games/{game['game_id']}").json()["version"]


def _socket_result(ws, message):
    ws.send_text(message)
    while True:
        msg = ws.receive_json()
        if msg["kind"] in ("result", "error"):
            return msg


def _http(client, game, body: str, key: str):
    return client.post(
        f"/v1/games/{game['game_id']}/commands",
        content=body,
        headers={
            "Authorization": f"Bearer {game['seats']['red']}",
            "Idempotency-Key": key,
            "Content-Type": "application/json",
        },
    )


@pytest.mark.parametrize("http_first", [True, False])
def test_the_same_command_over_http_and_the_socket_appends_once(client, http_first):
    game = _game(client)
    before = _version(client, game)
    http_body = json.dumps({"command": SHOOT})  # no salt: the default
    # the same command spelled differently: other key order, spacing, the default salt given explicitly
    socket_message = (
        '{ "kind":"command", "ref":"r1", "idempotency_key":"k-1", "salt":"", '
        '"command": {"target":"blue",  "shooter":"red", "type":"tiny.shoot"} }'
    )
    with client.websocket_connect(
        f"/v1/games/{game['game_id']}/stream", headers={"Authorization": f"Bearer {game['seats']['red']}"}
    ) as ws:
        while ws.receive_json()["kind"] != "caught_up":
            pass
        if http_first:
            r = _http(client, game, http_body, "k-1")
            over_socket = _socket_result(ws, socket_message)
        else:
            over_socket = _socket_result(ws, socket_message)
            r = _http(client, game, http_body, "k-1")
    assert r.status_code == 201, r.text
    assert over_socket["kind"] == "result", over_socket
    over_http = r.json()
    assert {k: v for k, v in over_socket.items() if k not in ("kind", "ref")} == over_http
    assert _version(client, game) == before + len(over_http["events"]) == over_http["version"]
    shots = [e for e in client.get(f"/v1/games/{game['game_id']}/events").json()["events"] if e["type"] == "tiny.shot"]
    assert len(shots) == 1


def test_a_different_command_or_salt_under_the_same_key_is_refused_on_both_paths(client):
    game = _game(client)
    assert _http(client, game, json.dumps({"command": SHOOT, "salt": "x"}), "k-2").status_code == 201
    version = _version(client, game)
    r = _http(client, game, json.dumps({"command": SHOOT, "salt": "y"}), "k-2")
    assert r.status_code == 422 and r.json()["field"] == "Idempotency-Key"
    with client.websocket_connect(
        f"/v1/games/{game['game_id']}/stream", headers={"Authorization": f"Bearer {game['seats']['red']}"}
    ) as ws:
        while ws.receive_json()["kind"] != "caught_up":
            pass
        other = {"type": "tiny.hide", "seat": "red", "secret": 3}
        msg = _socket_result(
            ws, json.dumps({"kind": "command", "idempotency_key": "k-2", "command": other, "salt": "x"})
        )
        assert msg["kind"] == "error" and msg["status"] == 422 and msg["field"] == "Idempotency-Key"
        same = _socket_result(
            ws, json.dumps({"kind": "command", "idempotency_key": "k-2", "command": SHOOT, "salt": "x"})
        )
        assert same["kind"] == "result" and same["version"] == version
    assert _version(client, game) == version
