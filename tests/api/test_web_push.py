"""Web Push (issue 40): a browser's push subscription (its endpoint and keys) receives the notification at
its push endpoint (a local one here), encrypted to the browser's keys (aes128gcm, RFC 8291) and signed with
the server's VAPID key (RFC 8292); decrypted with the subscription's private key it is the notification."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator

import http_ece
import httpx
import pytest
from py_vapid import Vapid02

from service.api.app import create_app
from service.events.watchers import Notice
from service.settings import Settings
from tests.api.helpers import bearer, command, new_game
from tests.support.push_browser import Browser, b64url
from tests.support.webhook_receiver import Receiver


@pytest.fixture
async def api(sqlite_url) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(Settings(database_url=sqlite_url, webhook_allow=("127.0.0.1",), notify_poll_seconds=0.05))
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://salvo") as client:
            yield client


async def test_a_push_message_reaches_the_endpoint_encrypted_and_vapid_signed(api):
    server_key = (await api.get("/v1/push/key")).json()["public_key"]
    assert len(base64.urlsafe_b64decode(server_key + "==")) == 65  # an uncompressed P-256 point
    game = await new_game(api)
    player = (await api.post("/v1/players", json={"label": "phone"})).json()
    await api.post("/v1/players/me/seats", json={"token": game["seats"]["red"]}, headers=bearer(player["key"]))
    browser = Browser()
    with Receiver() as push_service:
        push_service.status = 201  # what push services answer
        r = await api.post(
            "/v1/players/me/subscriptions",
            headers=bearer(player["key"]),
            json={"kind": "webpush", "url": push_service.url + "/push/abc", "keys": browser.keys},
        )
        assert r.status_code == 201, r.text
        await command(api, game, player["key"], {"type": "tiny.end_phase", "seat": "red"})
        await command(api, game, game["seats"]["blue"], {"type": "tiny.end_phase", "seat": "blue"})
        [got] = await push_service.arrived(1)
    assert got.path == "/hook/push/abc"
    assert got.headers["content-encoding"] == "aes128gcm" and int(got.headers["ttl"]) > 0
    assert b"your_turn" not in got.body  # encrypted on the wire
    notice = browser.decrypt(got.body)
    assert set(notice) == set(Notice.__struct_fields__)
    assert (notice["type"], notice["game_id"], notice["seat"]) == ("your_turn", game["game_id"], "red")
    authorization = got.headers["authorization"]
    assert Vapid02.verify(authorization)  # the JWT verifies under the key it names
    assert authorization.rsplit("k=", 1)[1] == server_key  # which is the server's published key
    with pytest.raises(http_ece.ECEException):  # another browser's keys do not open it
        Browser().decrypt(got.body)


async def test_webpush_subscriptions_need_valid_browser_keys(api):
    player = (await api.post("/v1/players", json={})).json()
    url = "http://127.0.0.1:9/push"
    cases = [
        ({"kind": "webpush", "url": url}, "keys"),
        ({"kind": "json", "url": url, "keys": Browser().keys}, "keys"),
        (
            {"kind": "webpush", "url": url, "keys": {"p256dh": b64url(b"\x04" + b"1" * 64), "auth": "AAAA"}},
            "keys.p256dh",
        ),
        ({"kind": "webpush", "url": "http://10.0.0.1/push", "keys": Browser().keys}, "url"),
    ]
    for body, field in cases:
        r = await api.post("/v1/players/me/subscriptions", json=body, headers=bearer(player["key"]))
        assert r.status_code == 422 and r.json()["field"] == field, (body, r.text)


async def test_every_replica_signs_with_the_one_stored_key(sqlite_url):
    keys = []
    for _ in range(2):  # two starts on one database: one key, made once
        app = create_app(Settings(database_url=sqlite_url))
        async with app.router.lifespan_context(app):
            keys.append(app.state.push.public_key)
    assert keys[0] == keys[1]
