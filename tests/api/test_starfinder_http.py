"""Starfinder over HTTP alone: discovery, crew seats, a whole duel drawn from each seat's /options, the
rejection paths, turn replays, battle files (export, verify, import) and forks.

Every crew member is a seat ("ship/crew"). Choices come from a seeded random.Random; the dice come from fresh
secret turn seeds, so a test that needs a game of some length plays another one when the dice cut it short.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from service.domain.starfinder import RULESET
from service.domain.starfinder.commands import COMMANDS
from service.domain.starfinder.events import EVENTS
from tests.api.helpers import bearer, options, version, view
from tests.api.starfinder_play import Played, events, new_game, play, post

pytestmark = pytest.mark.asyncio
VERIFIER = Path(__file__).resolve().parents[2] / "clients" / "verify_dice.py"
RULE_ID = re.compile(r"^SF-[A-Z]+-\d+$")
DUEL_SEATS = {
    "sunrise/captain",
    "sunrise/pilot",
    "sunrise/engineer",
    "sunrise/gunner",
    "sunrise/science",
    "ashen/captain",
    "ashen/pilot",
    "ashen/engineer",
    "ashen/gunner",
    "ashen/gunner-2",
}
SKIRMISH_SEATS = {
    "wasp/pilot",
    "wasp/gunner",
    "hornet/pilot",
    "hornet/gunner",
    "maw/captain",
    "maw/pilot",
    "maw/engineer",
    "maw/gunner",
    "maw/gunner-2",
    "maw/science",
    "maw/cook",
}


def _tags(schema: dict) -> set[str]:
    refs = [ref["$ref"].rsplit("/", 1)[-1] for ref in schema["anyOf"]]
    return {tag for name in refs for tag in schema["$defs"][name]["properties"]["type"]["enum"]}


def _verify(tmp_path, content: bytes, name: str = "battle.jsonl") -> subprocess.CompletedProcess:
    path = tmp_path / name
    path.write_bytes(content)
    return subprocess.run([sys.executable, str(VERIFIER), str(path)], capture_output=True, text=True, timeout=60)


async def _reach(
    api, seed: int, until: Callable[[dict], bool], ok: Callable[[dict], bool], attempts: int = 8
) -> tuple[dict, Played]:
    """Play duels through /options until ``until(summary)``; keep the first game where ``ok(summary)``.
    Now and then the dice end a duel early: another game is then played, so the tests do not flicker."""
    summary: dict = {}
    for attempt in range(attempts):
        game = await new_game(api)
        played = await play(api, game, random.Random(seed + attempt), until=until)
        summary = await view(api, game)
        if ok(summary):
            return game, played
    raise AssertionError(f"no duel reached the wanted point in {attempts} games: {summary['state']['result']}")


async def _three_rounds(api, seed: int = 11) -> tuple[dict, Played]:
    """A duel played until round 3 begins: the seeds of rounds 1 and 2 are revealed, the battle goes on."""
    return await _reach(
        api, seed, until=lambda s: s["turn"] >= 3 or s["over"], ok=lambda s: s["turn"] == 3 and not s["over"]
    )


# --- discovery and seats ----------------------------------------------------------------------------------------


async def test_rulesets_list_starfinder_with_both_scenarios(api):
    r = await api.get("/v1/rulesets")
    assert r.status_code == 200
    sf = next(x for x in r.json()["rulesets"] if x["name"] == "starfinder")
    assert sf["scenarios"] == ["duel", "skirmish"]
    assert sf["version"] == RULESET.version and sf["title"]
    assert _tags(sf["commands"]) == {c.__struct_config__.tag for c in COMMANDS}
    assert _tags(sf["events"]) == {e.__struct_config__.tag for e in EVENTS}
    fire = sf["commands"]["$defs"]["Fire"]
    assert {"type", "seat", "weapon", "target"} <= set(fire["required"]) and fire["additionalProperties"] is False
    for name in ("duel", "skirmish"):
        r = await api.get(f"/v1/rulesets/starfinder/scenarios/{name}")
        assert r.status_code == 200 and r.json()["scenario"]["name"] == name
    assert (await api.get("/v1/rulesets/starfinder/scenarios/nope")).status_code == 404


@pytest.mark.parametrize(("scenario", "seats"), [("duel", DUEL_SEATS), ("skirmish", SKIRMISH_SEATS)])
async def test_one_token_per_crew_seat(api, scenario, seats):
    r = await api.get(f"/v1/rulesets/starfinder/scenarios/{scenario}")
    game = await new_game(api, r.json()["scenario"])  # the served document, posted back inline
    assert set(game["seats"]) == seats
    tokens = [*game["seats"].values(), game["umpire_token"]]
    assert len(set(tokens)) == len(tokens) and all(tokens)
    assert game["version"] == 2 and len(game["dice_commitment"]) == 64  # created + turn 1's commitment
    summary = await view(api, game, game["seats"]["sunrise/pilot" if scenario == "duel" else "wasp/pilot"])
    assert set(summary["seats"]) == seats and summary["viewer"].startswith("seat:")
    assert (summary["turn"], summary["phase"], summary["over"]) == (1, "engineering", False)
    crew = {c["seat"] for s in summary["state"]["ships"] for c in s["crew"]}
    assert crew == seats
    # a seat is offered only commands that name that seat
    for seat, token in game["seats"].items():
        assert {c.get("seat") for c in await options(api, game, token)} <= {seat}


# --- a whole duel ------------------------------------------------------------------------------------------------


async def test_full_duel_over_http(api, sqlite_url):
    game = await new_game(api)
    seen: dict[int, dict] = {}  # version -> public state right after that command

    def record(summary: dict) -> bool:
        seen[summary["version"]] = summary["state"]
        return False

    played = await play(api, game, random.Random(20261130), until=record)
    assert played.posts and all(status == 201 for _who, _cmd, status in played.posts)
    assert played.foreign == []  # every option a seat was offered named that seat
    who = {w for w, _cmd, _status in played.posts}
    assert {w.split("/")[0] for w in who if w != "umpire"} == {"sunrise", "ashen"}
    assert len(who - {"umpire"}) >= 6  # captains, pilots, engineers and gunners of both ships took part
    for w, cmd, _status in played.posts:
        assert w == "umpire" or cmd["seat"] == w
    assert played.versions == sorted(set(played.versions))  # every command appended something

    final = await view(api, game, game["umpire_token"])
    state = final["state"]
    assert final["over"] is True and state["over"] is True and state["result"]
    assert final["turn"] <= state["round_limit"] == 20
    if state["winner"] is None:  # a draw: the round limit, or both ships out of the fight in the same round
        assert "round limit" in state["result"] or "no ship is able to fight" in state["result"], state["result"]
    else:
        assert state["winner"] in ("pact", "corsairs") and "alone has ships able to fight" in state["result"]
        loser = {"pact": "sunrise", "corsairs": "ashen"}["corsairs" if state["winner"] == "pact" else "pact"]
        assert next(s for s in state["ships"] if s["id"] == loser)["status"] != "active"
    for token in (*game["seats"].values(), game["umpire_token"]):  # nobody acts in a finished battle
        assert await options(api, game, token) == []
    late = await post(api, game, game["seats"]["sunrise/pilot"], {"type": "starfinder.pass", "seat": "sunrise/pilot"})
    assert late.status_code == 422 and late.json()["rule"] == "GAME-OVER"  # core guard, before any Starfinder rule

    log = await events(api, game)
    assert final["version"] == len(log) == played.versions[-1]
    assert [e["seq"] for e in log] == list(range(1, len(log) + 1))
    types = [e["type"] for e in log]
    assert types.count("starfinder.game_over") == 1 and types[-1] == "dice.revealed"
    assert "starfinder.helm_order" in types and "starfinder.attacked" in types
    assert sum(t == "dice.revealed" for t in types) == final["turn"]  # every round's seed is opened

    # any earlier point: exactly the state seen live right after that command
    rng = random.Random(7)
    points = sorted(rng.sample(sorted(seen)[:-1], min(25, len(seen) - 1))) + [played.versions[0]]
    for at in points:
        past = await view(api, game, at=at)
        assert past["at"] == at and past["version"] == final["version"]
        assert past["state"] == seen[at] and past["over"] is False
    first = await view(api, game, at=2)
    assert (first["turn"], first["phase"]) == (1, "engineering")
    assert {s["id"]: s["hull"] for s in first["state"]["ships"]} == {"sunrise": 35, "ashen": 30}

    # a second app on the same SQLite file folds the log from scratch and gets the same game
    from service.api.app import create_app
    from service.settings import Settings

    fresh = create_app(Settings(database_url=sqlite_url, snapshot_every=10**9))
    async with fresh.router.lifespan_context(fresh):
        transport = httpx.ASGITransport(app=fresh)
        async with httpx.AsyncClient(transport=transport, base_url="http://replica") as other:
            refolded = await view(other, game, game["umpire_token"])
            assert refolded["state"] == state and refolded["version"] == final["version"]
            assert (await view(other, game))["state"] == (await view(api, game))["state"]
            seat = game["seats"]["ashen/gunner"]
            assert (await view(other, game, seat))["state"] == (await view(api, game, seat))["state"]
            assert await events(other, game) == log
            at = points[len(points) // 2]
            assert (await view(other, game, at=at))["state"] == seen[at]


# --- rejections --------------------------------------------------------------------------------------------------


async def _problem(r: httpx.Response, status: int, rule: str | None = None) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == "application/problem+json"
    body = r.json()
    if rule is not None:
        assert body["rule"] == rule and body["type"].endswith(rule), body
    return body


async def test_pilot_cannot_fire_a_gunners_weapon(api):
    game = await new_game(api)
    seats = game["seats"]
    before = await version(api, game)
    fire = {"type": "starfinder.fire", "seat": "sunrise/pilot", "weapon": "laser", "target": "ashen"}
    body = await _problem(await post(api, game, seats["sunrise/pilot"], fire), 422, "SF-ROLE-4")
    assert "pilot" in body["detail"] and "gunner" in body["detail"]
    patch = {"type": "starfinder.divert", "seat": "ashen/gunner", "to": "engines"}
    body = await _problem(await post(api, game, seats["ashen/gunner"], patch), 422, "SF-ROLE-4")
    assert "engineer" in body["detail"]
    assert await version(api, game) == before


async def test_a_seat_cannot_act_for_another_ships_crew(api):
    game = await new_game(api)
    seats = game["seats"]
    before = await version(api, game)
    divert = {"type": "starfinder.divert", "seat": "ashen/engineer", "to": "engines"}
    body = await _problem(await post(api, game, seats["sunrise/engineer"], divert), 403, "SF-ROLE-4")
    assert "ashen/engineer" in body["detail"]
    # nor for another crew member of its own ship, nor with a spectator's empty hands
    mine = {"type": "starfinder.divert", "seat": "sunrise/engineer", "to": "engines"}
    await _problem(await post(api, game, seats["sunrise/captain"], mine), 403, "SF-ROLE-4")
    assert (await post(api, game, None, mine)).status_code in (401, 403)
    # forcing the phase is the umpire's alone
    await _problem(await post(api, game, seats["sunrise/captain"], {"type": "starfinder.force_phase"}), 403, "SF-R-2")
    # the right seat may (and the same command is accepted once it comes from it)
    assert (await post(api, game, seats["ashen/engineer"], divert)).status_code == 201
    assert await version(api, game) == before + 2  # the first command also opens round 1's engineering (SF-R-21)


async def test_acting_outside_the_phase_names_the_rule(api):
    game = await new_game(api)
    seats = game["seats"]
    before = await version(api, game)
    assert (await view(api, game))["phase"] == "engineering"
    fire = {"type": "starfinder.fire", "seat": "ashen/gunner", "weapon": "plasma", "target": "sunrise"}
    body = await _problem(await post(api, game, seats["ashen/gunner"], fire), 422, "SF-ROLE-2")
    assert "gunnery" in body["detail"] and "engineering" in body["detail"]
    move = {"type": "starfinder.move", "seat": "sunrise/pilot", "path": "FF"}
    body = await _problem(await post(api, game, seats["sunrise/pilot"], move), 422, "SF-ROLE-2")
    assert "helm" in body["detail"]
    assert await version(api, game) == before

    # the helm phase: only the ship whose turn it is in the helm order moves
    r = await post(api, game, game["umpire_token"], {"type": "starfinder.force_phase"})
    assert r.status_code == 201
    summary = await view(api, game)
    assert summary["phase"] == "helm" and len(summary["state"]["helm_order"]) == 2
    first, second = summary["state"]["helm_order"]
    assert summary["state"]["acting_ship"] == first
    before = await version(api, game)
    late = {"type": "starfinder.move", "seat": f"{second}/pilot", "path": "F"}
    body = await _problem(await post(api, game, seats[f"{second}/pilot"], late), 422, "SF-HELM-4")
    assert first in body["detail"]
    divert = {"type": "starfinder.divert", "seat": f"{first}/engineer", "to": "engines"}
    await _problem(await post(api, game, seats[f"{first}/engineer"], divert), 422, "SF-ROLE-2")
    assert await version(api, game) == before
    assert (
        await post(
            api, game, seats[f"{first}/pilot"], {"type": "starfinder.move", "seat": f"{first}/pilot", "path": "F"}
        )
    ).status_code == 201


@pytest.mark.parametrize(
    ("cmd", "field", "word"),
    [
        ({"type": "starfinder.move", "seat": "sunrise/pilot", "path": 5}, "$.command.path", "str"),
        ({"type": "starfinder.back_off", "seat": "sunrise/pilot", "hexes": "two"}, "$.command.hexes", "int"),
        ({"type": "starfinder.move", "path": "F"}, "$.command", "seat"),
        ({"type": "starfinder.pass", "seat": "sunrise/pilot", "speed": 3}, "$.command", "speed"),
        (
            {"type": "starfinder.divert", "seat": "sunrise/engineer", "to": "shields", "shields": {"aft": "all"}},
            "$.command.shields",
            "int",
        ),
        ({"type": "starfinder.warp", "seat": "sunrise/pilot"}, "$.command", "starfinder.warp"),
    ],
)
async def test_malformed_command_names_the_field(api, cmd, field, word):
    game = await new_game(api)
    before = await version(api, game)
    body = await _problem(await post(api, game, game["seats"]["sunrise/pilot"], cmd), 422)
    assert body["field"].startswith(field) and word in body["detail"], body
    assert "rule" not in body or body["rule"] is None
    assert await version(api, game) == before


# --- replay, battle files, forks ---------------------------------------------------------------------------------


async def test_turn_replay_of_round_one_explains_the_rolls(api):
    game, _ = await _three_rounds(api)
    gid = game["game_id"]
    r = await api.get(f"/v1/games/{gid}/turns/1")
    assert r.status_code == 200, r.text
    replay = r.json()
    assert replay["turn"] == 1 and replay["from_seq"] == 1
    assert replay["before"] == (await view(api, game, at=replay["from_seq"] - 1))["state"]
    last_rules = max(s["event"]["seq"] for s in replay["events"] if not s["event"]["type"].startswith("dice."))
    assert replay["after"] == (await view(api, game, at=last_rules))["state"]
    assert replay["events"][-1]["event"]["type"] == "dice.revealed"
    rolls = 0
    types = set()
    for step in replay["events"]:
        env, text = step["event"], step["text"]
        types.add(env["type"])
        assert env["turn"] == 1 and text.strip() and "\n" not in text
        for roll in env.get("rolls", []):
            rolls += 1
            assert RULE_ID.match(roll["rule"]), roll
            assert 1 <= roll["value"] <= int(roll["die"].lstrip("d")) and roll["purpose"]
            for mod in roll.get("modifiers", []):
                assert RULE_ID.match(mod["rule"]) and mod["why"] and isinstance(mod["value"], int), mod
        if env["type"] == "starfinder.helm_order":
            checks = [x for x in env["rolls"] if x["rule"] == "SF-HELM-1"]
            assert checks and "Helm order" in text
            for x in checks:
                assert f"d20 {x['value']}" in text and x["purpose"].startswith("piloting check")
        if env["type"] == "starfinder.attacked" and env["data"]["kind"] == "gunnery" and env["rolls"]:
            check = env["rolls"][0]
            assert check["rule"] == "SF-GUN-6" and check["outcome"] in ("hit", "miss")
            assert check["outcome"] == ("hit" if env["data"]["hit"] else "miss")
            assert f"d20 {check['value']}" in text and f"vs {check['target']}" in text
    assert rolls > 0 and "starfinder.helm_order" in types
    assert {"starfinder.phase_started", "starfinder.slot_opened"} <= types
    # one phase of the round, explained alone
    helm = (await api.get(f"/v1/games/{gid}/turns/1", params={"phase": "helm"})).json()
    assert helm["events"] and all(s["event"]["phase"] == "helm" for s in helm["events"])
    assert any(s["event"]["type"] == "starfinder.helm_order" for s in helm["events"])
    # a new round's first events carry that round's clock (no "gunnery" before its engineering)
    two = (await api.get(f"/v1/games/{gid}/turns/2")).json()["events"]
    assert two[0]["event"]["type"] == "starfinder.round_started" and two[0]["event"]["phase"] == "engineering"
    assert (await api.get(f"/v1/games/{gid}/turns/40")).status_code == 404


async def test_export_verifies_and_imports_to_the_same_state(api, tmp_path):
    game, _ = await _three_rounds(api, seed=23)
    r = await api.get(f"/v1/games/{game['game_id']}/export", headers=bearer(game["umpire_token"]))
    assert r.status_code == 200 and r.headers["content-type"] == "application/x-ndjson"
    content = r.content
    lines = [json.loads(x) for x in content.splitlines() if x.strip()]
    header, log = lines[0], lines[1:]
    assert header["ruleset"] == "starfinder" and header["events"] == len(log)
    revealed = {e["data"]["turn"] for e in log if e["type"] == "dice.revealed"}
    assert revealed == {1, 2}
    expected = sum(len(e["rolls"]) for e in log if e.get("dice") and e["dice"]["turn"] in revealed)
    assert expected > 0
    result = _verify(tmp_path, content)
    assert result.returncode == 0, result.stdout
    assert result.stdout.startswith(f"OK {expected} rolls verified over 2 revealed turns"), result.stdout

    # a tampered piloting check is caught and named
    raw = content.decode().splitlines()
    index = next(i for i, ln in enumerate(raw) if '"starfinder.helm_order"' in ln and '"rolls":[{' in ln)
    env = json.loads(raw[index])
    env["rolls"][0]["value"] = env["rolls"][0]["value"] % 20 + 1
    raw[index] = json.dumps(env)
    bad = _verify(tmp_path, ("\n".join(raw) + "\n").encode(), "tampered.jsonl")
    named = f"MISMATCH seq {env['seq']} roll {env['rolls'][0]['i']} "
    assert bad.returncode == 1 and bad.stdout.startswith(named), bad.stdout
    assert "SF-HELM-1" in bad.stdout

    r = await api.post("/v1/games/import", content=content)
    assert r.status_code == 201, r.text
    imported = r.json()
    assert imported["imported_from"] == game["game_id"] and set(imported["seats"]) == DUEL_SEATS
    original = await view(api, game, game["umpire_token"])
    copy = await view(api, imported, imported["umpire_token"])
    assert copy["state"] == original["state"] and (copy["turn"], copy["phase"]) == (original["turn"], original["phase"])
    again = await api.get(f"/v1/games/{imported['game_id']}/export", headers=bearer(imported["umpire_token"]))
    assert json.loads(again.content.split(b"\n", 1)[0])["state_hash"] == header["state_hash"]
    # the copy plays on from where the original stood; the original does not move
    offered = [(t, c) for t in imported["seats"].values() for c in await options(api, imported, t)]
    assert offered
    token, cmd = offered[0]
    assert (await post(api, imported, token, cmd)).status_code == 201
    assert (await view(api, game))["version"] == original["version"]


async def test_a_crew_seat_may_fork_and_the_original_is_untouched(api):
    assert RULESET.hidden_information is False  # SF-R-1: any seat may fork
    game, played = await _three_rounds(api, seed=31)
    at = played.versions[len(played.versions) // 2]
    original_at = await view(api, game, at=at)
    before = await view(api, game, game["umpire_token"])
    r = await api.post(
        f"/v1/games/{game['game_id']}/fork", params={"at": at}, headers=bearer(game["seats"]["ashen/gunner-2"])
    )
    assert r.status_code == 201, r.text
    fork = r.json()
    assert fork["forked_from"] == game["game_id"] and fork["forked_at"] == at and set(fork["seats"]) == DUEL_SEATS
    forked = await view(api, fork)
    assert forked["state"] == original_at["state"]
    assert (forked["turn"], forked["phase"]) == (original_at["turn"], original_at["phase"])
    await play(api, fork, random.Random(3), until=lambda s: s["version"] >= forked["version"] + 12 or s["over"])
    assert await version(api, fork) > forked["version"]
    after = await view(api, game, game["umpire_token"])
    assert after["version"] == before["version"] and after["state"] == before["state"]
    assert (await view(api, game, at=at))["state"] == original_at["state"]
    # the fork's tokens are its own
    r = await post(api, game, fork["seats"]["sunrise/pilot"], {"type": "starfinder.pass", "seat": "sunrise/pilot"})
    assert r.status_code == 401 and await version(api, game) == before["version"]


async def _options_body(api, game, token: str | None) -> dict[str, Any]:
    r = await api.get(f"/v1/games/{game['game_id']}/options", headers=bearer(token) if token else {})
    assert r.status_code == 200, r.text
    assert len(r.content) <= 64 * 1024
    return r.json()


async def test_every_seat_sees_who_must_act_and_why_and_composes_a_move_hex_by_hex(api):
    """The drawing through the API (docs/view-contract.md): the gunner is told why it waits (SF-R-13), the header
    names the roles awaited (SF-R-3), and a pilot's helm order is composed from its form (SF-MOV-1/2)."""
    game = await new_game(api)
    seats = game["seats"]
    gunner = (await view(api, game, seats["sunrise/gunner"]))["state"]["draw"]
    assert gunner["status"]["you"]["must_act"] is False
    assert gunner["status"]["you"]["why"].startswith(
        "battle stations have not been declared: gunners act in the "
        "gunnery phase once Sunrise Maiden is at battle stations"
    )
    assert "waiting for Sunrise Maiden's captain, Sunrise Maiden's engineer" in gunner["status"]["phase_label"]
    assert [p["id"] for p in gunner["pieces"] if p["mine"]] == ["sunrise"]
    watcher = (await view(api, game))["state"]["draw"]
    assert watcher["status"]["you"] is None and not any(p["mine"] for p in watcher["pieces"])
    assert (await _options_body(api, game, None))["options"] == []
    # the umpire moves the game into helm; the ship whose turn it is has a helm form with a hexpath field
    assert (await post(api, game, game["umpire_token"], {"type": "starfinder.force_phase"})).status_code == 201
    draw = (await view(api, game))["state"]["draw"]
    pilot = next(s["seat"] for s in draw["status"]["seats"] if s["must_act"] and s["seat"].endswith("/pilot"))
    body = await _options_body(api, game, seats[pilot])
    assert all(o["label"] and "{" not in o["label"] for o in body["options"])
    [move] = [f for f in body["forms"] if f["command"] == "starfinder.move"]
    [piece] = move["pieces"]
    path = next(f for f in piece["fields"] if f["key"] == "hexes")
    assert path["kind"] == "hexpath" and piece["piece"] == pilot and move["piece_key"] == "seat"
    q, r = path["limits"]["start"]
    dq, dr = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0))[path["limits"]["facing"]]
    hexes = [[q + dq, r + dr], [q + 2 * dq, r + 2 * dr]]
    # rejection path first: a hex that does not follow on from the last names the rule, and nothing is written
    before = await version(api, game)
    r_ = await post(api, game, seats[pilot], {"type": "starfinder.move", "seat": pilot, "hexes": [[q + 9, r]]})
    assert r_.status_code == 422 and r_.json()["rule"] == "SF-MOV-1", r_.text
    assert await version(api, game) == before
    r_ = await post(api, game, seats[pilot], {"type": "starfinder.move", "seat": pilot, "hexes": hexes})
    assert r_.status_code == 201, r_.text
    tracks = (await view(api, game))["state"]["draw"]["tracks"]
    assert [[p["x"], p["y"]] for p in tracks[-1]["points"]] == [[q, r], *hexes]
