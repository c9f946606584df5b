"""Issue 33: the failed-authentication limit slows guessing without locking out the table. Failures are
counted per address and only further failures are refused (429 with Retry-After); a valid token from the
same address always passes, over HTTP (reads and commands) and on the websocket."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from service.api.app import create_app
from service.settings import Settings

SHOOT = {"type": "tiny.shoot", "shooter": "red", "target": "blue"}
BAD_TRIES = 40  # past the default limit of 30 failures a minute


@pytest.fixture
def client(sqlite_url):
    settings = Settings(database_url=sqlite_url)
    assert settings.rate_auth_failures_per_address == "30/minute"  # the default under test
    with TestClient(create_app(settings)) as c:
        yield c


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _caught_up(ws) -> dict:
    while (msg := ws.receive_json())["kind"] != "caught_up":
        pass
    return msg


def test_forty_bad_tokens_then_a_valid_one_succeeds_and_the_41st_bad_one_gets_429(client):
    game = client.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
    url = f"/v1/games/{game['game_id']}"
    codes = [client.get(url, headers=_bearer(f"guess{i}")).status_code for i in range(BAD_TRIES)]
    assert codes == [401] * 30 + [429] * 10
    assert client.get(url, headers=_bearer(game["umpire_token"])).status_code == 200
    r = client.post(f"{url}/commands", json={"command": SHOOT}, headers=_bearer(game["seats"]["red"]))
    assert r.status_code == 201, r.text  # a seat's command passes too
    assert client.get(f"{url}/options", headers=_bearer(game["seats"]["blue"])).status_code == 200
    r = client.get(url, headers=_bearer("guess-41"))
    assert r.status_code == 429 and 1 <= int(r.headers["retry-after"]) <= 60, r.text
    assert r.headers["content-type"] == "application/problem+json"
    r = client.post(f"{url}/commands", json={"command": SHOOT}, headers=_bearer("guess-42"))
    assert r.status_code == 429  # a failed command's token counts the same


def test_the_websocket_refuses_further_failures_and_admits_a_valid_token(client):
    game = client.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
    url = f"/v1/games/{game['game_id']}"
    for i in range(BAD_TRIES):
        client.get(url, headers=_bearer(f"guess{i}"))
    with client.websocket_connect(f"{url}/stream", headers=_bearer("guess-ws")) as ws:
        refused = ws.receive_json()
        assert refused["kind"] == "error" and refused["status"] == 429, refused
    with client.websocket_connect(f"{url}/stream", headers=_bearer(game["seats"]["red"])) as ws:
        _caught_up(ws)
        ws.send_json({"kind": "command", "ref": "r", "command": SHOOT})
        while (msg := ws.receive_json())["kind"] == "event":
            pass
        assert msg["kind"] == "result" and msg["ref"] == "r", msg
    protocols = ["salvo.v1", f"salvo.token.{game['umpire_token']}"]
    with client.websocket_connect(f"{url}/stream", subprotocols=protocols) as ws:
        _caught_up(ws)


@pytest.mark.asyncio
async def test_failures_from_another_address_are_counted_apart(sqlite_url):
    """The limit is per address: one address's guesses never refuse another's failures early."""
    import httpx

    app = create_app(Settings(database_url=sqlite_url, rate_auth_failures_per_address="3/minute"))
    async with app.router.lifespan_context(app):

        def at(address: str) -> httpx.AsyncClient:
            return httpx.AsyncClient(
                transport=httpx.ASGITransport(app=app, client=(address, 5000)), base_url="http://salvo"
            )

        async with at("192.0.2.1") as guesser, at("192.0.2.2") as other:
            game = (await guesser.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"})).json()
            url = f"/v1/games/{game['game_id']}"
            codes = [(await guesser.get(url, headers=_bearer(f"g{i}"))).status_code for i in range(5)]
            assert codes == [401] * 3 + [429] * 2
            assert (await other.get(url, headers=_bearer("typo"))).status_code == 401
