"""Bad input answers 4xx problem+json and appends nothing: each of the triggers that used to be a 500."""

from __future__ import annotations

import pytest

from tests.api.helpers import bearer, new_game

pytestmark = pytest.mark.asyncio

DEEP = b"[" * 20000 + b"]" * 20000
JSON = {"content-type": "application/json"}


def _triggers(gid: str, red: str, umpire: str) -> list[tuple[str, str, str, bytes | None, dict[str, str]]]:
    seat, ump = {**JSON, **bearer(red)}, {**JSON, **bearer(umpire)}
    return [
        ("utf8-create", "POST", "/v1/games", b'{"ruleset":"tiny","scenario":"duel","options":{"x":"\xff\xfe"}}', JSON),
        (
            "utf8-salt",
            "POST",
            f"/v1/games/{gid}/commands",
            b'{"command":{"type":"tiny.shoot","shooter":"red","target":"blue"},"salt":"\xff"}',
            seat,
        ),
        ("utf8-reason", "POST", f"/v1/games/{gid}/rewind", b'{"to_seq":1,"reason":"\xc3"}', ump),
        (
            "deep-create",
            "POST",
            "/v1/games",
            b'{"ruleset":"tiny","scenario":"duel","options":{"x":' + DEEP + b"}}",
            JSON,
        ),
        ("deep-command", "POST", f"/v1/games/{gid}/commands", b'{"command":' + DEEP + b"}", seat),
        (
            "long-if-match",
            "POST",
            f"/v1/games/{gid}/commands",
            b'{"command":{"type":"tiny.shoot","shooter":"red","target":"blue"}}',
            {**seat, "if-match": "9" * 5000},
        ),
        ("after-2^63", "GET", f"/v1/games/{gid}/events?after={2**63}", None, {}),
        ("turn-2^63", "GET", f"/v1/games/{gid}/turns/{2**63}", None, {}),
        ("rewind-turn-10^20", "POST", f"/v1/games/{gid}/rewind", b'{"turn":100000000000000000000}', ump),
    ]


@pytest.fixture
async def big_api(sqlite_url):
    """The default 64 KiB body limit, so a 40 KB deep body reaches the decoders."""
    import httpx

    from service.api.app import create_app
    from service.settings import Settings

    app = create_app(Settings(database_url=sqlite_url))
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://salvo") as client:
            client.app = app  # type: ignore[attr-defined]
            yield client


@pytest.mark.parametrize("trigger", [t[0] for t in _triggers("g", "r", "u")])
async def test_each_former_500_answers_4xx_and_appends_nothing(big_api, trigger):
    game = await new_game(big_api)
    gid = game["game_id"]
    store = big_api.app.state.store
    before = await store.head(gid)
    games_before = await _game_count(store)
    [(_, method, url, body, headers)] = [
        t for t in _triggers(gid, game["seats"]["red"], game["umpire_token"]) if t[0] == trigger
    ]
    r = await big_api.request(method, url, content=body, headers=headers)
    assert 400 <= r.status_code < 500, (trigger, r.status_code, r.text)
    assert r.headers["content-type"] == "application/problem+json"
    problem = r.json()
    assert problem["status"] == r.status_code and problem["detail"]
    assert await store.head(gid) == before
    assert await _game_count(store) == games_before


async def _game_count(store) -> int:
    import sqlalchemy

    with store.engine.connect() as conn:
        return conn.execute(sqlalchemy.text("select count(*) from games")).scalar_one()


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        (b'{"command":{"type":"tiny.shoot","shooter":"red","target":"blue"},"salt":"\\ud800"}', "$"),
        (b'{"command":{"type":"tiny.shoot","shooter":"red","target":"blue","n":18446744073709551616}}', "$.command.n"),
        (b'{"command":' + b'{"a":' * 40 + b"1" + b"}" * 40 + b"}", "$"),
    ],
)
async def test_commands_refuse_bad_json_naming_the_body(big_api, raw, field):
    game = await new_game(big_api)
    r = await big_api.post(
        f"/v1/games/{game['game_id']}/commands", content=raw, headers={**JSON, **bearer(game["seats"]["red"])}
    )
    assert r.status_code == 422 and r.json()["field"] == field, r.text
    assert await big_api.app.state.store.head(game["game_id"]) == 2


async def test_a_deep_but_legal_string_is_not_mistaken_for_nesting(big_api):
    game = await new_game(big_api)
    salt = "[" * 100
    r = await big_api.post(
        f"/v1/games/{game['game_id']}/commands",
        headers=bearer(game["seats"]["red"]),
        json={"command": {"type": "tiny.shoot", "shooter": "red", "target": "blue"}, "salt": salt},
    )
    assert r.status_code == 201, r.text


async def test_an_import_with_a_bad_line_names_it(big_api):
    r = await big_api.post(
        "/v1/games/import", content=b'{"format":"salvo-battle/1"}\n' + DEEP[:4000] + b"\n", headers=JSON
    )
    assert r.status_code == 422 and r.json()["field"] == "line 2", r.text


@pytest.mark.parametrize(
    ("scenario", "field"),
    [
        ({"hull": 1e30}, "scenario.hull"),
        ({"hull": 3, "turn_limit": 10**12}, "scenario.turn_limit"),
    ],
)
async def test_scenario_numbers_are_bounded(big_api, scenario, field):
    r = await big_api.post("/v1/games", json={"ruleset": "tiny", "scenario": scenario})
    assert r.status_code == 422 and r.json()["field"] == field, r.text
    assert await _game_count(big_api.app.state.store) == 0
