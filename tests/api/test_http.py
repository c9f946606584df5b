"""Every endpoint's success and failure paths; nothing is appended on any rejection."""

from __future__ import annotations

import pytest

from tests.api.helpers import SHOOT_RED, bearer, command, new_game, seqs

pytestmark = pytest.mark.asyncio


async def test_create_game_returns_tokens_and_commitment(api):
    game = await new_game(api)
    assert game["game_id"].startswith("g_") and set(game["seats"]) == {"red", "blue"}
    assert len(game["dice_commitment"]) == 64 and game["version"] == 2
    r = await api.get(f"/v1/games/{game['game_id']}/events")
    assert [e["type"] for e in r.json()["events"]] == ["game.created", "dice.committed"]
    assert r.json()["events"][1]["data"]["commitment"] == game["dice_commitment"]


async def test_tokens_are_stored_hashed(api):
    game = await new_game(api)
    store = api.app.state.store
    row = await store.seat_for_token(__import__("hashlib").sha256(game["umpire_token"].encode()).hexdigest())
    assert row.role == "umpire"
    import sqlalchemy

    with store.engine.connect() as conn:
        dump = " ".join(str(r) for r in conn.execute(sqlalchemy.text("select * from seats")).all())
    assert game["umpire_token"] not in dump and game["seats"]["red"] not in dump


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"ruleset": "nope", "scenario": "duel"}, 422, "ruleset"),
        ({"ruleset": "tiny", "scenario": "nope"}, 422, "scenario"),
        ({"ruleset": "tiny", "scenario": {"hull": -1}}, 422, "scenario.hull"),
        ({"ruleset": "tiny"}, 422, "$"),
        ({"ruleset": "tiny", "scenario": "duel", "bogus": 1}, 422, "$"),
    ],
)
async def test_create_game_rejections_name_the_field(api, body, status, field):
    r = await api.post("/v1/games", json=body)
    assert r.status_code == status and r.headers["content-type"] == "application/problem+json"
    assert r.json()["field"] == field, r.json()


async def test_rulesets_and_scenarios(api):
    r = await api.get("/v1/rulesets")
    tiny = next(x for x in r.json()["rulesets"] if x["name"] == "tiny")
    assert tiny["scenarios"] == ["duel", "long"]
    assert "Shoot" in tiny["commands"]["$defs"] and "Shot" in tiny["events"]["$defs"]
    r = await api.get("/v1/rulesets/tiny/scenarios/duel")
    assert r.status_code == 200 and r.json()["scenario"] == {"hull": 3}
    assert (await api.get("/v1/rulesets/tiny/scenarios/none")).status_code == 404
    assert (await api.get("/v1/rulesets/nope/scenarios/duel")).status_code == 404


async def test_command_appends_and_returns_envelopes(api):
    game = await new_game(api)
    r = await command(api, game, game["seats"]["red"], SHOOT_RED)
    assert r.status_code == 201
    body = r.json()
    assert body["version"] == 3
    [env] = body["events"]
    assert env["seq"] == 3 and env["type"] == "tiny.shot" and env["actor"] == "seat:red"
    assert env["rolls"][0]["rule"] == "TINY-FIRE" and env["dice"] == {"turn": 1, "base": 3, "slot": 0}


async def test_spectator_cannot_command(api):
    game = await new_game(api)
    r = await command(api, game, None, SHOOT_RED)
    assert r.status_code == 403 and r.json()["title"] == "Forbidden"
    assert await seqs(api, game) == [1, 2]


async def test_seat_cannot_command_another_seats_ship(api):
    game = await new_game(api)
    r = await command(api, game, game["seats"]["red"], {"type": "tiny.shoot", "shooter": "blue", "target": "red"})
    assert r.status_code == 403 and r.json()["rule"] == "TINY-SEAT"
    assert await seqs(api, game) == [1, 2]


async def test_rule_violation_is_422_naming_the_rule(api):
    game = await new_game(api)
    r = await command(api, game, game["seats"]["red"], {"type": "tiny.shoot", "shooter": "red", "target": "red"})
    assert r.status_code == 422 and r.json()["rule"] == "TINY-TARGET"
    assert r.headers["content-type"] == "application/problem+json"
    assert await seqs(api, game) == [1, 2]


async def test_unknown_token_is_401(api):
    game = await new_game(api)
    r = await command(api, game, "not-a-token", SHOOT_RED)
    assert r.status_code == 401
    other = await new_game(api)
    r = await command(api, game, other["seats"]["red"], SHOOT_RED)  # a token of another game
    assert r.status_code == 401
    assert await seqs(api, game) == [1, 2]


async def test_malformed_json_is_422_naming_the_field(api):
    game = await new_game(api)
    headers = {**bearer(game["seats"]["red"]), "content-type": "application/json"}
    url = f"/v1/games/{game['game_id']}/commands"
    r = await api.post(
        url, content=b'{"command": {"type": "tiny.shoot", "shooter": 5, "target": "blue"}}', headers=headers
    )
    assert r.status_code == 422 and r.json()["field"] == "$.command.shooter"
    r = await api.post(url, content=b'{"command": {"type": "tiny.shoot", "shooter": "red"}}', headers=headers)
    assert r.status_code == 422 and "target" in r.json()["detail"]
    r = await api.post(url, content=b'{"command": {"type": "tiny.fly"}}', headers=headers)
    assert r.status_code == 422 and "tiny.fly" in r.json()["detail"]
    r = await api.post(
        url, content=b'{"command": {"type": "tiny.hide", "seat": "red", "secret": 1, "x": 2}}', headers=headers
    )
    assert r.status_code == 422 and "x" in r.json()["detail"]
    r = await api.post(url, content=b"{not json", headers=headers)
    assert r.status_code == 422 and r.json()["field"] == "$"
    assert await seqs(api, game) == [1, 2]


async def test_oversized_body_is_413(api):
    game = await new_game(api)
    huge = {"type": "tiny.hide", "seat": "red", "secret": 1, "pad": "x" * 20000}
    r = await command(api, game, game["seats"]["red"], huge)
    assert r.status_code == 413 and r.headers["content-type"] == "application/problem+json"
    assert await seqs(api, game) == [1, 2]


async def test_version_conflict_is_409(api):
    game = await new_game(api)
    r = await command(api, game, game["seats"]["red"], SHOOT_RED, If_Match="1")
    assert r.status_code == 409 and r.json()["field"] == "If-Match"
    r = await command(api, game, game["seats"]["red"], SHOOT_RED, If_Match="2")
    assert r.status_code == 201
    assert await seqs(api, game) == [1, 2, 3]


async def test_idempotency_key(api):
    game = await new_game(api)
    token = game["seats"]["red"]
    first = await command(api, game, token, SHOOT_RED, Idempotency_Key="abc")
    again = await command(api, game, token, SHOOT_RED, Idempotency_Key="abc")
    assert first.status_code == again.status_code == 201 and first.json() == again.json()
    other = await command(api, game, token, {"type": "tiny.hide", "seat": "red", "secret": 1}, Idempotency_Key="abc")
    assert other.status_code == 422 and other.json()["field"] == "Idempotency-Key"
    assert await seqs(api, game) == [1, 2, 3]


async def test_unknown_game_is_404(api):
    for path in ("", "/events", "/options", "/turns/1"):
        r = await api.get(f"/v1/games/g_missing{path}")
        assert r.status_code == 404 and r.headers["content-type"] == "application/problem+json"
    r = await api.post("/v1/games/g_missing/commands", json={"command": SHOOT_RED})
    assert r.status_code == 404


async def test_views_and_events_are_redacted_per_viewer(api):
    game = await new_game(api)
    await command(api, game, game["seats"]["red"], {"type": "tiny.hide", "seat": "red", "secret": 31337})
    gid = game["game_id"]
    as_red = (await api.get(f"/v1/games/{gid}", headers=bearer(game["seats"]["red"]))).json()
    as_blue = (await api.get(f"/v1/games/{gid}", headers=bearer(game["seats"]["blue"]))).json()
    as_public = (await api.get(f"/v1/games/{gid}")).json()
    assert as_red["state"]["secrets"] == {"red": 31337} and as_red["viewer"] == "seat:red"
    assert as_blue["state"]["secrets"] == {} and as_public["state"]["secrets"] == {}
    for headers in ({}, bearer(game["seats"]["blue"])):
        text = (await api.get(f"/v1/games/{gid}/events", headers=headers)).text
        assert '"secret":31337' not in text and ":31337" not in text
        text = (await api.get(f"/v1/games/{gid}/turns/1", headers=headers)).text
        assert ":31337" not in text
    umpire = (await api.get(f"/v1/games/{gid}/events", headers=bearer(game["umpire_token"]))).json()
    assert umpire["events"][-1]["data"]["secret"] == 31337


async def test_state_at_any_point(api):
    game = await new_game(api, scenario="long")
    red = game["seats"]["red"]
    hulls = []
    for _ in range(12):
        body = (await command(api, game, red, SHOOT_RED)).json()
        state = (await api.get(f"/v1/games/{game['game_id']}")).json()
        hulls.append((body["version"], state["state"]["hull"]["blue"]))
    for version, hull in hulls:
        past = (await api.get(f"/v1/games/{game['game_id']}", params={"at": version})).json()
        assert past["at"] == version and past["state"]["hull"]["blue"] == hull
    r = await api.get(f"/v1/games/{game['game_id']}", params={"at": -1})
    assert r.status_code == 422
    r = await api.get(f"/v1/games/{game['game_id']}", params={"at": hulls[-1][0] + 1})
    assert r.status_code == 422 and r.json()["field"] == "at"  # the future is not clamped to the present


async def test_options_for_each_viewer(api):
    game = await new_game(api)
    gid = game["game_id"]
    red = (await api.get(f"/v1/games/{gid}/options", headers=bearer(game["seats"]["red"]))).json()
    assert {"type": "tiny.shoot", "shooter": "red", "target": "blue"} in [o["command"] for o in red["options"]]
    assert (await api.get(f"/v1/games/{gid}/options")).json()["options"] == []
    umpire = (await api.get(f"/v1/games/{gid}/options", headers=bearer(game["umpire_token"]))).json()
    assert [o["command"] for o in umpire["options"]] == [{"type": "tiny.force_phase"}]


async def test_turn_replay_and_dice_reveal(api):
    game = await new_game(api)
    gid = game["game_id"]
    await command(api, game, game["seats"]["red"], SHOOT_RED)
    for who in ("red", "blue", "red", "blue"):
        r = await command(api, game, game["seats"][who], {"type": "tiny.end_phase", "seat": who})
        assert r.status_code == 201, r.text
    replay = (await api.get(f"/v1/games/{gid}/turns/1")).json()
    types = [step["event"]["type"] for step in replay["events"]]
    assert types[0] == "game.created" and "tiny.shot" in types and types[-1] == "dice.revealed"
    shot = next(s for s in replay["events"] if s["event"]["type"] == "tiny.shot")
    assert shot["text"].startswith("red fires at blue")
    assert replay["before"]["hull"] == {"red": 3, "blue": 3}
    turn2 = (await api.get(f"/v1/games/{gid}/turns/2")).json()
    types2 = [s["event"]["type"] for s in turn2["events"]]
    assert types2 == ["tiny.phase_advanced", "dice.committed"]  # committed before any command of turn 2
    phase = (await api.get(f"/v1/games/{gid}/turns/1", params={"phase": "fire"})).json()
    assert all(s["event"]["phase"] == "fire" for s in phase["events"])
    assert (await api.get(f"/v1/games/{gid}/turns/9")).status_code == 404
