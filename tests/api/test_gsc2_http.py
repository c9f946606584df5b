"""GSC2 over HTTP alone: discovery, a whole duel drawn from /options, and the rejection paths."""

from __future__ import annotations

import random

import httpx
import pytest

from service.domain.gsc2.commands import COMMANDS
from service.domain.gsc2.events import EVENTS
from tests.api.gsc2_play import new_gsc2_game, play, post, start
from tests.api.helpers import bearer, options, version, view

pytestmark = pytest.mark.asyncio


def _tags(schema: dict) -> set[str]:
    """The ``type`` tag of every tagged struct in a ``{"$defs", "anyOf"}`` schema document."""
    refs = [ref["$ref"].rsplit("/", 1)[-1] for ref in schema["anyOf"]]
    return {tag for name in refs for tag in schema["$defs"][name]["properties"]["type"]["enum"]}


async def _events(api, game) -> list[dict]:
    r = await api.get(
        f"/v1/games/{game['game_id']}/events", params={"limit": 10000}, headers=bearer(game["umpire_token"])
    )
    assert r.status_code == 200
    return r.json()["events"]


# --- (a) discovery --------------------------------------------------------------------------------


async def test_rulesets_list_gsc2_with_scenarios_and_schemas(api):
    r = await api.get("/v1/rulesets")
    assert r.status_code == 200
    gsc2 = next(x for x in r.json()["rulesets"] if x["name"] == "gsc2")
    assert gsc2["scenarios"] == ["boarding-action", "duel", "fleet-action", "three-way"]
    assert gsc2["version"] == "1.0" and gsc2["title"]
    # every command and event type of the ruleset is described, by its stable tag
    assert _tags(gsc2["commands"]) == {c.__struct_config__.tag for c in COMMANDS}
    assert {"gsc2.start", "gsc2.move", "gsc2.fire", "gsc2.end_phase", "gsc2.force_phase"} <= _tags(gsc2["commands"])
    assert _tags(gsc2["events"]) == {e.__struct_config__.tag for e in EVENTS}
    assert "gsc2.beam_fired" in _tags(gsc2["events"])
    move = gsc2["commands"]["$defs"]["Move"]
    assert move["required"] == ["type", "ship"] and move["additionalProperties"] is False
    assert move["properties"]["legs"]["items"] == {"$ref": "#/$defs/Leg"}
    assert "Roll" in gsc2["events"]["$defs"]  # rolls are part of the event schemas


async def test_sample_scenario_is_accepted_inline(api):
    r = await api.get("/v1/rulesets/gsc2/scenarios/duel")
    assert r.status_code == 200
    scenario = r.json()["scenario"]
    assert r.json()["ruleset"] == "gsc2" and scenario["name"] == "duel"
    assert {s["id"] for s in scenario["ships"]} == {"hood", "bismarck"}
    game = await new_gsc2_game(api, scenario)  # the document as served, posted back as an inline object
    assert set(game["seats"]) == {"red", "blue"} and game["version"] == 2 and len(game["dice_commitment"]) == 64
    summary = await view(api, game)
    assert summary["ruleset"] == "gsc2" and summary["over"] is False
    ships = {s["id"]: s for s in summary["state"]["ships"]}
    assert (ships["hood"]["hull"], ships["bismarck"]["hull"]) == (24, 26)
    created = (await _events(api, game))[0]
    assert created["data"]["scenario_name"] is None and created["data"]["setup"] == scenario
    for name in ("fleet-action", "boarding-action"):
        r = await api.get(f"/v1/rulesets/gsc2/scenarios/{name}")
        assert r.status_code == 200
        assert (
            await api.post("/v1/games", json={"ruleset": "gsc2", "scenario": r.json()["scenario"]})
        ).status_code == 201
    bad = dict(scenario, ships=[dict(scenario["ships"][0], hull=-1), scenario["ships"][1]])
    r = await api.post("/v1/games", json={"ruleset": "gsc2", "scenario": bad})
    assert r.status_code == 422 and r.json()["field"].startswith("scenario"), r.json()


# --- (b) a whole duel -----------------------------------------------------------------------------


async def test_full_duel_over_http(api, sqlite_url):
    game = await new_gsc2_game(api)
    await start(api, game)
    seen: dict[int, dict] = {}  # version -> public state right after that command

    def record(summary: dict) -> bool:
        seen[summary["version"]] = summary["state"]
        return False

    played = await play(api, game, random.Random(20261130), until=record)
    assert played.posts and all(status == 201 for _who, _cmd, status in played.posts)
    assert {who for who, _cmd, _status in played.posts} == {"red", "blue"}
    assert played.umpire_forces == 0  # a duel never dead-ends: the seats' options always carry it on
    assert played.versions == sorted(set(played.versions))  # every command appended something

    final = await view(api, game, game["umpire_token"])
    state = final["state"]
    assert final["over"] is True and state["over"] is True and state["result"]
    if state["winner"] is None:
        assert "draw" in state["result"]
    else:
        assert state["winner"] in ("red", "blue")
        loser = "blue" if state["winner"] == "red" else "red"
        assert loser in state["result"] or "turn limit" in state["result"]
    assert final["turn"] <= state["turn_limit"] == 12
    for side in ("red", "blue"):  # nobody can act in a finished game
        assert await options(api, game, game["seats"][side]) == []
    assert await options(api, game, game["umpire_token"]) == []
    late = await post(api, game, game["seats"]["red"], {"type": "gsc2.end_phase", "side": "red"})
    assert late.status_code == 422 and late.json()["rule"] == "GAME-OVER"  # core guard, before any GSC2 rule

    events = await _events(api, game)
    assert final["version"] == len(events) == played.versions[-1]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert [e["type"] for e in events if e["type"] == "gsc2.game_over"] == ["gsc2.game_over"]
    assert events[-1]["type"] == "dice.revealed"  # the last turn's seed is opened once the game is over
    assert any(e["type"] == "gsc2.beam_fired" for e in events)

    # any earlier point: exactly the state seen live right after that command
    rng = random.Random(7)
    points = sorted(rng.sample(sorted(seen)[:-1], 5)) + [played.versions[0]]
    for at in points:
        past = await view(api, game, at=at)
        assert past["at"] == at and past["version"] == final["version"]
        assert past["state"] == seen[at] and past["over"] is False
    assert (await view(api, game, at=1))["state"]["phase"] == "setup"

    # a second app on the same database folds the log from scratch and gets the same game
    from service.api.app import create_app
    from service.settings import Settings

    fresh = create_app(Settings(database_url=sqlite_url, snapshot_every=10**9))
    async with fresh.router.lifespan_context(fresh):
        transport = httpx.ASGITransport(app=fresh)
        async with httpx.AsyncClient(transport=transport, base_url="http://replica") as other:
            refolded = await view(other, game, game["umpire_token"])
            assert refolded["state"] == state and refolded["version"] == final["version"]
            assert (await view(other, game))["state"] == (await view(api, game))["state"]
            assert (await _events(other, game)) == events


# --- (c) rejections -------------------------------------------------------------------------------


async def _started(api) -> tuple[dict, int]:
    game = await new_gsc2_game(api)
    await start(api, game)
    return game, await version(api, game)


async def test_seat_cannot_move_the_other_sides_ship(api):
    game, before = await _started(api)
    r = await post(api, game, game["seats"]["red"], {"type": "gsc2.move", "ship": "bismarck", "legs": []})
    assert r.status_code == 403 and r.json()["rule"] == "GSC2-R-4", r.json()
    assert r.headers["content-type"] == "application/problem+json" and "blue" in r.json()["detail"]
    r = await post(api, game, game["seats"]["blue"], {"type": "gsc2.choose_order", "side": "red", "leader": "red"})
    assert r.status_code == 403 and r.json()["rule"] == "GSC2-R-4"  # nor speak for the other side
    r = await post(api, game, game["seats"]["blue"], {"type": "gsc2.force_phase"})
    assert r.status_code == 403 and r.json()["rule"] == "GSC2-UMP-1"
    r = await api.post(f"/v1/games/{game['game_id']}/commands", json={"command": {"type": "gsc2.force_phase"}})
    assert r.status_code == 403  # a spectator
    assert await version(api, game) == before


async def test_firing_out_of_phase_names_the_rule(api):
    game, before = await _started(api)
    assert (await view(api, game))["phase"] == "movement"
    r = await post(
        api, game, game["seats"]["red"], {"type": "gsc2.fire", "ship": "hood", "battery": "hb1", "target": "bismarck"}
    )
    assert r.status_code == 422 and r.json()["rule"] == "GSC2-SEQ-2", r.json()
    assert "beams" in r.json()["detail"] and r.json()["type"].endswith("GSC2-SEQ-2")
    r = await post(api, game, game["seats"]["red"], {"type": "gsc2.repair", "ship": "hood", "system": "drive"})
    assert r.status_code == 422 and r.json()["rule"] == "GSC2-SEQ-2"
    r = await post(api, game, game["seats"]["red"], {"type": "gsc2.start"})
    assert r.status_code == 422 and r.json()["rule"] == "GSC2-SEQ-1"  # already started
    assert await version(api, game) == before


@pytest.mark.parametrize(
    ("legs", "field", "word"),
    [
        ([{"turn": "left", "distance": 2}], "$.command.legs[0].turn", "int"),
        ([{"turn": 0, "distance": "far"}], "$.command.legs[0].distance", "float"),
        ([{"distance": 2}, {"distance": 1, "speed": 3}], "$.command.legs[1]", "speed"),
        ("forward", "$.command.legs", "array"),
        ([5], "$.command.legs[0]", "object"),
    ],
)
async def test_malformed_move_legs_name_the_field(api, legs, field, word):
    game, before = await _started(api)
    r = await post(api, game, game["seats"]["red"], {"type": "gsc2.move", "ship": "hood", "legs": legs})
    assert r.status_code == 422 and r.headers["content-type"] == "application/problem+json"
    assert r.json()["field"] == field and word in r.json()["detail"], r.json()
    assert await version(api, game) == before


async def test_illegal_leg_is_a_rule_violation(api):
    game, _ = await _started(api)
    # equal fleets roll off for movement; the winner names the leader, who then moves first
    summary = await view(api, game)
    chooser = summary["state"]["order"]["side"]
    assert summary["state"]["order"]["stage"] == "choose" and chooser in ("red", "blue")
    mover = "red" if chooser == "blue" else "blue"
    other = await post(api, game, game["seats"][mover], {"type": "gsc2.choose_order", "side": mover, "leader": mover})
    assert other.status_code == 422 and other.json()["rule"] == "GSC2-MOV-2"
    r = await post(api, game, game["seats"][chooser], {"type": "gsc2.choose_order", "side": chooser, "leader": mover})
    assert r.status_code == 201
    ship = "hood" if mover == "red" else "bismarck"
    before = await version(api, game)
    for legs, rule in (
        ([{"turn": 30, "distance": 1}], "GSC2-MOV-3"),
        ([{"distance": 40}], "GSC2-MOV-3"),
        ([{"distance": -1}], "GSC2-MOV-3"),
    ):
        r = await post(api, game, game["seats"][mover], {"type": "gsc2.move", "ship": ship, "legs": legs})
        assert r.status_code == 422 and r.json()["rule"] == rule and "leg 1" in r.json()["detail"], r.json()
    assert await version(api, game) == before
    r = await post(api, game, game["seats"][mover], {"type": "gsc2.move", "ship": ship, "legs": [{"distance": 3}]})
    assert r.status_code == 201 and r.json()["version"] > before


# --- (d) the page's contract: labelled options, the free-move form, the drawing -------------------


async def test_a_free_distance_move_composed_from_the_form_and_drawn_for_a_spectator(api):
    """GSC2-MOV-3 through HTTP: the form's legs field carries the limits; a 5.5" move is accepted and drawn."""
    game = await new_gsc2_game(api, "duel")
    await start(api, game)
    for _ in range(3):  # the roll-off winner chooses; then the side to move gets a form for its ship
        for token in game["seats"].values():
            r = await api.get(f"/v1/games/{game['game_id']}/options", headers=bearer(token))
            body = r.json()
            assert all(o["label"] and "{" not in o["label"] for o in body["options"])
            if body["forms"]:
                form = body["forms"][0]
                legs = form["pieces"][0]["fields"][0]
                assert form["command"] == "gsc2.move" and legs["kind"] == "legs"
                assert legs["limits"]["max_distance_left"] >= 5.5 and legs["limits"]["turn_degrees"] == 45
                ship = form["pieces"][0]["piece"]
                cmd = {"type": "gsc2.move", "ship": ship, "legs": [{"turn": 0, "distance": 5.5}]}
                r = await post(api, game, token, cmd)
                assert r.status_code == 201, r.text
                drawn = (await view(api, game))["state"]["draw"]  # a spectator's view
                [track] = [t for t in drawn["tracks"] if t["piece"] == ship]
                assert track["kind"] == "move" and track["label"].endswith('moved 5.5"')
                assert drawn["board"] == {**drawn["board"], "kind": "plane", "width": 48, "height": 48}
                assert drawn["status"]["you"] is None and len(drawn["status"]["seats"]) == 2
                return
            chooser = [o for o in body["options"] if o["command"]["type"] == "gsc2.choose_order"]
            if chooser:
                r = await post(api, game, token, chooser[0]["command"])
                assert r.status_code == 201, r.text
                break
    raise AssertionError("no side was ever offered a free move")
