"""The Full Thrust campaign over HTTP: discovery, creation, umpire-only commands, sealed strategic orders
revealed together, turn replays, and the umpire's battle file (dice verified, imported to the same state)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.api.helpers import bearer, command

pytestmark = pytest.mark.asyncio
VERIFIER = Path(__file__).resolve().parents[2] / "clients" / "verify_dice.py"
UMPIRE_ONLY = [
    {"type": "ftcampaign.generate_map"},
    {"type": "ftcampaign.close_turn"},
    {"type": "ftcampaign.record_ruling", "text": "I rule in my own favour."},
    {"type": "ftcampaign.approve_technology", "player": "nac", "design": "kgun-cl"},
    {"type": "ftcampaign.approve_standard_navy", "player": "nac"},
    {"type": "ftcampaign.record_battle", "battle": "b1", "victor": "nac", "tactical_game_id": "g_x"},
    {
        "type": "ftcampaign.resolve_disengagement",
        "battle": "b1",
        "group": "g",
        "to": [0, 0],
        "distance_inches": 1,
        "weapons_range_inches": 1,
        "separation": "grows",
    },
    {"type": "ftcampaign.end_campaign", "reason": "I win"},
]


async def _game(api, scenario: str = "intro-duel") -> dict[str, Any]:
    r = await api.post("/v1/games", json={"ruleset": "ftcampaign", "scenario": scenario})
    assert r.status_code == 201, r.text
    return r.json()


def _token(game: dict[str, Any], who: str | None) -> str | None:
    return None if who is None else game["umpire_token"] if who == "umpire" else game["seats"][who]


async def _ok(api, game, who: str, cmd: dict[str, Any]) -> dict[str, Any]:
    r = await command(api, game, _token(game, who), cmd)
    assert r.status_code == 201, (who, cmd, r.text)
    return r.json()


async def _get(api, game, path: str, who: str | None, **params: Any) -> Any:
    token = _token(game, who)
    r = await api.get(f"/v1/games/{game['game_id']}{path}", headers=bearer(token) if token else {}, params=params)
    assert r.status_code == 200, (path, r.text)
    return r.json()


async def _options(api, game, who: str) -> list[dict[str, Any]]:
    return [o["command"] for o in (await _get(api, game, "/options", who))["options"]]


async def _to_orders(api, game) -> None:
    """Generate the map, claim and expand from the options, buy one ship each, and get ready."""
    await _ok(api, game, "umpire", {"type": "ftcampaign.generate_map"})
    players = list(game["seats"])
    bought = set()
    for _ in range(80):
        view = (await _get(api, game, "", "umpire"))["state"]
        if view["phase"] == "orders":
            return
        ready = {x["id"] for x in view["players"] if x["ready"]}
        for p in players:
            opts = await _options(api, game, p)
            if not opts or p in ready:
                continue
            if view["phase"] == "deployment":
                buys = [o for o in opts if o["type"] == "ftcampaign.buy_ship" and o["design"] == "dd"]
                if p not in bought and buys:
                    await _ok(api, game, p, buys[0])
                    bought.add(p)
                else:
                    await _ok(api, game, p, next(o for o in opts if o["type"] == "ftcampaign.ready"))
            else:
                await _ok(api, game, p, opts[0])
            break
    raise AssertionError("never reached the orders phase")


async def test_rulesets_list_the_campaign_with_its_scenarios(api):
    r = await api.get("/v1/rulesets")
    ftc = next(x for x in r.json()["rulesets"] if x["name"] == "ftcampaign")
    assert ftc["scenarios"] == ["intro-duel", "three-powers"]
    defs = json.dumps(ftc["commands"]["$defs"])
    for tag in ("ftcampaign.record_battle", "ftcampaign.submit_orders", "ftcampaign.generate_map"):
        assert tag in defs
    assert "ftcampaign.orders_revealed" in json.dumps(ftc["events"]["$defs"])
    for name in ftc["scenarios"]:
        r = await api.get(f"/v1/rulesets/ftcampaign/scenarios/{name}")
        assert r.status_code == 200 and r.json()["scenario"]["players"]


@pytest.mark.parametrize(
    ("scenario", "players"), [("intro-duel", {"nac", "fsr"}), ("three-powers", {"eddie", "john", "colin"})]
)
async def test_creation_gives_a_token_per_player_and_an_umpire_token(api, scenario, players):
    game = await _game(api, scenario)
    assert set(game["seats"]) == players
    tokens = [*game["seats"].values(), game["umpire_token"]]
    assert len(set(tokens)) == len(tokens)
    for p in players:
        summary = await _get(api, game, "", p)
        assert summary["viewer"] == f"seat:{p}" and summary["ruleset"] == "ftcampaign"
        assert summary["state"]["economy"] is not None and "economies" not in summary["state"]
    assert "economies" in (await _get(api, game, "", "umpire"))["state"]
    spectator = (await _get(api, game, "", None))["state"]
    assert spectator["economy"] is None and spectator["groups"] == []


async def test_umpire_commands_are_refused_to_players_and_spectators(api):
    game = await _game(api)
    for cmd in UMPIRE_ONLY:
        for p in game["seats"]:
            r = await command(api, game, game["seats"][p], cmd)
            assert r.status_code == 403, (cmd, r.text)  # the umpire's piece (core.decider: umpire_only)
            assert r.headers["content-type"] == "application/problem+json"
            assert r.json()["rule"] == "FTC-UMP-1" and r.json()["code"] == "not-your-piece", r.text
        r = await command(api, game, None, cmd)
        assert r.status_code == 403, r.text
    assert (await _get(api, game, "", "umpire"))["version"] == game["version"]  # nothing appended
    for p in game["seats"]:
        assert not any(o["type"] in {c["type"] for c in UMPIRE_ONLY} for o in await _options(api, game, p))
    assert {"type": "ftcampaign.generate_map"} in await _options(api, game, "umpire")
    await _ok(api, game, "umpire", {"type": "ftcampaign.generate_map"})
    # and a player's command is not the umpire's to give
    r = await command(api, game, game["umpire_token"], {"type": "ftcampaign.claim_homeworld"})
    assert r.status_code == 422 and r.json()["rule"] == "FTC-UMP-1", r.text


def _orders_in(value: object) -> bool:
    """Whether any non-empty "orders" list appears anywhere in a JSON document."""
    if isinstance(value, dict):
        return any((k == "orders" and v) or _orders_in(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_orders_in(v) for v in value)
    return False


async def test_sealed_orders_are_revealed_together(api):
    game = await _game(api)
    await _to_orders(api, game)
    for turn in (1, 2):
        view = (await _get(api, game, "", "umpire"))["state"]
        assert view["phase"] == "orders" and view["turn"] == turn
        group = next(g for g in view["groups"] if g["owner"] == "nac" and g["hex"] is not None)
        form = next(
            f for f in (await _get(api, game, "/options", "nac"))["forms"] if f["command"] == "ftcampaign.submit_orders"
        )
        piece = next((p for p in form["pieces"] if p["piece"] == group["id"]), None)
        assert piece is not None, (group, form)
        routes = {tuple(map(tuple, r)) for r in view["map"]["routes"]}
        linked = routes | {(b, a) for a, b in routes}
        # a destination the form offers as a plain jump (not "by route": on some maps a hex only a route
        # reaches is offered too) and that no charted route links to the group's hex: sealed as a plain jump
        to = next(
            v
            for v in piece["fields"][0]["values"]
            if v["value"] != group["hex"]
            and not v["label"].endswith(" by route")
            and (tuple(group["hex"]), tuple(v["value"])) not in linked
        )
        assert to["label"] and to["piece"] == f"{to['value'][0]},{to['value'][1]}"
        entry = {"group": group["id"], "to": to["value"], "posture": "stand_off"}
        mine = {"type": form["command"], form["list_key"]: [entry]}  # composed by the page, group by group
        body = await _ok(api, game, "nac", mine)
        sealed = next(e for e in body["events"] if e["type"] == "ftcampaign.orders_submitted")
        resolved = [{**entry, "route": False}]  # the order as sealed: a plain jump (ruling FTC-R-20)
        assert sealed["data"]["orders"] == resolved
        assert not any(e["type"] == "ftcampaign.orders_revealed" for e in body["events"])
        # the other player and spectators learn only THAT nac has sealed orders
        for who in ("fsr", None):
            v = (await _get(api, game, "", who))["state"]
            assert {p["id"]: p["orders_sealed"] for p in v["players"]} == {"nac": True, "fsr": False}
            # (nac's group itself may be in sight as a last-seen marker; its sealed orders never are)
            assert "my_orders" not in v and not _orders_in(v)
            env = next(
                e
                for e in (await _get(api, game, "/events", who, after=sealed["seq"] - 1))["events"]
                if e["seq"] == sealed["seq"]
            )
            assert env["data"].get("orders") is None and group["id"] not in json.dumps(env)
        assert (await _get(api, game, "", "nac"))["state"]["my_orders"] == resolved
        # nac's sealed orders cannot be read back by changing them after the fact
        r = await command(api, game, game["seats"]["nac"], {"type": "ftcampaign.submit_orders", "orders": []})
        assert r.status_code == 422
        # fsr holds; both sets are revealed and carried out by the same command
        body = await _ok(api, game, "fsr", {"type": "ftcampaign.submit_orders", "orders": []})
        types = [e["type"] for e in body["events"]]
        assert "ftcampaign.orders_revealed" in types, types
        reveal = next(e for e in body["events"] if e["type"] == "ftcampaign.orders_revealed")
        assert reveal["data"]["turn"] == turn and reveal["data"]["missing"] == []
        nac_events = (await _get(api, game, "/events", "nac", after=reveal["seq"] - 1))["events"]
        moved = [e for e in nac_events if e["type"] == "ftcampaign.group_moved" and e["data"]["group"] == group["id"]]
        assert moved and moved[0]["seq"] > reveal["seq"]
        fsr_events = (await _get(api, game, "/events", "fsr", after=reveal["seq"] - 1))["events"]
        assert not any(e["type"] == "ftcampaign.group_moved" and e["data"]["player"] == "nac" for e in fsr_events)
        v = (await _get(api, game, "", "umpire"))["state"]
        if v["phase"] == "contacts":  # contact (unlikely this early): the umpire closes it with the defaults
            await _ok(api, game, "umpire", {"type": "ftcampaign.close_turn"})
    view = (await _get(api, game, "", "nac"))["state"]
    assert view["turn"] == 3 and all(not p["orders_sealed"] for p in view["players"])


async def test_turn_replay_matches_the_live_reads(api):
    game = await _game(api)
    await _to_orders(api, game)
    for p in ("nac", "fsr"):
        await _ok(api, game, p, {"type": "ftcampaign.submit_orders", "orders": []})
    for who in ("nac", "fsr", None):
        replay = await _get(api, game, "/turns/1", who)
        live = {e["seq"]: e for e in (await _get(api, game, "/events", who))["events"]}
        assert replay["events"], who
        for item in replay["events"]:
            assert item["event"] == live[item["event"]["seq"]]
            assert isinstance(item["text"], str) and item["text"]
        assert replay["before"] == (await _get(api, game, "", who, at=replay["from_seq"] - 1))["state"]
        # "after" is the state after the turn's last event (a seed reveal comes after the next turn's opening)
        last = max(i["event"]["seq"] for i in replay["events"] if not i["event"]["type"].startswith("dice."))
        assert replay["after"] == (await _get(api, game, "", who, at=last))["state"]
        assert replay["after"]["turn"] == 1
        text = json.dumps(replay)
        assert '"economies"' not in text
        other = {"nac": "fsr", "fsr": "nac"}.get(who or "")
        if other:  # the other player's private events never appear in this player's replay
            assert not any(
                item["event"]["data"].get("player") == other
                and item["event"]["type"] in ("ftcampaign.economy_report", "ftcampaign.group_moved")
                for item in replay["events"]
            )


async def test_umpire_export_verifies_and_imports_to_the_same_state(api, tmp_path):
    game = await _game(api)
    await _to_orders(api, game)
    for _turn in (1, 2):
        for p in ("nac", "fsr"):
            await _ok(api, game, p, {"type": "ftcampaign.submit_orders", "orders": []})
    r = await api.get(f"/v1/games/{game['game_id']}/export", headers=bearer(game["umpire_token"]))
    assert r.status_code == 200
    path = tmp_path / "campaign.jsonl"
    path.write_bytes(r.content)
    result = subprocess.run([sys.executable, str(VERIFIER), str(path)], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.startswith("OK"), result.stdout + result.stderr
    assert not result.stdout.startswith("OK 0 rolls")
    header = json.loads(r.content.split(b"\n", 1)[0])
    imp = await api.post("/v1/games/import", content=r.content)
    assert imp.status_code == 201, imp.text
    imported = imp.json()
    assert set(imported["seats"]) == {"nac", "fsr"}
    again = await api.get(f"/v1/games/{imported['game_id']}/export", headers=bearer(imported["umpire_token"]))
    assert json.loads(again.content.split(b"\n", 1)[0])["state_hash"] == header["state_hash"]
    a = (await _get(api, game, "", "umpire"))["state"]
    b = (await _get(api, imported, "", "umpire"))["state"]
    assert a == b
    # a player's export is its own redacted stream: no economy of the other player, no foreign orders
    r = await api.get(f"/v1/games/{game['game_id']}/export", headers=bearer(game["seats"]["fsr"]))
    lines = [json.loads(ln) for ln in r.content.splitlines()[1:] if ln.strip()]
    assert lines == (await _get(api, game, "/events", "fsr", limit=10000))["events"]
    assert not any(
        e["data"].get("player") == "nac"
        and e["type"] in ("ftcampaign.incomes_rolled", "ftcampaign.economy_report", "ftcampaign.ship_bought")
        for e in lines
    )
