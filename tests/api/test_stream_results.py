"""A command's result on the socket: the same fields as the HTTP body, spliced from its bytes; with
?own_events=result the commanding socket gets its events once (in the result), never twice, and still
every other event, in order, resumable from the right seq."""

from __future__ import annotations

import json

import pytest

from service.api.app import create_app
from service.api.streaming import Stream, result_message, result_payload
from service.events.decide_append import CommandResult
from service.settings import Settings
from tests.support.direct import client_on_path

SHOOT = {"type": "tiny.shoot", "shooter": "red", "target": "blue"}
BLUE_SHOOTS = {"type": "tiny.shoot", "shooter": "blue", "target": "red"}


@pytest.fixture(params=["queued", "direct"])
def client(request, sqlite_url):
    app = create_app(Settings(database_url=sqlite_url, ws_queue_size=64, heartbeat_seconds=5))
    with client_on_path(app, request.param) as c:
        yield c


def _game(client):
    r = client.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"})
    assert r.status_code == 201
    return r.json()


def _until_caught_up(ws):
    while ws.receive_json()["kind"] != "caught_up":
        pass


def test_the_result_is_the_http_body_with_kind_and_ref():
    body = b'{"version":7,"events":[{"seq":7,"type":"tiny.shot"}]}'
    assert result_message("r1", body) == (
        '{"kind":"result","ref":"r1","version":7,"events":[{"seq":7,"type":"tiny.shot"}]}'
    )
    assert result_message(None, b'{"version":3,"rewound_to":2}') == (
        '{"kind":"result","ref":null,"version":3,"rewound_to":2}'
    )
    # the socket's worker writes the same document as bytes (no str round trip)
    assert result_payload("r1", body) == result_message("r1", body).encode()
    assert result_payload(None, b"{}") == b'{"kind":"result","ref":null}' == result_message(None, b"{}").encode()


def test_own_events_come_once_in_the_result_and_others_as_frames(client):
    game = _game(client)
    gid = game["game_id"]
    with client.websocket_connect(
        f"/v1/games/{gid}/stream?after=0&own_events=result", headers={"Authorization": f"Bearer {game['seats']['red']}"}
    ) as ws:
        _until_caught_up(ws)
        versions = []
        for i in range(3):
            ws.send_json({"kind": "command", "ref": f"r{i}", "command": SHOOT})
            msg = ws.receive_json()  # the result comes first and alone: no event frame before it
            assert msg["kind"] == "result" and msg["ref"] == f"r{i}"
            assert [e["seq"] for e in msg["events"]] == [msg["version"]]
            versions.append(msg["version"])
        assert versions == [3, 4, 5]
        r = client.post(
            f"/v1/games/{gid}/commands",
            json={"command": BLUE_SHOOTS},
            headers={"Authorization": f"Bearer {game['seats']['blue']}"},
        )
        assert r.status_code == 201
        msg = ws.receive_json()  # another seat's event still arrives, as the next frame: 6, not 3..5 again
        assert msg["kind"] == "event" and msg["event"]["seq"] == 6
        ws.send_json({"kind": "command", "ref": "again", "command": SHOOT})
        msg = ws.receive_json()
        assert msg["kind"] == "result" and msg["version"] == 7
    # a reconnect from the last seq this client holds (from results and frames) has no gap and no repeat
    r = client.post(
        f"/v1/games/{gid}/commands",
        json={"command": BLUE_SHOOTS},
        headers={"Authorization": f"Bearer {game['seats']['blue']}"},
    )
    with client.websocket_connect(
        f"/v1/games/{gid}/stream?after=7", headers={"Authorization": f"Bearer {game['seats']['red']}"}
    ) as ws:
        msg = ws.receive_json()
        assert msg["kind"] == "event" and msg["event"]["seq"] == 8
        assert ws.receive_json() == {"kind": "caught_up", "seq": 8}


def test_without_the_option_the_commanding_socket_also_gets_the_frames(client):
    game = _game(client)
    with client.websocket_connect(
        f"/v1/games/{game['game_id']}/stream", headers={"Authorization": f"Bearer {game['seats']['red']}"}
    ) as ws:
        _until_caught_up(ws)
        ws.send_json({"kind": "command", "ref": "r1", "command": SHOOT})
        kinds = {ws.receive_json()["kind"] for _ in range(2)}
        assert kinds == {"event", "result"}


def _stream_at(last: int, opted_in: bool = True) -> Stream:
    stream = Stream.__new__(Stream)  # only the accounting: no socket needed
    stream.last = last
    stream.results_carry_events = opted_in
    return stream


def test_a_result_after_unsent_events_leaves_the_frames_to_come():
    stream = _stream_at(4)
    stream.account_for(CommandResult(201, b"{}", version=9, after=6))  # 5 and 6 not sent here yet
    assert stream.last == 4
    stream.account_for(CommandResult(201, b"{}", version=None, after=None))  # an idempotent replay
    assert stream.last == 4
    stream.account_for(CommandResult(201, b"{}", version=6, after=4))
    assert stream.last == 6
    not_opted = _stream_at(4, opted_in=False)
    not_opted.account_for(CommandResult(201, b"{}", version=6, after=4))
    assert not_opted.last == 4


def test_join_present_is_the_view_then_only_the_tail(client):
    game = _game(client)
    gid = game["game_id"]
    red = {"Authorization": f"Bearer {game['seats']['red']}"}
    hide = {"type": "tiny.hide", "seat": "red", "secret": 734211}
    r = client.post(f"/v1/games/{gid}/commands", json={"command": hide}, headers=red)
    assert r.status_code == 201
    for _ in range(5):
        assert client.post(f"/v1/games/{gid}/commands", json={"command": SHOOT}, headers=red).status_code == 201
    version = client.get(f"/v1/games/{gid}").json()["version"]
    for headers, sees_secret in (({}, False), (red, True)):
        with client.websocket_connect(f"/v1/games/{gid}/stream?join=present", headers=headers) as ws:
            msg = ws.receive_json()
            assert msg["kind"] == "snapshot" and msg["seq"] == version
            http_view = client.get(f"/v1/games/{gid}", headers=headers).json()
            assert msg["game"]["state"] == http_view["state"]  # the same view and redaction as the HTTP read
            assert ("734211" in json.dumps(msg)) == sees_secret
            assert ws.receive_json() == {"kind": "caught_up", "seq": version}  # no history replayed
            assert client.post(f"/v1/games/{gid}/commands", json={"command": SHOOT}, headers=red).status_code == 201
            version += 1
            msg = ws.receive_json()
            assert msg["kind"] == "event" and msg["event"]["seq"] == version


async def test_a_commands_answer_is_encoded_by_the_api_from_the_values_the_service_returns():
    """The events layer returns a command's version and envelopes; the API layer encodes the body
    (``encoding.command_body``), byte for byte what a keyed command's stored record holds and replays."""
    import msgspec

    from service.api.encoding import command_body
    from service.domain.core import seat
    from service.events.application import GameService
    from service.events.memory_store import MemoryEventStore

    service = GameService(MemoryEventStore())
    gid = (await service.create_game("tiny", "duel")).game_id
    body = msgspec.json.encode({"command": SHOOT})
    plain = await service.handle_command(gid, seat("red"), body)
    assert (
        plain.body is None
        and plain.events
        and command_body(plain)
        == msgspec.json.encode({"version": plain.version, "events": [msgspec.json.decode(e) for e in plain.events]})
    )
    keyed = await service.handle_command(gid, seat("blue"), msgspec.json.encode({"command": BLUE_SHOOTS}), "k")
    again = await service.handle_command(gid, seat("blue"), msgspec.json.encode({"command": BLUE_SHOOTS}), "k")
    assert (
        keyed.body
        == command_body(keyed)
        == msgspec.json.encode({"version": keyed.version, "events": [msgspec.json.decode(e) for e in keyed.events]})
    )
    assert command_body(again) == keyed.body and again.version is None
