"""Computer opponents through the API: POST /v1/games/{id}/bots seats a bot that plays like a person."""

from __future__ import annotations

import asyncio

import httpx

from service.events.bots import must_act
from tests.api.helpers import bearer, new_game


async def _until_over(api: httpx.AsyncClient, game_id: str, seconds: float = 120.0) -> dict:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while loop.time() < deadline:
        summary = (await api.get(f"/v1/games/{game_id}")).json()
        if summary["over"]:
            return summary
        await asyncio.sleep(0.05)
    raise AssertionError(f"game {game_id} did not finish: {summary['turn']} {summary['phase']}")


async def test_two_bots_play_a_gsc2_duel_to_the_end_through_the_command_path(api: httpx.AsyncClient) -> None:
    game = await new_game(api, "gsc2", "duel")
    umpire = bearer(game["umpire_token"])
    for seat in ("red", "blue"):
        r = await api.post(f"/v1/games/{game['game_id']}/bots", json={"seat": seat, "bot": "rules"}, headers=umpire)
        assert r.status_code == 201, r.text
        assert r.json()["seat"] == seat and r.json()["bot"] == "rules"
    summary = await _until_over(api, game["game_id"])
    assert summary["over"] is True
    events = (await api.get(f"/v1/games/{game['game_id']}/events", params={"limit": 10000}, headers=umpire)).json()
    actors = {e["actor"] for e in events["events"]}
    assert {"seat:red", "seat:blue"} <= actors  # logged as the seats' own commands
    listing = (await api.get(f"/v1/games/{game['game_id']}/bots")).json()
    assert {b["seat"] for b in listing["bots"]} == {"red", "blue"}
    assert all(b["moves"] > 0 and b["error"] is None for b in listing["bots"])
    assert {a["name"] for a in listing["available"]} >= {"random", "rules"}
    commands = {e["command_id"] for e in events["events"] if e["actor"].startswith("seat:")}
    counted = api.app.state.metrics.commands.labels("gsc2", "accepted")._value.get()  # type: ignore[attr-defined]
    assert counted == len(commands)  # every bot command went through the API's gate (counted, logged)


async def test_a_bot_answers_a_person(api: httpx.AsyncClient) -> None:
    game = await new_game(api, "gsc2", "duel")
    gid = game["game_id"]
    red = bearer(game["seats"]["red"])
    blue = bearer(game["seats"]["blue"])
    r = await api.post(f"/v1/games/{gid}/bots", json={"seat": "blue", "bot": "random"}, headers=blue)
    assert r.status_code == 201, r.text
    for _ in range(200):
        summary = (await api.get(f"/v1/games/{gid}", headers=red)).json()
        if summary["over"]:
            break
        options = (await api.get(f"/v1/games/{gid}/options", headers=red)).json()
        if must_act(summary["state"]) and options["options"]:
            sent = await api.post(
                f"/v1/games/{gid}/commands",
                json={"command": options["options"][0]["command"]},
                headers={**red, "If-Match": str(options["version"])},
            )
            if sent.status_code == 429:  # a fast person meets the per-token limit: waits as told
                await asyncio.sleep(float(sent.headers["Retry-After"]))
                continue
            assert sent.status_code in (201, 409), sent.text
        else:
            await asyncio.sleep(0.02)
    events = (await api.get(f"/v1/games/{gid}/events", params={"limit": 10000}, headers=red)).json()["events"]
    assert any(e["actor"] == "seat:blue" for e in events)


async def test_seating_a_bot_is_refused_without_the_right(api: httpx.AsyncClient) -> None:
    game = await new_game(api, "gsc2", "duel")
    url = f"/v1/games/{game['game_id']}/bots"
    other = await api.post(url, json={"seat": "blue", "bot": "rules"}, headers=bearer(game["seats"]["red"]))
    assert other.status_code == 403 and other.json()["field"] == "seat"
    spectator = await api.post(url, json={"seat": "blue", "bot": "rules"})
    assert spectator.status_code == 403
    bad_token = await api.post(url, json={"seat": "blue"}, headers=bearer("nope"))
    assert bad_token.status_code == 401
    umpire = bearer(game["umpire_token"])
    no_bot = await api.post(url, json={"seat": "blue", "bot": "clever"}, headers=umpire)
    assert no_bot.status_code == 422 and no_bot.json()["field"] == "bot"
    no_seat = await api.post(url, json={"seat": "green", "bot": "rules"}, headers=umpire)
    assert no_seat.status_code == 422 and no_seat.json()["field"] == "seat"
    malformed = await api.post(url, json={"seat": "blue", "extra": 1}, headers=umpire)
    assert malformed.status_code == 422
    missing = await api.post("/v1/games/g_0000000000000000/bots", json={"seat": "blue"}, headers=umpire)
    assert missing.status_code in (401, 404)
    assert (await api.get(url)).json()["bots"] == []


async def test_a_seat_taken_back_from_its_bot_is_not_played(api: httpx.AsyncClient) -> None:
    game = await new_game(api, "gsc2", "duel")
    url = f"/v1/games/{game['game_id']}/bots"
    blue = bearer(game["seats"]["blue"])
    assert (await api.post(url, json={"seat": "blue"}, headers=blue)).status_code == 201
    assert (await api.delete(url + "/blue", headers=bearer(game["seats"]["red"]))).status_code == 403
    assert (await api.delete(url + "/blue", headers=blue)).status_code == 204
    assert (await api.get(url)).json()["bots"] == []


class BrokenBot:
    name = "broken"

    def choose(self, view, options, forms, me, key):
        raise RuntimeError("this bot cannot read the drawing")


async def test_a_failing_bot_is_reported_and_its_seat_still_moves(api: httpx.AsyncClient, monkeypatch) -> None:
    import service.api.bot_runner as runner_module

    monkeypatch.setattr(runner_module, "find_bot", lambda ruleset, name: BrokenBot())
    game = await new_game(api, "gsc2", "duel")
    umpire = bearer(game["umpire_token"])
    for seat in ("red", "blue"):
        r = await api.post(f"/v1/games/{game['game_id']}/bots", json={"seat": seat, "bot": "rules"}, headers=umpire)
        assert r.status_code == 201
    await _until_over(api, game["game_id"])
    listing = (await api.get(f"/v1/games/{game['game_id']}/bots")).json()
    assert all(b["error"] == "RuntimeError: this bot cannot read the drawing" for b in listing["bots"])
    assert all(b["moves"] > 0 for b in listing["bots"])
