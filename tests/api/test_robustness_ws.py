"""The websocket under bad input: the body limit (1009), undecodable frames (1007), binary (1003), tokens
in the URL, foreign Origins, and a fuzz of frames that never closes the socket without a code or appends
anything it should not."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from service.api.app import create_app
from service.settings import Settings

SHOOT = {"type": "tiny.shoot", "shooter": "red", "target": "blue"}
LIMIT = 4096


@pytest.fixture
def client(sqlite_url):
    app = create_app(Settings(database_url=sqlite_url, max_body_bytes=LIMIT, heartbeat_seconds=5))
    with TestClient(app) as c:
        yield c


def _game(client):
    r = client.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"})
    assert r.status_code == 201
    return r.json()


def _red(game):
    return {"Authorization": f"Bearer {game['seats']['red']}"}


def _caught_up(ws):
    while ws.receive_json()["kind"] != "caught_up":
        pass


def _closed_with(ws, code):
    with pytest.raises(WebSocketDisconnect) as info:
        while True:
            msg = ws.receive_json()
            assert msg["kind"] in ("event", "ping", "result", "error"), msg
    assert info.value.code == code, (info.value.code, info.value.reason)
    return info.value.reason


def _version(client, game):
    return client.get(f"/v1/games/{game['game_id']}").json()["version"]


def test_an_oversized_command_frame_is_closed_1009_and_not_stored(client):
    game = _game(client)
    with client.websocket_connect(f"/v1/games/{game['game_id']}/stream", headers=_red(game)) as ws:
        _caught_up(ws)
        ws.send_text(json.dumps({"kind": "command", "command": SHOOT, "salt": "x" * (2 * LIMIT)}))
        assert "limited to" in _closed_with(ws, 1009)
    assert _version(client, game) == 2


def test_an_umpire_ruling_of_two_megabytes_is_refused(client):
    game = _game(client)
    umpire = {"Authorization": f"Bearer {game['umpire_token']}"}
    with client.websocket_connect(f"/v1/games/{game['game_id']}/stream", headers=umpire) as ws:
        _caught_up(ws)
        ws.send_text(json.dumps({"kind": "command", "command": {"type": "tiny.force_phase", "note": "y" * 2_000_000}}))
        _closed_with(ws, 1009)
    assert _version(client, game) == 2


@pytest.mark.parametrize(
    "frame",
    [
        "[" * 20000 + "]" * 20000,
        '{"kind":"command","command":' + '{"a":' * 100 + "1" + "}" * 100 + "}",
        '{"kind":"command","salt":"\ud800","command":{}}',
    ],
)
def test_undecodable_frames_are_closed_1007(client, frame):
    game = _game(client)
    with client.websocket_connect(f"/v1/games/{game['game_id']}/stream", headers=_red(game)) as ws:
        _caught_up(ws)
        ws.send_text(frame[: LIMIT - 10] if len(frame) > LIMIT else frame)
        _closed_with(ws, 1007)
    assert _version(client, game) == 2


def test_binary_frames_are_closed_1003(client):
    game = _game(client)
    with client.websocket_connect(f"/v1/games/{game['game_id']}/stream") as ws:
        _caught_up(ws)
        ws.send_bytes(b'{"kind":"command"}')
        _closed_with(ws, 1003)


def test_a_token_in_the_url_is_refused(client):
    game = _game(client)
    with client.websocket_connect(f"/v1/games/{game['game_id']}/stream?token={game['seats']['red']}") as ws:
        msg = ws.receive_json()
        assert msg["kind"] == "error" and msg["field"] == "token" and "URL" in msg["detail"]
        _closed_with(ws, 1008)


def test_the_subprotocol_carries_the_token_and_only_salvo_v1_is_echoed(client):
    game = _game(client)
    protocols = ["salvo.v1", f"salvo.token.{game['umpire_token']}"]
    with client.websocket_connect(f"/v1/games/{game['game_id']}/stream", subprotocols=protocols) as ws:
        assert ws.accepted_subprotocol == "salvo.v1"
        _caught_up(ws)
        ws.send_json({"kind": "command", "ref": "u", "command": {"type": "tiny.force_phase"}})
        while (msg := ws.receive_json())["kind"] != "result":
            pass
        assert msg["ref"] == "u"  # the umpire's command: the token was honoured


def test_a_foreign_origin_is_refused_at_the_handshake(client):
    game = _game(client)
    with pytest.raises(WebSocketDisconnect):
        with client.websocket_connect(
            f"/v1/games/{game['game_id']}/stream", headers={"Origin": "https://evil.example"}
        ) as ws:
            ws.receive_json()
    with client.websocket_connect(
        f"/v1/games/{game['game_id']}/stream", headers={"Origin": "http://testserver"}
    ) as ws:  # the page's own host
        _caught_up(ws)


def test_an_allowed_origin_from_settings(sqlite_url):
    app = create_app(Settings(database_url=sqlite_url, ws_origins=("https://club.example",)))
    with TestClient(app) as client:
        game = _game(client)
        with client.websocket_connect(
            f"/v1/games/{game['game_id']}/stream", headers={"Origin": "https://club.example"}
        ) as ws:
            _caught_up(ws)


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
FRAMES = st.one_of(
    st.text(max_size=200),
    JSONISH.map(json.dumps),
    st.fixed_dictionaries(
        {"kind": st.sampled_from(["command", "nope", ""]), "command": JSONISH},
        optional={
            "ref": st.text(max_size=5),
            "salt": st.text(max_size=10),
            "expected_version": st.integers(),
            "idempotency_key": st.text(max_size=5),
        },
    ).map(json.dumps),
    st.fixed_dictionaries(
        {
            "kind": st.just("command"),
            "command": st.fixed_dictionaries(
                {"type": st.sampled_from(["tiny.shoot", "tiny.hide", "tiny.end_phase", "gsc2.start"])},
                optional={
                    "shooter": st.text(max_size=5),
                    "target": st.text(max_size=5),
                    "seat": st.text(max_size=5),
                    "secret": st.integers(),
                },
            ),
        }
    ).map(json.dumps),
    # issue 33: integer literals of any length (past Python's 4,300-digit conversion limit too), spliced in
    # where the JSON has a number: an error message naming the field, never a drop
    st.tuples(
        JSONISH.map(lambda v: json.dumps({"kind": "command", "command": {"type": "tiny.shoot", "n": 0, "v": v}})),
        st.integers(min_value=19, max_value=6000),
        st.sampled_from(["", "-"]),
    ).map(lambda t: t[0].replace('"n": 0', '"n": ' + t[2] + "9" * t[1], 1)),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(frames=st.lists(FRAMES, min_size=1, max_size=6))
def test_fuzzed_frames_get_an_answer_or_a_coded_close(client, frames):
    """Every frame is answered (a result, or an error problem) or the socket closes with a documented
    code; the server never fails (no 5xx, no 1011, no bare drop); only accepted commands append."""
    game = _game(client)
    for headers in ({}, _red(game)):  # a spectator, then a seat
        accepted = []
        before = _version(client, game)
        with client.websocket_connect(f"/v1/games/{game['game_id']}/stream", headers=headers) as ws:
            _caught_up(ws)
            for frame in frames:
                ws.send_text(frame)
                try:
                    while (msg := ws.receive_json())["kind"] == "event":
                        pass
                except WebSocketDisconnect as closed:
                    assert closed.code in (1003, 1007, 1009), (closed.code, closed.reason, frame)
                    break
                if msg["kind"] == "result":
                    accepted.append(msg["version"])
                else:
                    assert msg["kind"] == "error" and 400 <= msg["status"] < 500, (msg, frame)
        assert _version(client, game) == (accepted[-1] if accepted else before)
        assert headers or not accepted  # a spectator never appends
