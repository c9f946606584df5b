"""?frames=view: each update's last message carries the viewer's view and options after it, equal to
what GET /v1/games/{id} and GET /options answer that viewer (the same redaction), so a page makes no
request per update; the view is encoded once per audience, not once per socket. Both transports."""

from __future__ import annotations

from typing import Any

import pytest

from service.api import encoding as frames
from service.api.app import create_app
from service.settings import Settings
from tests.support.direct import client_on_path

SECRET = 734_211
HIDE = {"type": "tiny.hide", "seat": "red", "secret": SECRET}
SHOOT = {"type": "tiny.shoot", "shooter": "red", "target": "blue"}


@pytest.fixture(params=["queued", "direct"])
def client(request, sqlite_url):
    app = create_app(Settings(database_url=sqlite_url, ws_queue_size=64, heartbeat_seconds=5))
    with client_on_path(app, request.param) as c:
        yield c


def _headers(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def _http_view(client, game_id: str, token: str | None) -> dict[str, Any]:
    game = client.get(f"/v1/games/{game_id}", headers=_headers(token)).json()
    for key in ("deadline", "clock"):  # not in the stream's view (the time: read over HTTP)
        game.pop(key, None)
    options = client.get(f"/v1/games/{game_id}/options", headers=_headers(token)).json()
    if token is None:
        options = {"version": game["version"], "viewer": "spectator", "options": [], "forms": []}
    return {"game": game, "options": options}


def _until_view(ws) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The messages up to and including the first that carries a view."""
    seen = []
    while True:
        msg = ws.receive_json()
        seen.append(msg)
        if "view" in msg:
            return seen, msg


def test_each_update_ends_with_the_viewers_view(client):
    game = client.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
    gid, red = game["game_id"], game["seats"]["red"]
    viewers = {"red": red, "blue": game["seats"]["blue"], "spectator": None, "umpire": game["umpire_token"]}
    sockets = {
        name: client.websocket_connect(f"/v1/games/{gid}/stream?frames=view", headers=_headers(token)).__enter__()
        for name, token in viewers.items()
    }
    try:
        for name, ws in sockets.items():  # the join: caught_up with the view at the head
            seen, last = _until_view(ws)
            assert last["kind"] == "caught_up" and last["view"] == _http_view(client, gid, viewers[name])
        for command in (HIDE, SHOOT):
            assert client.post(f"/v1/games/{gid}/commands", json={"command": command}, headers=_headers(red)).is_success
            for name, ws in sockets.items():
                seen, last = _until_view(ws)
                assert last["view"] == _http_view(client, gid, viewers[name]), name
                assert last["view"]["game"]["version"] == last.get("seq", last.get("event", {}).get("seq"))
                shows_secret = str(SECRET) in str(last["view"])
                assert shows_secret == (name in ("red", "umpire")) or command is SHOOT, name
                assert last["kind"] == "event"
                if name in ("blue", "spectator"):  # red's secret: redacted from them, view and event alike
                    assert str(SECRET) not in str(seen)
    finally:
        for ws in sockets.values():
            ws.__exit__(None, None, None)


def test_without_the_option_no_view_is_sent(client):
    game = client.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
    gid, red = game["game_id"], game["seats"]["red"]
    with client.websocket_connect(f"/v1/games/{gid}/stream") as ws:
        while ws.receive_json()["kind"] != "caught_up":
            pass
        client.post(f"/v1/games/{gid}/commands", json={"command": SHOOT}, headers=_headers(red))
        msg = ws.receive_json()
        while msg["kind"] != "event":
            msg = ws.receive_json()
        assert "view" not in msg


def test_a_view_is_built_once_per_audience_and_update(client, monkeypatch):
    game = client.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
    gid, red = game["game_id"], game["seats"]["red"]
    built: list[str] = []
    real = frames.full_view
    monkeypatch.setattr(frames, "full_view", lambda r, s, v: built.append(v.label) or real(r, s, v))
    sockets = [client.websocket_connect(f"/v1/games/{gid}/stream?frames=view").__enter__() for _ in range(5)] + [
        client.websocket_connect(f"/v1/games/{gid}/stream?frames=view", headers=_headers(red)).__enter__()
    ]
    try:
        for ws in sockets:
            _until_view(ws)
        built.clear()
        client.post(f"/v1/games/{gid}/commands", json={"command": SHOOT}, headers=_headers(red))
        views = [_until_view(ws)[1]["view"] for ws in sockets]
        assert all(v == views[0] for v in views[:5])
        assert sorted(built) == ["seat:red", "spectator"]  # five spectators, one view
    finally:
        for ws in sockets:
            ws.__exit__(None, None, None)


def test_the_game_view_and_options_are_gzipped_when_accepted(sqlite_url):
    from starlette.testclient import TestClient

    app = create_app(Settings(database_url=sqlite_url))
    with TestClient(app) as client:
        game = client.post("/v1/games", json={"ruleset": "gsc2", "scenario": "duel"}).json()
        path, red = f"/v1/games/{game['game_id']}", _headers(game["seats"]["red"])
        for url in (path, path + "/options", path + "?at=1"):
            plain = client.get(url, headers={**red, "Accept-Encoding": "identity"})
            packed = client.get(url, headers={**red, "Accept-Encoding": "gzip, br"})
            assert "content-encoding" not in plain.headers and plain.headers["vary"] == "Accept-Encoding"
            assert packed.json() == plain.json()  # (httpx decodes it)
            if len(plain.content) >= 1024:
                assert packed.headers["content-encoding"] == "gzip", url
                assert int(packed.headers["content-length"]) < len(plain.content) / 3
        assert client.get(path, headers={**red, "Accept-Encoding": "gzip"}).headers["content-encoding"] == "gzip"
        refused = client.get(path, headers={**red, "Accept-Encoding": "gzip;q=0"})
        assert "content-encoding" not in refused.headers


def test_after_a_bare_notification_the_store_read_ends_with_the_view(client):
    """Frames lost (another replica's, a dropped Redis message): the socket reads the store and the read
    ends with a caught_up carrying the view at the head."""
    game = client.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
    gid, red = game["game_id"], game["seats"]["red"]
    service = client.app.state.service
    publish = service.publish
    service.publish = lambda game_id, items: publish(game_id, [(items[-1][0], None)])  # the seq alone
    try:
        with client.websocket_connect(f"/v1/games/{gid}/stream?frames=view", headers=_headers(red)) as ws:
            _until_view(ws)
            for command in (HIDE, SHOOT):
                client.post(f"/v1/games/{gid}/commands", json={"command": command}, headers=_headers(red))
                seen, last = _until_view(ws)
                assert seen[0]["kind"] == "event" and last["kind"] == "caught_up"
                assert last["view"] == _http_view(client, gid, red) and last["seq"] == seen[-2]["event"]["seq"]
    finally:
        service.publish = publish


def test_a_socket_replica_builds_the_view_of_another_replicas_update_once(sqlite_url):
    """A takes the commands (no frames=view socket of its own, so it sends no view on Redis); B's spectators
    get each update's view in its last frame, built on B once per audience and update, not read from the store."""
    from tests.api.test_replicas import REDIS_URL
    from tests.support.direct import direct_client

    try:
        import redis

        redis.Redis.from_url(REDIS_URL).ping()
    except Exception as exc:  # noqa: BLE001
        pytest.skip(f"Redis not reachable at {REDIS_URL}: {exc}")
    settings = Settings(database_url=sqlite_url, redis_url=REDIS_URL, heartbeat_seconds=5)
    with client_on_path(create_app(settings), "queued") as a, direct_client(create_app(settings)) as b:
        game = a.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
        gid, red = game["game_id"], game["seats"]["red"]
        sockets = [b.websocket_connect(f"/v1/games/{gid}/stream?frames=view").__enter__() for _ in range(3)]
        try:
            for ws in sockets:
                _until_view(ws)
            broadcaster, fallbacks = b.app.state.broadcaster, b.app.state.broadcaster.fanout.fallbacks
            for command in (HIDE, SHOOT):
                assert a.post(f"/v1/games/{gid}/commands", json={"command": command}, headers=_headers(red)).is_success
                for ws in sockets:
                    seen, last = _until_view(ws)
                    assert [m["kind"] for m in seen] == ["event"]
                    assert last["view"] == _http_view(a, gid, None)
            assert broadcaster.views_built == 2 and broadcaster.fanout.fallbacks == fallbacks
        finally:
            for ws in sockets:
                ws.__exit__(None, None, None)
