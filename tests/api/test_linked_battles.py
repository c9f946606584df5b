"""Campaign battles fought as linked GSC2 games, their results flowing back by themselves (FTC-ARR-8, -12).

A three-player campaign is driven over HTTP to a battle; the umpire starts the linked GSC2 game; the
players play it with their campaign tokens; the campaign then holds the outcome without any hand entry,
exactly once — also when the service stopped between the tactical game's end and the campaign's update.
"""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

from service.api.app import create_app
from service.events import ids
from service.settings import Settings
from tests.api.linked_battle_play import (
    battle_records,
    get,
    pick_leaver,
    play_gsc2,
    sail_off,
    start_linked_battle,
)
from tests.api.watched_game import auth
from tests.support.seeded import SeededSecrets

SEED = 1


def _app(url: str) -> Any:
    return create_app(Settings(database_url=url, snapshot_every=50, heartbeat_seconds=0.3))


def _check_outcome(client: TestClient, game: dict[str, Any], battle: dict[str, Any], tid: str) -> None:
    recorded = battle_records(client, game)
    assert len(recorded) == 1, f"recorded {len(recorded)} times"
    rec = recorded[0]
    assert rec["actor"] == "umpire" and rec["data"]["tactical_game_id"] == tid
    final = get(client, tid, "", None)["state"]
    assert rec["data"]["victor"] == final["winner"]
    by_ship = {r["ship"]: r for r in rec["data"]["ships"]}
    for ship in final["ships"]:
        lost = ship["max_hull"] - ship["hull"]
        if ship["status"] == "destroyed":
            assert by_ship[ship["id"]]["destroyed"], ship["id"]
        elif lost:
            assert by_ship[ship["id"]]["hull_lost"] == lost, ship["id"]
        else:
            assert ship["id"] not in by_ship or not by_ship[ship["id"]]["hull_lost"]
    state = get(client, game["game_id"], "", game["umpire_token"])["state"]
    assert battle["id"] not in [b["id"] for b in state["battles"]], "the battle is still waiting for a result"


@pytest.fixture
def seeded(monkeypatch):
    monkeypatch.setattr(ids, "secrets", SeededSecrets(f"linked-{SEED}"))


def test_ftc_arr_8_linked_battle_result_flows_back_without_hand_entry(sqlite_url, seeded) -> None:
    with TestClient(_app(sqlite_url)) as client:
        game, battle, started = start_linked_battle(client, SEED)
        tid = started["tactical_game_id"]
        sides = [f["player"] for f in battle["forces"]]
        assert started["sides"] == sides and set(started["seats"]) == set(sides)
        tactical = get(client, tid, "", None)
        assert tactical["ruleset"] == "gsc2" and tactical["state"]["sides"] == sides
        # the campaign's tokens open the tactical seats; a third player's opens nothing there
        for player in sides:
            assert get(client, tid, "", game["seats"][player])["viewer"] == f"seat:{player}"
        outsider = next(p for p in game["seats"] if p not in sides)
        r = client.get(f"/v1/games/{tid}", headers=auth(game["seats"][outsider]))
        assert r.status_code == 401, r.text
        assert get(client, tid, "", game["umpire_token"])["viewer"] == "umpire"
        # the tactical game says where it comes from; a game not linked says so with nulls
        link = get(client, tid, "/link", None)
        assert (link["campaign"], link["battle"], link["sides"]) == (game["game_id"], battle["id"], sides)
        assert get(client, game["game_id"], "/link", None)["campaign"] is None
        assert client.get("/v1/games/g_0000000000000000/link").status_code == 404
        # starting it again hands back the same game
        again = client.post(
            f"/v1/games/{game['game_id']}/battles/{battle['id']}/tactical", headers=auth(game["umpire_token"])
        )
        assert again.status_code == 200 and again.json()["tactical_game_id"] == tid
        # the campaign links the battle for its participants only
        for player in sides:
            mine = get(client, game["game_id"], "", game["seats"][player])["state"]
            assert any(b.get("tactical_game_id") == tid for b in mine["battles"])
        for viewer in (outsider, None):
            token = game["seats"][viewer] if viewer else None
            seen = client.get(f"/v1/games/{game['game_id']}/events", headers=auth(token), params={"limit": 10000}).text
            assert tid not in seen and "battle_linked" not in seen
            assert tid not in client.get(f"/v1/games/{game['game_id']}", headers=auth(token)).text
        assert not battle_records(client, game)
        # the players fight it with their campaign tokens; nobody enters the result
        play_gsc2(client, tid, {p: game["seats"][p] for p in sides}, SEED)
        _check_outcome(client, game, battle, tid)
        # a hand entry for the linked battle is refused, naming the rule
        r = command_problem(client, game, {"type": "ftcampaign.record_battle", "battle": battle["id"]})
        assert r["rule"] == "FTC-ARR-8"
        # the campaign's turn replay explains the result by pointing into the tactical game's replay
        turn = battle_records(client, game)[0]["turn"]
        replay = get(client, game["game_id"], f"/turns/{turn}", game["umpire_token"])
        text = next(s["text"] for s in replay["events"] if s["event"]["type"] == "ftcampaign.battle_recorded")
        assert f"/v1/games/{tid}/turns/" in text


def command_problem(client: TestClient, game: dict[str, Any], cmd: dict[str, Any]) -> dict[str, Any]:
    r = client.post(f"/v1/games/{game['game_id']}/commands", json={"command": cmd}, headers=auth(game["umpire_token"]))
    assert r.status_code == 422, r.text
    return r.json()


# A stop between the tactical end and the campaign append: tests/api/test_linked_crash.py kills the real
# process there (SIGKILL) and restarts it twice; the reconcile records the result once.


def test_ftc_r_lnk_6_ships_that_disengage_return_to_the_campaign_as_survivors(sqlite_url, seeded) -> None:
    """FTC-R-LNK-6 over the API: one force disengages (FTC-ARR-11, GSC2-R-20); the campaign records its group
    departing (FTC-ARR-10) toward the hexside it broke away toward, its ships alive, the force defeated; no hand
    entry."""
    with TestClient(_app(sqlite_url)) as client:
        game, battle, started = start_linked_battle(client, SEED)
        tid = started["tactical_game_id"]
        sides = [f["player"] for f in battle["forces"]]
        leaver = pick_leaver(client, tid, sides)
        stayer = next(p for p in sides if p != leaver)
        force = next(f for f in battle["forces"] if f["player"] == leaver)
        before = {g["id"]: g for g in get(client, game["game_id"], "", game["umpire_token"])["state"]["groups"]}
        departing = sorted(g for g in force["groups"] if not before[g]["cloaked"])  # FTC-ARR-10
        assert departing, "the seeded campaign has the leaver's groups uncloaked"
        sail_off(client, tid, {p: game["seats"][p] for p in sides}, leaver)
        final = get(client, tid, "", None)["state"]
        gone = [s for s in final["ships"] if s["side"] == leaver]
        assert gone and all(s["status"] == "left" for s in gone), [s["status"] for s in gone]
        assert final["winner"] == stayer  # GSC2-R-20 as GSC2-R-18: a side whose ships are all gone has lost
        [rec] = battle_records(client, game)
        assert sorted(d["group"] for d in rec["data"]["left"]) == departing
        assert rec["data"]["defeated"] == [leaver] and rec["data"]["victor"] == stayer
        assert not any(r["destroyed"] for r in rec["data"]["ships"])
        events = get(client, game["game_id"], "/events", game["umpire_token"], limit=10000)["events"]
        after = events[[e["seq"] for e in events].index(rec["seq"]) + 1 :]
        departed = [e["data"] for e in after[: len(departing)] if e["type"] == "ftcampaign.departed"]
        assert all(d["reason"] == "left the battle" and d["player"] == leaver for d in departed)
        assert sorted(d["group"] for d in departed) == departing
        state = get(client, game["game_id"], "", game["umpire_token"])["state"]
        groups = {g["id"]: g for g in state["groups"]}
        for gid in departing:  # in FTL toward the hexside matching the edge, its ships alive
            assert groups[gid]["hex"] is None and groups[gid]["ftl_to"] is not None, groups[gid]
        ships = {s["id"] for g in state["groups"] for s in g["ships"]}
        assert {s["id"] for s in gone} <= ships, "a ship that disengaged is a survivor in the campaign"
