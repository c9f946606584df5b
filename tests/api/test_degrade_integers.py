"""Issue 33: an integer literal of any length, on every JSON input path, is counted in digits before
anything decodes it: 422 problem+json naming its field over HTTP, an error message naming it on a
websocket (the socket stays open), never Python's 4,300-digit conversion error (a 500, a dropped socket)
and never anything appended."""

from __future__ import annotations

import json

import httpx
import pytest
from starlette.testclient import TestClient
from websockets.sync.client import connect

from service.api.app import create_app
from service.settings import Settings
from tests.api.helpers import bearer, new_game
from tests.support.server import uvicorn_in_thread

HUGE = b"9" * 5000  # past Python's int-string limit (4,300 digits)
JUST_PAST = b"9223372036854775808"  # INT64_MAX + 1: 19 digits, converted and compared
JSON = {"content-type": "application/json"}
SHOOT = b'"type":"tiny.shoot","shooter":"red","target":"blue"'


def _bodies(number: bytes) -> list[tuple[str, str, bytes, str]]:
    """(name, path template, body, field): every path that decodes a JSON body."""
    return [
        ("create-scenario", "/v1/games", b'{"ruleset":"tiny","scenario":{"hull":' + number + b"}}", "$.scenario.hull"),
        (
            "create-options",
            "/v1/games",
            b'{"ruleset":"tiny","scenario":"duel","options":{"x":[1,' + number + b"]}}",
            "$.options.x[1]",
        ),
        ("command", "/v1/games/{gid}/commands", b'{"command":{' + SHOOT + b',"n":' + number + b"}}", "$.command.n"),
        (
            "rewind",
            "/v1/games/{gid}/rewind",
            b'{"to_seq":' + number + b',"reason":"9999999999999999999999"}',
            "$.to_seq",
        ),
        ("bots", "/v1/games/{gid}/bots", b'{"seat":"blue","bot":"rules","n":' + number + b"}", "$.n"),
    ]


@pytest.fixture
async def client(sqlite_url):
    app = create_app(Settings(database_url=sqlite_url))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://salvo") as c:
            c.app = app  # type: ignore[attr-defined]
            yield c


@pytest.mark.asyncio
@pytest.mark.parametrize("number", [HUGE, JUST_PAST], ids=["5000-digits", "int64-max-plus-1"])
@pytest.mark.parametrize("name", [b[0] for b in _bodies(b"1")])
async def test_every_http_body_path_answers_422_naming_the_field(client, name, number):
    game = await new_game(client)
    gid = game["game_id"]
    [(_, path, body, field)] = [b for b in _bodies(number) if b[0] == name]
    token = game["seats"]["red"] if name == "command" else game["umpire_token"]
    store = client.app.state.store
    r = await client.post(path.format(gid=gid), content=body, headers={**JSON, **bearer(token)})
    assert r.status_code == 422, r.text
    assert r.headers["content-type"] == "application/problem+json"
    assert r.json()["field"] == field and "64 bits" in r.json()["detail"], r.json()
    assert await store.head(gid) == 2  # nothing appended


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("lines", "field", "where"),
    [
        (b'{"format":"salvo-battle/1","n":' + HUGE + b"}\n", "line 1", "$.n"),
        (b'{"format":"salvo-battle/1"}\n{"seq":' + HUGE + b"}\n", "line 2", "$.seq"),
    ],
)
async def test_a_battle_file_import_answers_422_naming_the_line_and_field(client, lines, field, where):
    r = await client.post("/v1/games/import", content=lines, headers={"content-type": "application/x-ndjson"})
    assert r.status_code == 422 and r.json()["field"] == field, r.text
    assert where in r.json()["detail"]


@pytest.mark.asyncio
async def test_long_digit_runs_inside_strings_and_floats_pass(client):
    """Digits inside a string, and a float's digits, are not integers: the command is accepted."""
    game = await new_game(client)
    body = b'{"command":{' + SHOOT + b'},"salt":"' + b"9" * 5000 + b'"}'
    r = await client.post(
        f"/v1/games/{game['game_id']}/commands", content=body, headers={**JSON, **bearer(game["seats"]["red"])}
    )
    assert r.status_code == 201, r.text


def _frame(number: bytes | None) -> str:
    extra = b',"n":' + number if number is not None else b""
    return (b'{"kind":"command","ref":"big","command":{' + SHOOT + extra + b"}}").decode()


def test_a_websocket_gets_an_error_message_and_stays_open(sqlite_url):
    """The queued stream (ASGI websockets): an error naming the field, then a valid command still works."""
    app = create_app(Settings(database_url=sqlite_url))
    with TestClient(app) as c:
        game = c.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
        with c.websocket_connect(f"/v1/games/{game['game_id']}/stream", headers=bearer(game["seats"]["red"])) as ws:
            while ws.receive_json()["kind"] != "caught_up":
                pass
            for number in (HUGE, JUST_PAST):
                ws.send_text(_frame(number))
                while (msg := ws.receive_json())["kind"] not in ("error", "result"):
                    pass
                assert msg["kind"] == "error" and msg["status"] == 422 and msg["field"] == "$.command.n", msg
                assert msg["ref"] is None or msg["ref"] == "big"
            ws.send_text(_frame(None))
            while (msg := ws.receive_json())["kind"] not in ("error", "result"):
                pass
            assert msg["kind"] == "result" and msg["version"] == 3, msg


@pytest.mark.parametrize("ws", ["salvo", "websockets-sansio"])
def test_a_live_socket_on_a_real_server_answers_an_error_and_stays_open(sqlite_url, ws):
    """The same over a real server, on Salvo's own websocket protocol (the direct stream) and uvicorn's."""
    from service.api.fast.wsprotocol import SalvoWebSocketProtocol

    settings = Settings(database_url=sqlite_url)
    protocol = SalvoWebSocketProtocol if ws == "salvo" else ws
    with uvicorn_in_thread(create_app(settings), settings, ws=protocol) as (_server, port):
        game = httpx.post(f"http://127.0.0.1:{port}/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
        with connect(
            f"ws://127.0.0.1:{port}/v1/games/{game['game_id']}/stream",
            additional_headers=bearer(game["seats"]["red"]),
            max_size=None,
        ) as sock:
            while json.loads(sock.recv(timeout=10))["kind"] != "caught_up":
                pass
            sock.send(_frame(HUGE))
            while (msg := json.loads(sock.recv(timeout=10)))["kind"] not in ("error", "result"):
                pass
            assert msg["kind"] == "error" and msg["status"] == 422 and msg["field"] == "$.command.n", msg
            sock.send(_frame(None))
            while (msg := json.loads(sock.recv(timeout=10)))["kind"] not in ("error", "result"):
                pass
            assert msg["kind"] == "result", msg
