"""POST /commands is served by the lean ASGI endpoint ahead of the router, and answers exactly as the
FastAPI route it stands in front of: same statuses, headers that matter and bodies, errors included."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
from starlette.routing import Match

from service.api.app import create_app
from service.api.command_endpoint import CommandEndpoint
from service.settings import Settings
from tests.api.helpers import SHOOT_RED, bearer

ROOT = Path(__file__).resolve().parents[2]
HIDE_BLUE = {"type": "tiny.hide", "seat": "blue", "secret": 4}


def _first_route(app: Any, method: str, path: str) -> Any:
    scope = {"type": "http", "method": method, "path": path, "root_path": "", "headers": []}
    return next(r for r in app.router.routes if r.matches(scope)[0] == Match.FULL)


async def _exchange(sqlite_url: str, lean: bool) -> list[tuple[int, str | None, str | None, Any]]:
    settings = Settings(database_url=sqlite_url, snapshot_every=50, max_body_bytes=2048,
                        rate_commands_per_token="5/minute")
    app = create_app(settings)
    if not lean:  # the FastAPI route alone, as before
        app.router.routes[:] = [r for r in app.router.routes if not isinstance(getattr(r, "app", None),
                                                                                CommandEndpoint)]
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
                out.append((r.status_code, r.headers.get("content-type"), r.headers.get("retry-after"), data))
            r = await client.get(url)
            out.append((r.status_code, r.headers.get("content-type"), None, r.json()))  # 405 either way
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
    assert statuses == [201, 409, 422, 422, 401, 403, 422, 422, 413, 201, 201, 201, 201, 201, 429, 405]
    assert lean[-2][2] is not None  # Retry-After
    assert lean == plain
