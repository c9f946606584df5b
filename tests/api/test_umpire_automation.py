"""Umpire automation (issue 39): a three-power campaign with two bot powers, the umpire's routine duties
delegated (options.umpire "auto") and deadlines, runs to its end after its one human power stops playing
half-way: the map is generated, battles are fought as linked games whose results flow back, and the
deadlines close the weeks the human leaves open."""

from __future__ import annotations

import random
import time

import pytest
from starlette.testclient import TestClient

from service.api.app import create_app
from service.api.bot_runner import BotSeat
from service.events import ids
from service.settings import Settings
from tests.api.ftcampaign_play import pick
from tests.api.linked_battle_play import choices, command, get
from tests.support.seeded import SeededSecrets

pytestmark = pytest.mark.slow
LAST_TURN = 3
SEED = 1  # tests/api/test_linked_battles.py's: its campaign reaches a two-force battle


def _umpire(game: dict) -> dict[str, str]:
    return {"Authorization": f"Bearer {game['umpire_token']}"}


def test_a_campaign_runs_to_its_end_without_an_umpire_after_its_human_stops(sqlite_url):
    app = create_app(Settings(database_url=sqlite_url, deadline_tick_seconds=0.1))
    with TestClient(app) as client:
        scenario = client.get("/v1/rulesets/ftcampaign/scenarios/three-powers").json()
        setup = scenario["scenario"]
        setup["last_turn"] = LAST_TURN
        r = client.post(
            "/v1/games",
            json={
                "ruleset": "ftcampaign",
                "scenario": setup,
                "options": {"umpire": "auto", "deadline": {"per": "phase", "seconds": 1}},
            },
        )
        assert r.status_code == 201, r.text
        game = r.json()
        gid = game["game_id"]
        assert client.get(f"/v1/games/{gid}").json()["phase"] != "map"  # FTC-MAP-1: generated at once
        human, *computers = sorted(game["seats"])
        for seat in computers:
            r = client.post(f"/v1/games/{gid}/bots", json={"seat": seat, "bot": "rules"}, headers=_umpire(game))
            assert r.status_code == 201, r.text
        me = {"Authorization": f"Bearer {game['seats'][human]}"}
        give_up = time.monotonic() + 150
        while client.get(f"/v1/games/{gid}").json()["turn"] < 2:  # the human plays turn 1, then stops
            assert time.monotonic() < give_up, "the campaign never reached turn 2"
            offered = client.get(f"/v1/games/{gid}/options", headers=me).json()["options"]
            if offered:  # the first option each time (the bots may have moved on: a refusal is tried again)
                client.post(f"/v1/games/{gid}/commands", json={"command": offered[0]["command"]}, headers=me)
            else:
                time.sleep(0.05)
        stopped_at = client.get(f"/v1/games/{gid}").json()["version"]
        while not (view := client.get(f"/v1/games/{gid}").json())["over"]:
            assert time.monotonic() < give_up, f"the campaign stalled: turn {view['turn']}, phase {view['phase']}"
            time.sleep(0.2)
        events = client.get(f"/v1/games/{gid}/events?after=0&limit=10000", headers=_umpire(game)).json()["events"]
        later = [e for e in events if e["seq"] > stopped_at]
        assert not [e for e in later if e["actor"] == f"seat:{human}"], "the human played on"
        closes = [
            e for e in later if e["type"] == "deadline.passed" and e["data"]["command"] == "ftcampaign.close_turn"
        ]
        assert closes, "no deadline closed a week the human left open"
        assert [e["type"] for e in events].count("ftcampaign.campaign_ended") == 1


def test_a_battle_waiting_for_its_result_is_fought_as_a_linked_game(sqlite_url, monkeypatch):
    """FTC-ARR-8 without an umpire: the battle becomes a linked GSC2 game with the campaign's deadlines per
    phase, the bot powers' sides played by bots; a battle of three forces (no tactical game) is recorded as
    no victor, no losses."""
    monkeypatch.setattr(ids, "secrets", SeededSecrets(f"linked-{SEED}"))
    app = create_app(Settings(database_url=sqlite_url, deadline_tick_seconds=3600))
    with TestClient(app) as client:
        r = client.post(
            "/v1/games",
            json={
                "ruleset": "ftcampaign",
                "scenario": "three-powers",
                "options": {"umpire": "auto", "deadline": {"per": "phase", "seconds": 600}},
            },
        )
        assert r.status_code == 201, r.text
        game = r.json()
        gid, seats = game["game_id"], game["seats"]
        # the campaign's powers are "bots" as far as the automation asks (their moves are this test's)
        runner = app.state.bot_runner
        listed = runner.listed
        monkeypatch.setattr(
            runner,
            "listed",
            lambda g: [BotSeat(seat, "rules", False, None) for seat in seats] if g == gid else listed(g),
        )
        rng = random.Random(SEED)
        for _ in range(700):
            state = get(client, gid, "", game["umpire_token"])["state"]
            linked = [b for b in state["battles"] if b.get("tactical_game_id")]
            if linked:
                break
            acting = {}
            for player, token in seats.items():
                view = get(client, gid, "", token)["state"]
                if opts := choices(client, gid, token, view, player, rng):
                    acting[player] = (view, opts)
            assert acting, "the campaign waits for its umpire"
            player = rng.choice(sorted(acting))
            view, opts = acting[player]
            command(client, gid, seats[player], pick(rng, view, player, opts))
        else:
            raise AssertionError("no battle linked within the step budget")
        tactical = linked[0]["tactical_game_id"]
        deadline = get(client, tactical, "/deadline", None)["deadline"]
        assert deadline["per"] == "phase" and deadline["seconds"] == 600
        assert deadline["command"] == {"type": "gsc2.force_phase"}
        bots = get(client, tactical, "/bots", None)["bots"]
        assert sorted(b["seat"] for b in bots) == sorted(f["player"] for f in linked[0]["forces"])
        events = client.get(
            f"/v1/games/{gid}/events?after=0&limit=10000", headers={"Authorization": f"Bearer {game['umpire_token']}"}
        ).json()["events"]
        generated = [e for e in events if e["type"] == "ftcampaign.map_generated"]
        assert len(generated) == 1 and generated[0]["actor"] == "umpire"
