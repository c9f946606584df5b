"""POST /commands is served by the lean ASGI endpoint ahead of the router, and answers exactly as the
FastAPI route it stands in front of: same statuses, headers and bodies, errors included. With the app's
own middleware the request skips the stack and the router (LeanCommands does their work in one call);
with other middleware (CORS) it goes through them to the same endpoint."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.middleware.cors import CORSMiddleware
from starlette.routing import Match

from service.api.app import SalvoApp, create_app
from service.api.fast.command_endpoint import CommandEndpoint, LeanCommands
from service.settings import Settings
from tests.api.helpers import SHOOT_RED, bearer
from tests.support.fast import fast_only

pytestmark = fast_only  # the fast transport's own pieces

ROOT = Path(__file__).resolve().parents[2]
HIDE_BLUE = {"type": "tiny.hide", "seat": "blue", "secret": 4}


def _first_route(app: Any, method: str, path: str) -> Any:
    scope = {"type": "http", "method": method, "path": path, "root_path": "", "headers": []}
    return next(r for r in app.router.routes if r.matches(scope)[0] == Match.FULL)


def _headers(r: httpx.Response, given: str | None = None) -> list[tuple[str, str]]:
    """Every response header, in order; a made-up request id as its shape and the length as right (the
    ids and times in a result differ run to run)."""
    out = []
    for name, value in r.headers.multi_items():
        if name == "content-length":
            assert int(value) == len(r.content)
            value = "<right>"
        elif name == "x-request-id" and value != given:
            assert len(value) == 16 and int(value, 16) >= 0
            value = "<made>"
        elif name == "retry-after":  # seconds left in the rate window: depends on when each run started
            value = _seconds(value)
        out.append((name, value))
    return out


def _seconds(retry_after: str) -> str:
    """A Retry-After as its shape: whole seconds within the minute's window."""
    assert 1 <= int(retry_after) <= 60, retry_after
    return "<1..60 s>"


def _chunked(body: bytes) -> Any:
    async def chunks() -> Any:  # no Content-Length: the limit is met while reading
        for i in range(0, len(body), 512):
            yield body[i : i + 512]

    return chunks()


async def _exchange(sqlite_url: str, lean: bool, cors: bool = False) -> list[tuple[Any, ...]]:
    settings = Settings(
        database_url=sqlite_url,
        snapshot_every=50,
        max_body_bytes=2048,
        rate_commands_per_token="5/minute",
        cors_origins=("https://club.example",) if cors else (),
    )
    app = create_app(settings)
    if not lean:  # the FastAPI route alone, as before
        app.router.routes[:] = [
            r for r in app.router.routes if not isinstance(getattr(r, "app", None), CommandEndpoint)
        ]
    out = []
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://salvo") as client:
            game = (await client.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"})).json()  # no end
            url = f"/v1/games/{game['game_id']}/commands"
            red, blue = bearer(game["seats"]["red"]), bearer(game["seats"]["blue"])
            asks: list[tuple[dict[str, str], Any]] = [
                (red, {"command": SHOOT_RED}),  # 201
                ({**blue, "If-Match": "1"}, {"command": HIDE_BLUE}),  # 409: the game moved on
                ({**blue, "If-Match": "x"}, {"command": HIDE_BLUE}),  # 422 naming If-Match
                ({**blue, "Idempotency-Key": "k" * 201}, {"command": HIDE_BLUE}),  # 422 naming the key
                ({"Authorization": "Bearer nope"}, {"command": HIDE_BLUE}),  # 401
                (blue, {"command": {"type": "tiny.shoot", "shooter": "red", "target": "blue"}}),  # 403 not yours
                (blue, {"command": {"type": "tiny.shoot", "shooter": "blue", "target": "blue"}}),  # rule
                (blue, {"command": {"type": "tiny.nope"}}),  # malformed
                (blue, {"command": HIDE_BLUE, "salt": "s" * 4000}),  # 413 (body limit)
                (blue, {"command": HIDE_BLUE}),  # 201
                (red, {"command": SHOOT_RED}),  # 201: red's second to fifth
                (red, {"command": SHOOT_RED}),
                (red, {"command": SHOOT_RED}),
                (red, {"command": SHOOT_RED}),
                (red, {"command": SHOOT_RED}),  # 429 with Retry-After: red's sixth this minute
            ]
            for headers, body in asks:
                r = await client.post(url, json=body, headers=headers)
                data = r.json()
                if r.status_code == 201:
                    data = {"version": data["version"], "types": [e["type"] for e in data["events"]]}
                retry = r.headers.get("retry-after")
                out.append((r.status_code, r.headers.get("content-type"), retry and _seconds(retry), data, _headers(r)))
            r = await client.get(url)
            out.append((r.status_code, r.headers.get("content-type"), None, r.json(), _headers(r)))  # 405
            more: list[tuple[list[tuple[str, str]], Any, str | None]] = [
                ([("Authorization", "Bearer nope"), ("X-Request-Id", "req-7.a_b")], b"{}", "req-7.a_b"),  # 401
                ([("Authorization", "Bearer nope"), ("X-Request-Id", "not one!")], b"{}", None),  # id made
                ([("Authorization", "Bearer nope"), ("X-Request-Id", "a"), ("X-Request-Id", "b")], b"{}", "b"),
                ([*blue.items(), ("If-Match", "x"), ("Origin", "https://club.example")], b"{}", None),  # 422
                ([*red.items(), ("X-Request-Id", "big")], _chunked(b" " * 3000), "big"),  # 413 while reading
                ([*red.items(), ("Content-Length", "12x")], b"{}", None),  # 413: a length that is no number
            ]
            for headers, content, echoed in more:
                r = await client.post(url, content=content, headers=headers)
                out.append((r.status_code, r.json(), _headers(r, echoed)))
            r = await client.post("/v1/games/g_0/commands/", json={"command": SHOOT_RED})  # a redirect
            out.append((r.status_code, _headers(r)))
    return out


async def test_the_lean_endpoint_serves_post_commands(api):
    route = _first_route(api.app, "POST", "/v1/games/g_1/commands")
    assert isinstance(route.app, CommandEndpoint)
    # and the FastAPI route is still there behind it, describing the endpoint in the OpenAPI document
    doc = api.app.openapi()["paths"]["/v1/games/{game_id}/commands"]["post"]
    committed = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    assert doc == committed["paths"]["/v1/games/{game_id}/commands"]["post"]
    assert {"game_id", "Idempotency-Key", "If-Match"} <= {p["name"] for p in doc["parameters"]}


async def test_the_lean_endpoint_answers_as_the_fastapi_route(tmp_path):
    lean = await _exchange(f"sqlite:///{tmp_path}/lean.db", lean=True)
    plain = await _exchange(f"sqlite:///{tmp_path}/plain.db", lean=False)
    statuses = [s for s, *_ in lean]
    assert statuses == [
        201,
        409,
        422,
        422,
        401,
        403,
        422,
        422,
        413,
        201,
        201,
        201,
        201,
        201,
        429,
        405,
        401,
        401,
        401,
        422,
        413,
        413,
        307,
    ]
    assert lean[14][2] is not None  # Retry-After
    first = dict(lean[0][4])
    assert first["x-content-type-options"] == "nosniff" and first["referrer-policy"] == "no-referrer"
    assert ("x-request-id", "req-7.a_b") in lean[16][2] and ("x-request-id", "<made>") in lean[17][2]
    assert ("x-request-id", "b") in lean[18][2]  # the last of two, as before
    assert lean == plain


async def test_with_cors_the_request_takes_the_stack_and_still_answers_the_same(tmp_path):
    lean = await _exchange(f"sqlite:///{tmp_path}/lean.db", lean=True, cors=True)
    plain = await _exchange(f"sqlite:///{tmp_path}/plain.db", lean=False, cors=True)
    assert ("access-control-allow-origin", "https://club.example") in lean[19][2]
    assert lean == plain


async def _unexpected(sqlite_url: str, lean: bool) -> tuple[int, Any, list[tuple[str, str]]]:
    app = create_app(Settings(database_url=sqlite_url, snapshot_every=50))
    if not lean:
        app.router.routes[:] = [
            r for r in app.router.routes if not isinstance(getattr(r, "app", None), CommandEndpoint)
        ]
    async with app.router.lifespan_context(app):

        async def broken(*_args: Any, **_kw: Any) -> Any:
            raise RuntimeError("the store fell over")

        app.state.gate.command = broken
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://salvo") as client:
            game = (await client.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"})).json()
            r = await client.post(
                f"/v1/games/{game['game_id']}/commands",
                json={"command": SHOOT_RED},
                headers=bearer(game["seats"]["red"]),
            )
    return r.status_code, r.json(), r.headers.multi_items()


async def test_an_unexpected_failure_is_the_same_500_either_way(tmp_path):
    lean = await _unexpected(f"sqlite:///{tmp_path}/lean.db", lean=True)
    plain = await _unexpected(f"sqlite:///{tmp_path}/plain.db", lean=False)
    assert lean[0] == 500 and "the store fell over" not in str(lean[1])
    assert lean == plain


async def test_the_lean_path_is_taken_only_over_the_apps_own_middleware(sqlite_url):
    app = create_app(Settings(database_url=sqlite_url))
    assert isinstance(app, SalvoApp) and isinstance(app._lean_commands(), LeanCommands)
    cors = create_app(Settings(database_url=sqlite_url, cors_origins=("https://club.example",)))
    assert cors._lean_commands() is None  # type: ignore[attr-defined]
    with pytest.raises(RuntimeError):  # the stack is fixed from the first request on, as in Starlette
        app.add_middleware(CORSMiddleware, allow_origins=["*"])
