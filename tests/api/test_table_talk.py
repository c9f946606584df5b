"""Table talk (issue 39): a message reaches only its audience on every path a viewer reads (the messages,
the events, the turn's replay, the export, the websocket), and the spectators' channel never reaches the
game's log; length and rate limits answer problem+json naming the field."""

from __future__ import annotations

import json

import pytest
from starlette.testclient import TestClient

from service.api.app import create_app
from service.domain.core import Viewer
from service.events.table_events import TableMessage, may_read
from service.settings import Settings
from tests.support.direct import client_on_path

# each secret, and who may read it (besides the umpire, who reads everything)
SAID = [  # (sender, to, text, readers)
    ("red", "side:red", "SECRET-RED-PLAN", {"seat:red"}),
    ("red", "seat:blue", "SECRET-DM-TO-BLUE", {"seat:red", "seat:blue"}),
    ("red", "umpire", "SECRET-TO-UMPIRE", {"seat:red"}),
    ("blue", "side:blue", "SECRET-BLUE-PLAN", {"seat:blue"}),
    ("red", "all", "PUBLIC-HELLO", {"seat:red", "seat:blue", "spectator"}),
]
VIEWERS = ["seat:red", "seat:blue", "spectator"]


@pytest.fixture(params=["queued", "direct"])
def client(request, sqlite_url):
    app = create_app(Settings(database_url=sqlite_url, heartbeat_seconds=0.3))
    with client_on_path(app, request.param) as c:
        yield c


@pytest.fixture
def plain(sqlite_url):
    with TestClient(create_app(Settings(database_url=sqlite_url))) as c:
        yield c


def _game(client: TestClient) -> dict:
    r = client.post("/v1/games", json={"ruleset": "tiny", "scenario": "duel"})
    assert r.status_code == 201, r.text
    return r.json()


def _token(game: dict, viewer: str) -> str | None:
    if viewer == "umpire":
        return game["umpire_token"]
    return game["seats"][viewer.split(":")[1]] if viewer.startswith("seat:") else None


def _headers(game: dict, viewer: str) -> dict[str, str]:
    token = _token(game, viewer)
    return {"Authorization": f"Bearer {token}"} if token else {}


def _say(client: TestClient, game: dict, viewer: str, to: str, text: str) -> dict:
    r = client.post(
        f"/v1/games/{game['game_id']}/messages", json={"to": to, "text": text}, headers=_headers(game, viewer)
    )
    assert r.status_code == 201, r.text
    return r.json()


def _frames_until(ws, seq: int) -> str:
    """Every frame the socket gets until it has seen ``seq``, as one text (pings skipped)."""
    seen = []
    while True:
        msg = ws.receive_json()
        seen.append(json.dumps(msg))
        if msg["kind"] == "event" and msg["event"]["seq"] >= seq:
            return "\n".join(seen)
        if msg["kind"] == "caught_up" and msg["seq"] >= seq:
            return "\n".join(seen)


def test_table_talk_reaches_only_its_audience_on_every_path(client):
    """No side's message reaches the other side or a spectator: messages, events, replay, export, socket."""
    game = _game(client)
    gid = game["game_id"]
    sockets = {}
    for viewer in [*VIEWERS, "umpire"]:
        token = _token(game, viewer)
        protocols = ["salvo.v1", f"salvo.token.{token}"] if token else ["salvo.v1"]
        sockets[viewer] = client.websocket_connect(f"/v1/games/{gid}/stream?after=0", subprotocols=protocols)
    try:
        live = {viewer: ws.__enter__() for viewer, ws in sockets.items()}
        for ws in live.values():
            _frames_until(ws, 1)
        last = 0
        for sender, to, text, _readers in SAID:
            said = _say(client, game, f"seat:{sender}", to, text)
            assert said["sender"] == f"seat:{sender}" and said["to"] == to and said["text"] == text
            last = said["seq"]
        frames = {viewer: _frames_until(ws, last) for viewer, ws in live.items()}  # the last is to all
    finally:
        for ws in sockets.values():
            ws.__exit__(None, None, None)
    for viewer in [*VIEWERS, "umpire"]:
        h = _headers(game, viewer)
        listed = client.get(f"/v1/games/{gid}/messages", headers=h).json()["messages"]
        paths = {
            "messages": json.dumps(listed),
            "events": client.get(f"/v1/games/{gid}/events?after=0", headers=h).text,
            "replay": client.get(
                f"/v1/games/{gid}/turns/{client.get(f'/v1/games/{gid}').json()['turn']}", headers=h
            ).text,
            "export": client.get(f"/v1/games/{gid}/export", headers=h).text,
            "socket": frames[viewer],
        }
        for _sender, _to, text, readers in SAID:
            allowed = viewer == "umpire" or viewer in readers
            for path, body in paths.items():
                if path == "replay" and text not in paths["events"]:
                    continue
                assert (text in body) == allowed, f"{viewer} {'misses' if allowed else 'reads'} {text} on {path}"
        assert [m["text"] for m in listed] == [t for _s, _to, t, r in SAID if viewer == "umpire" or viewer in r]


def test_the_replay_explains_a_message(plain):
    client = plain
    game = _game(client)
    _say(client, game, "seat:red", "all", "good luck")
    turn = client.get(f"/v1/games/{game['game_id']}").json()["turn"]
    steps = client.get(f"/v1/games/{game['game_id']}/turns/{turn}").json()["events"]
    assert any(s["text"] == "seat:red to all: good luck" for s in steps)


def test_spectator_channel_never_reaches_the_log(plain):
    client = plain
    game = _game(client)
    gid = game["game_id"]
    r = client.post(f"/v1/games/{gid}/spectator-messages", json={"text": "GALLERY-SAYS-FLANK", "name": "kib"})
    assert r.status_code == 201, r.text
    assert client.get(f"/v1/games/{gid}/spectator-messages").json()["messages"][0]["text"] == "GALLERY-SAYS-FLANK"
    umpire = _headers(game, "umpire")
    assert "GALLERY-SAYS-FLANK" in client.get(f"/v1/games/{gid}/spectator-messages", headers=umpire).text
    r = client.get(f"/v1/games/{gid}/spectator-messages", headers=_headers(game, "seat:red"))
    assert r.status_code == 403  # no advice from the gallery
    for path in ("/events?after=0", "/export", "/messages"):
        assert "GALLERY" not in client.get(f"/v1/games/{gid}{path}", headers=umpire).text, path
    r = client.post(f"/v1/games/{gid}/spectator-messages", json={"text": "x"}, headers=_headers(game, "seat:red"))
    assert r.status_code == 403
    r = client.post(f"/v1/games/{gid}/messages", json={"text": "from the gallery"})
    assert r.status_code == 403 and r.headers["content-type"].startswith("application/problem+json")


def test_the_spectators_channel_is_live_for_spectators_and_the_umpire_only(client):
    """A spectator's message comes as a spectator_message frame to every spectator's and the umpire's socket
    (both transports), never to a seat's, and never in the log, the export or a battle file."""
    game = _game(client)
    gid = game["game_id"]
    sockets = {}
    for viewer in ("spectator", "umpire", "seat:red"):
        token = _token(game, viewer)
        protocols = ["salvo.v1", f"salvo.token.{token}"] if token else ["salvo.v1"]
        sockets[viewer] = client.websocket_connect(f"/v1/games/{gid}/stream?after=0", subprotocols=protocols)
    try:
        live = {viewer: ws.__enter__() for viewer, ws in sockets.items()}
        version = client.get(f"/v1/games/{gid}").json()["version"]
        for ws in live.values():
            _frames_until(ws, version)
        r = client.post(f"/v1/games/{gid}/spectator-messages", json={"text": "GALLERY-LIVE", "name": "kib"})
        assert r.status_code == 201, r.text
        posted = r.json()
        for viewer in ("spectator", "umpire"):
            while (frame := live[viewer].receive_json())["kind"] in ("ping", "caught_up"):
                pass
            assert frame == {"kind": "spectator_message", "message": posted}, viewer
        last = _say(client, game, "seat:red", "all", "after the gallery")["seq"]  # the seat reads up to it
        seat_frames = _frames_until(live["seat:red"], last)
    finally:
        for ws in sockets.values():
            ws.__exit__(None, None, None)
    assert "GALLERY" not in seat_frames
    assert client.app.state.spectator_chat.listeners(gid) == 0  # every socket gone, every listener with it
    umpire = _headers(game, "umpire")
    for path in ("/events?after=0", "/export", "/messages"):
        assert "GALLERY" not in client.get(f"/v1/games/{gid}{path}", headers=umpire).text, path


def test_bad_messages_name_the_field(plain):
    client = plain
    game = _game(client)
    gid = game["game_id"]
    red = _headers(game, "seat:red")
    for body, field in [
        ({"text": "x" * 501}, "text"),
        ({"text": "   "}, "text"),
        ({"text": "a\x1b[2Jb"}, "text"),
        ({"text": "hi", "to": "side:green"}, "to"),
        ({"text": "hi", "to": "seat:umpire"}, "to"),
    ]:
        r = client.post(f"/v1/games/{gid}/messages", json=body, headers=red)
        assert r.status_code == 422, (body, r.text)
        assert r.json()["field"] == field
    assert client.post(f"/v1/games/{gid}/messages", json={"text": "x" * 500}, headers=red).status_code == 201


def test_messages_are_rate_limited_per_token(sqlite_url):
    app = create_app(
        Settings(
            database_url=sqlite_url, rate_messages_per_token="3/minute", rate_spectator_messages_per_address="2/minute"
        )
    )
    with TestClient(app) as client:
        game = _game(client)
        gid = game["game_id"]
        codes = [
            client.post(
                f"/v1/games/{gid}/messages", json={"text": f"m{i}"}, headers=_headers(game, "seat:red")
            ).status_code
            for i in range(4)
        ]
        assert codes == [201, 201, 201, 429]
        # another token has its own allowance
        assert (
            client.post(
                f"/v1/games/{gid}/messages", json={"text": "b"}, headers=_headers(game, "seat:blue")
            ).status_code
            == 201
        )
        codes = [
            client.post(f"/v1/games/{gid}/spectator-messages", json={"text": f"s{i}"}).status_code for i in range(3)
        ]
        assert codes == [201, 201, 429]


def test_an_exported_game_with_talk_imports_without_its_messages(plain):
    client = plain
    """An umpire's export keeps the talk (its writers checked on import); the imported game inherits the
    game's events only, like a fork: no message reaches a new game's umpire."""
    game = _game(client)
    _say(client, game, "seat:red", "side:red", "SECRET-RED-PLAN")
    exported = client.get(f"/v1/games/{game['game_id']}/export", headers=_headers(game, "umpire")).content
    assert b"SECRET-RED-PLAN" in exported
    r = client.post("/v1/games/import", content=exported)
    assert r.status_code == 201, r.text
    new = r.json()
    assert (
        "SECRET" not in client.get(f"/v1/games/{new['game_id']}/events?after=0", headers=_headers(new, "umpire")).text
    )
    fork = client.post(f"/v1/games/{game['game_id']}/fork", headers=_headers(game, "umpire")).json()
    assert (
        "SECRET" not in client.get(f"/v1/games/{fork['game_id']}/events?after=0", headers=_headers(fork, "umpire")).text
    )


def test_a_side_of_crew_seats_reads_its_side_messages():
    """A Starfinder seat is ship/crew: the crew of one ship are one side."""
    to_side = TableMessage(sender="seat:sunrise/captain", to="side:sunrise", text="hold")
    assert may_read(to_side, Viewer("seat", "sunrise/pilot"))
    assert not may_read(to_side, Viewer("seat", "raider/pilot"))
    assert not may_read(to_side, Viewer("spectator"))
    assert may_read(to_side, Viewer("umpire"))
    dm = TableMessage(sender="seat:raider/captain", to="seat:sunrise/pilot", text="defect")
    assert may_read(dm, Viewer("seat", "raider/captain")) and may_read(dm, Viewer("seat", "sunrise/pilot"))
    assert not may_read(dm, Viewer("seat", "sunrise/captain"))
