"""Players (issue 40): an identity without a password. Personal keys (one per device, shown once, stored
hashed, revocable), seats claimed with their tokens, "my games" on any device, and seat tokens that keep
working alone."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, select

from service.events.tables import PLAYER_KEYS
from service.events.tokens import hash_token
from tests.api.helpers import bearer, command, new_game
from tests.support.soft_authenticator import SoftAuthenticator, b64url

END_RED = {"type": "tiny.end_phase", "seat": "red"}
END_BLUE = {"type": "tiny.end_phase", "seat": "blue"}


async def _player(api: httpx.AsyncClient, label: str = "laptop") -> dict[str, Any]:
    r = await api.post("/v1/players", json={"label": label})
    assert r.status_code == 201, r.text
    return r.json()


async def _games(api: httpx.AsyncClient, key: str) -> dict[str, dict[str, Any]]:
    r = await api.get("/v1/players/me/games", headers=bearer(key))
    assert r.status_code == 200, r.text
    return {g["game_id"]: g for g in r.json()["games"]}


async def test_two_devices_of_one_player_see_every_claimed_game_with_whose_move(api):
    laptop = await _player(api)
    r = await api.post("/v1/players/me/keys", json={"label": "phone"}, headers=bearer(laptop["key"]))
    assert r.status_code == 201, r.text
    phone = r.json()
    assert phone["player_id"] == laptop["player_id"] and phone["key"] != laptop["key"]
    one, two = await new_game(api), await new_game(api)
    # the laptop claims red in one game, the phone blue in the other
    r = await api.post("/v1/players/me/seats", json={"token": one["seats"]["red"]}, headers=bearer(laptop["key"]))
    assert r.status_code == 201 and r.json() == {"game_id": one["game_id"], "role": "seat", "seat": "red"}
    r = await api.post("/v1/players/me/seats", json={"token": two["seats"]["blue"]}, headers=bearer(phone["key"]))
    assert r.status_code == 201, r.text
    # claiming again changes nothing
    assert (
        await api.post("/v1/players/me/seats", json={"token": two["seats"]["blue"]}, headers=bearer(laptop["key"]))
    ).status_code == 201
    seen_by_laptop, seen_by_phone = await _games(api, laptop["key"]), await _games(api, phone["key"])
    assert seen_by_laptop == seen_by_phone
    assert set(seen_by_laptop) == {one["game_id"], two["game_id"]}
    red = seen_by_laptop[one["game_id"]]
    assert (red["ruleset"], red["scenario"], red["seat"]) == ("tiny", "duel", "red")
    assert (red["turn"], red["phase"]) == (1, "fire")
    assert red["must_act"] is True and red["why"] == "fire phase" and red["whose_move"] == ["red", "blue"]
    # red ends its phase with the seat token: now only blue must act, and red is told why it waits
    assert (await command(api, one, one["seats"]["red"], END_RED)).status_code == 201
    red = (await _games(api, phone["key"]))[one["game_id"]]
    assert red["must_act"] is False and red["why"] == "ended the phase" and red["whose_move"] == ["blue"]
    assert red["changed"] is True and red["unseen_events"] == red["version"] - red["last_seen"] > 0


async def test_what_changed_since_the_player_last_looked(api):
    me = await _player(api)
    game = await new_game(api)
    await api.post("/v1/players/me/seats", json={"token": game["seats"]["red"]}, headers=bearer(me["key"]))
    r = await api.post(f"/v1/players/me/games/{game['game_id']}/seen", headers=bearer(me["key"]))
    assert r.status_code == 204
    mine = (await _games(api, me["key"]))[game["game_id"]]
    assert mine["unseen_events"] == 0 and mine["changed"] is False and mine["last_seen"] == mine["version"]
    assert (await command(api, game, game["seats"]["blue"], END_BLUE)).status_code == 201
    mine = (await _games(api, me["key"]))[game["game_id"]]
    assert mine["changed"] is True and mine["unseen_events"] >= 1


async def test_a_personal_key_acts_for_its_claimed_seat_only(api):
    me = await _player(api)
    game, other = await new_game(api), await new_game(api)
    await api.post("/v1/players/me/seats", json={"token": game["seats"]["red"]}, headers=bearer(me["key"]))
    r = await command(api, game, me["key"], END_RED)
    assert r.status_code == 201, r.text
    r = await command(api, game, me["key"], END_BLUE)  # blue is not the player's seat (TINY-SEAT)
    assert r.status_code == 403 and r.json()["rule"] == "TINY-SEAT"
    r = await command(api, other, me["key"], END_RED)  # no claim in that game
    assert r.status_code == 401
    # seat tokens keep working alone, for people without an identity
    assert (await command(api, game, game["seats"]["blue"], END_BLUE)).status_code == 201


async def test_a_revoked_key_stops_at_once_and_the_other_device_goes_on(api):
    laptop = await _player(api)
    phone = (await api.post("/v1/players/me/keys", json={"label": "phone"}, headers=bearer(laptop["key"]))).json()
    game = await new_game(api)
    await api.post("/v1/players/me/seats", json={"token": game["seats"]["red"]}, headers=bearer(phone["key"]))
    hide = {"type": "tiny.hide", "seat": "red", "secret": 1}
    assert (await command(api, game, phone["key"], hide)).status_code == 201
    r = await api.delete(f"/v1/players/me/keys/{phone['key_id']}", headers=bearer(laptop["key"]))
    assert r.status_code == 204
    assert (await api.get("/v1/players/me/games", headers=bearer(phone["key"]))).status_code == 401
    assert (await command(api, game, phone["key"], END_RED)).status_code == 401
    assert game["game_id"] in await _games(api, laptop["key"])
    keys = (await api.get("/v1/players/me", headers=bearer(laptop["key"]))).json()["keys"]
    assert {k["label"]: k["revoked_at"] is not None for k in keys} == {"laptop": False, "phone": True}
    assert "key" not in keys[0]  # a key is shown once, when it is made
    again = await api.delete(f"/v1/players/me/keys/{phone['key_id']}", headers=bearer(laptop["key"]))
    assert again.status_code == 404


async def test_keys_are_stored_hashed(api, sqlite_url):
    me = await _player(api)
    engine = create_engine(sqlite_url)
    try:
        with engine.connect() as conn:
            rows = list(conn.execute(select(PLAYER_KEYS)))
    finally:
        engine.dispose()
    assert [r.key_hash for r in rows] == [hash_token(me["key"])]
    assert all(me["key"] not in str(tuple(r)) for r in rows)


async def test_bad_credentials_are_problems_naming_what_is_wrong(api):
    assert (await api.get("/v1/players/me/games")).status_code == 401
    game = await new_game(api)
    r = await api.get("/v1/players/me/games", headers=bearer(game["seats"]["red"]))  # a seat token is no key
    assert r.status_code == 401 and r.headers["content-type"].startswith("application/problem+json")
    me = await _player(api)
    r = await api.post("/v1/players/me/seats", json={"token": "not-a-seat"}, headers=bearer(me["key"]))
    assert r.status_code == 401
    r = await api.post("/v1/players/me/seats", json={"seat": "red"}, headers=bearer(me["key"]))
    assert r.status_code == 422 and r.headers["content-type"].startswith("application/problem+json")
    r = await api.post(f"/v1/players/me/games/{game['game_id']}/seen", headers=bearer(me["key"]))
    assert r.status_code == 404  # not a game this player holds a seat in


async def test_the_umpire_place_is_claimed_too(api):
    me = await _player(api)
    game = await new_game(api)
    r = await api.post("/v1/players/me/seats", json={"token": game["umpire_token"]}, headers=bearer(me["key"]))
    assert r.json() == {"game_id": game["game_id"], "role": "umpire", "seat": None}
    mine = (await _games(api, me["key"]))[game["game_id"]]
    assert mine["role"] == "umpire" and mine["whose_move"] == ["red", "blue"]
    r = await command(api, game, me["key"], {"type": "tiny.force_phase"})  # the key umpires the game
    assert r.status_code == 201, r.text


# --- passkeys (WebAuthn): tests/support/soft_authenticator.py answers the ceremonies as a browser would ------


async def _register(api: httpx.AsyncClient, key: str, authenticator: SoftAuthenticator) -> httpx.Response:
    options = (await api.post("/v1/players/me/passkeys/options", json={}, headers=bearer(key))).json()
    assert options["public_key"]["rp"]["id"] == "salvo"
    assert options["public_key"]["authenticatorSelection"]["residentKey"] == "required"
    credential = authenticator.create(options["public_key"])
    return await api.post(
        "/v1/players/me/passkeys",
        json={"challenge_id": options["challenge_id"], "credential": credential, "label": "phone"},
        headers=bearer(key),
    )


@pytest.fixture
async def any_api(database_url) -> AsyncIterator[httpx.AsyncClient]:
    """The app on SQLite and on PostgreSQL."""
    from service.api.app import create_app
    from service.settings import Settings

    app = create_app(Settings(database_url=database_url))
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://salvo") as client:
            yield client


async def test_a_passkey_signs_its_player_in_with_a_new_personal_key(any_api):
    api = any_api
    player = await _player(api)
    game = await new_game(api)
    await api.post("/v1/players/me/seats", json={"token": game["seats"]["red"]}, headers=bearer(player["key"]))
    authenticator = SoftAuthenticator()
    r = await _register(api, player["key"], authenticator)
    assert r.status_code == 201, r.text
    assert r.json()["credential_id"] == b64url(authenticator.credential_id) and r.json()["label"] == "phone"
    options = (await api.post("/v1/passkeys/login/options", json={})).json()
    assert "allowCredentials" not in options["public_key"] or not options["public_key"]["allowCredentials"]
    answer = {"challenge_id": options["challenge_id"], "credential": authenticator.get(options["public_key"])}
    r = await api.post("/v1/passkeys/login", json=answer)
    assert r.status_code == 201, r.text
    session = r.json()
    assert session["player_id"] == player["player_id"] and session["key"].startswith("pk_")
    assert set(await _games(api, session["key"])) == {game["game_id"]}  # the same player's games
    # the challenge was single-use: the same answer again is refused
    r = await api.post("/v1/passkeys/login", json=answer)
    assert r.status_code == 401 and "used or expired" in r.json()["detail"]
    listed = (await api.get("/v1/players/me/passkeys", headers=bearer(session["key"]))).json()["passkeys"]
    assert [p["last_used_at"] is not None for p in listed] == [True]
    # removed, it signs in no more
    cid = listed[0]["credential_id"]
    assert (await api.delete(f"/v1/players/me/passkeys/{cid}", headers=bearer(player["key"]))).status_code == 204
    options = (await api.post("/v1/passkeys/login/options", json={})).json()
    answer = {"challenge_id": options["challenge_id"], "credential": authenticator.get(options["public_key"])}
    assert (await api.post("/v1/passkeys/login", json=answer)).status_code == 401


async def test_passkey_answers_that_do_not_verify_are_refused(api, monkeypatch):
    from service.events import passkeys

    player = await _player(api)
    # another origin (a phishing page relaying the ceremony) is refused, and its challenge is spent
    options = (await api.post("/v1/players/me/passkeys/options", json={}, headers=bearer(player["key"]))).json()
    phished = SoftAuthenticator(origin="https://salvo.example.net").create(options["public_key"])
    body = {"challenge_id": options["challenge_id"], "credential": phished}
    r = await api.post("/v1/players/me/passkeys", json=body, headers=bearer(player["key"]))
    assert r.status_code == 401 and "did not verify" in r.json()["detail"]
    body["credential"] = SoftAuthenticator().create(options["public_key"])
    r = await api.post("/v1/players/me/passkeys", json=body, headers=bearer(player["key"]))
    assert r.status_code == 401 and "used or expired" in r.json()["detail"]
    # a login challenge does not register, nor another player's registration challenge
    other = await _player(api, "other")
    for options in (
        (await api.post("/v1/passkeys/login/options", json={})).json(),
        (await api.post("/v1/players/me/passkeys/options", json={}, headers=bearer(other["key"]))).json(),
    ):
        body = {
            "challenge_id": options["challenge_id"],
            "credential": SoftAuthenticator().create(options["public_key"]),
        }
        r = await api.post("/v1/players/me/passkeys", json=body, headers=bearer(player["key"]))
        assert r.status_code == 401 and "another ceremony" in r.json()["detail"]
    # an expired challenge
    monkeypatch.setattr(passkeys, "CHALLENGE_TTL_MS", -1)
    r = await _register(api, player["key"], SoftAuthenticator())
    assert r.status_code == 401 and "expired" in r.json()["detail"]
    # an unknown passkey signs nobody in
    monkeypatch.setattr(passkeys, "CHALLENGE_TTL_MS", 60_000)
    options = (await api.post("/v1/passkeys/login/options", json={})).json()
    stranger = {"challenge_id": options["challenge_id"], "credential": SoftAuthenticator().get(options["public_key"])}
    r = await api.post("/v1/passkeys/login", json=stranger)
    assert r.status_code == 401 and "not registered" in r.json()["detail"]
    # binding a passkey needs the player's key
    assert (await api.post("/v1/players/me/passkeys/options", json={})).status_code == 401


async def test_passkey_ceremonies_are_limited_per_address(api, monkeypatch):
    from service.api.routes import passkeys

    monkeypatch.setattr(passkeys, "CEREMONIES_PER_ADDRESS", "2/minute")
    assert (await api.post("/v1/passkeys/login/options", json={})).status_code == 200
    assert (await api.post("/v1/passkeys/login/options", json={})).status_code == 200
    r = await api.post("/v1/passkeys/login/options", json={})
    assert r.status_code == 429 and int(r.headers["retry-after"]) > 0
