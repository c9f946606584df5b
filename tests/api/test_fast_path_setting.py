"""SALVO_FAST_PATH picks the transport: on (the default), the lean POST /commands, Salvo's uvicorn
protocols and the raw-socket middleware of the pre-framed fan-out; off, none of them: FastAPI, Starlette
and uvicorn's own protocols, the reference path (scripts/test.sh runs the transport's tests on both)."""

from __future__ import annotations

import httpx
import pytest

from service.api.app import SalvoApp, create_app
from service.api.fast.http_protocol import CoalescingHttpToolsProtocol
from service.api.fast.rawsocket import RawSocketMiddleware
from service.api.fast.wsprotocol import SalvoWebSocketProtocol
from service.api.serving import uvicorn_config
from service.settings import Settings, fast_path_from_env
from tests.api.helpers import SHOOT_RED, bearer


@pytest.mark.parametrize(("value", "fast"), [("on", True), ("OFF", False), ("0", False), ("true", True)])
def test_the_setting_reads_on_and_off(monkeypatch, value, fast):
    monkeypatch.setenv("SALVO_FAST_PATH", value)
    assert fast_path_from_env() is fast
    assert Settings.from_env().fast_path is fast and Settings().fast_path is fast


def test_the_fast_path_is_on_unless_said_otherwise(monkeypatch):
    monkeypatch.delenv("SALVO_FAST_PATH", raising=False)
    assert Settings().fast_path is True


def test_a_bad_value_names_the_setting(monkeypatch):
    monkeypatch.setenv("SALVO_FAST_PATH", "fast")
    with pytest.raises(ValueError, match="SALVO_FAST_PATH"):
        Settings.from_env()


@pytest.mark.parametrize("fast", [True, False])
def test_the_app_and_the_server_take_the_pieces_the_setting_picks(sqlite_url, fast):
    settings = Settings(database_url=sqlite_url, fast_path=fast)
    app = create_app(settings)
    assert isinstance(app, SalvoApp) is fast
    assert (RawSocketMiddleware in [m.cls for m in app.user_middleware]) is fast
    assert (type(getattr(app.router.routes[0], "app", None)).__name__ == "CommandEndpoint") is fast
    config = uvicorn_config(app, settings, "127.0.0.1", 1, "warning")
    assert config.http is CoalescingHttpToolsProtocol if fast else config.http == "httptools"
    assert config.ws is SalvoWebSocketProtocol if fast else config.ws == "websockets-sansio"


@pytest.mark.parametrize("fast", [True, False])
async def test_a_command_is_answered_alike_on_both_paths(sqlite_url, fast):
    """The same 201 body shape and headers whichever way POST /commands is served."""
    app = create_app(Settings(database_url=sqlite_url, fast_path=fast))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://salvo") as client:
            game = (await client.post("/v1/games", json={"ruleset": "tiny", "scenario": "duel"})).json()
            r = await client.post(
                f"/v1/games/{game['game_id']}/commands",
                json={"command": SHOOT_RED},
                headers={**bearer(game["seats"]["red"]), "X-Request-ID": "abc-1"},
            )
            assert r.status_code == 201, r.text
            assert r.json()["version"] == 3 and r.headers["x-request-id"] == "abc-1"
            assert r.headers["content-type"] == "application/json"
            assert r.headers["x-content-type-options"] == "nosniff"
