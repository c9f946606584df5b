"""ASC over HTTP: discovery, a short game, rejections (with rule ids and without leaks), replays, battle files."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.api.asc_play import assert_no_leak
from tests.api.helpers import bearer, command

pytestmark = pytest.mark.asyncio
VERIFIER = Path(__file__).resolve().parents[2] / "clients" / "verify_dice.py"
KAISER = ("sms-kaiser", "SMS Kaiser Wilhelm")


async def _game(api, scenario: Any = "frigate-screen") -> dict[str, Any]:
    r = await api.post("/v1/games", json={"ruleset": "asc", "scenario": scenario})
    assert r.status_code == 201, r.text
    return r.json()


async def _ok(api, game, who: str, cmd: dict[str, Any]) -> dict[str, Any]:
    token = game["umpire_token"] if who == "umpire" else game["seats"][who]
    r = await command(api, game, token, cmd)
    assert r.status_code == 201, (cmd, r.text)
    return r.json()


async def _view(api, game, who: str | None = None, **params: Any) -> dict[str, Any]:
    token = None if who is None else game["umpire_token"] if who == "umpire" else game["seats"][who]
    r = await api.get(f"/v1/games/{game['game_id']}", headers=bearer(token) if token else {}, params=params)
    assert r.status_code == 200, r.text
    return r.json()


async def _to_phase(api, game, phase: str, turn: int | None = None) -> None:
    """The umpire forces the phases on until ``phase`` (of ``turn``, if given)."""
    for _ in range(40):
        v = await _view(api, game, "umpire")
        if v["phase"] == phase and (turn is None or v["turn"] == turn):
            return
        await _ok(api, game, "umpire", {"type": "asc.force_phase"})
    raise AssertionError(f"never reached {phase}")


async def _quiet_commit(api, game) -> None:
    for side in ("advantaged", "disadvantaged"):
        await _ok(api, game, side, {"type": "asc.commit_sensors", "side": side})


async def test_rulesets_list_asc_with_its_scenarios(api):
    r = await api.get("/v1/rulesets")
    asc = next(x for x in r.json()["rulesets"] if x["name"] == "asc")
    assert asc["scenarios"] == ["ambush", "carrier-strike", "frigate-screen"]
    assert any("asc.fire" in json.dumps(d) for d in asc["commands"]["$defs"].values())
    for name in asc["scenarios"]:
        r = await api.get(f"/v1/rulesets/asc/scenarios/{name}")
        assert r.status_code == 200 and r.json()["scenario"]["name"] == name


async def test_a_short_game_through_http(api):
    game = await _game(api)
    assert set(game["seats"]) == {"advantaged", "disadvantaged"}
    # the sealed commitment: the other side and the spectator learn only that it was made
    body = await _ok(
        api,
        game,
        "advantaged",
        {
            "type": "asc.commit_sensors",
            "side": "advantaged",
            "vessels": [{"vessel": "fs-aurore", "active": False, "screen": 2}],
        },
    )
    assert body["events"][0]["data"]["entries"][0]["screen"] == 2
    for who in ("disadvantaged", None):
        v = (await _view(api, game, who))["state"]
        assert v["sides"]["advantaged"]["committed"] is True and "fs-aurore" not in json.dumps(v)
        events = (
            await api.get(f"/v1/games/{game['game_id']}/events", headers=bearer(game["seats"][who]) if who else {})
        ).json()["events"]
        sealed = [e for e in events if e["type"] == "asc.sensors_committed"]
        assert sealed and sealed[0]["data"].get("entries") is None
    await _ok(
        api,
        game,
        "disadvantaged",
        {"type": "asc.commit_sensors", "side": "disadvantaged", "vessels": [{"vessel": "sms-kaiser", "active": True}]},
    )
    v = (await _view(api, game, "advantaged"))["state"]
    assert v["phase"] == "detection"
    kaiser = next(x for x in v["vessels"] if x["id"] == "sms-kaiser")  # radiating: detected (ASC-DET-2)
    assert "screen" not in kaiser["status"]
    # play the rest of the turn from the options of each seat
    for _ in range(60):
        v = await _view(api, game, "umpire")
        if v["turn"] == 2:
            break
        for side in ("disadvantaged", "advantaged"):
            opts = (await api.get(f"/v1/games/{game['game_id']}/options", headers=bearer(game["seats"][side]))).json()[
                "options"
            ]
            opts = [o["command"] for o in opts]
            ends = [o for o in opts if o["type"] == "asc.end_phase"]
            if ends:
                await _ok(api, game, side, ends[0])
                break
    assert (await _view(api, game, "umpire"))["turn"] == 2


async def test_orders_are_composed_from_forms_and_the_drawing_says_whose_step_it_is(api):
    """Issue 16 (ASC's domain side): the sealed commit is composed vessel by vessel from its form and sent
    once; the drawing tells each seat whether it must act, and /options stays small."""
    game = await _game(api)
    r = await api.get(f"/v1/games/{game['game_id']}/options", headers=bearer(game["seats"]["advantaged"]))
    assert r.status_code == 200 and len(r.content) <= 64 * 1024
    offered = r.json()
    assert all("{" not in o["label"] for o in offered["options"])
    (form,) = offered["forms"]
    assert form["command"] == "asc.commit_sensors" and form["list_key"] == "vessels"
    entries = []
    for pc in form["pieces"]:  # as the page does: one choice per field, per vessel
        fields = {f["key"]: f["values"][-1]["value"] for f in pc["fields"]}
        entries.append({form["piece_key"]: pc["piece"], **pc["fixed"], **fields})
    body = {"type": form["command"], **form["fixed"], form["list_key"]: entries}
    sent = await _ok(api, game, "advantaged", body)
    assert [(e["vessel"], e["active"], e["screen"]) for e in sent["events"][0]["data"]["entries"]] == [
        ("fs-aurore", True, 2),
        ("fs-belle-isle", True, 2),
    ]
    mine = (await _view(api, game, "advantaged"))["state"]["draw"]
    theirs = (await _view(api, game, "disadvantaged"))["state"]["draw"]
    assert mine["status"]["sealed"] and not mine["status"]["you"]["must_act"]
    assert theirs["status"]["you"]["must_act"] and theirs["status"]["you"]["why"].startswith("your move")
    assert [p["label"] for p in theirs["pieces"] if p["kind"] == "bogey"] == ["Bogey 1", "Bogey 2"]
    assert "fs-aurore" not in json.dumps(theirs) and "FS Aurore" not in json.dumps(theirs)


async def test_firing_at_an_undetected_target_reads_like_no_target_at_all(api):
    game = await _game(api)
    await _quiet_commit(api, game)
    await _to_phase(api, game, "fire")
    seat = game["seats"]["advantaged"]
    details = []
    for target in ("sms-kaiser", "zz-nothing"):
        r = await command(
            api, game, seat, {"type": "asc.fire", "vessel": "fs-aurore", "weapon": "las-fwd", "target": target}
        )
        assert r.status_code == 422 and r.headers["content-type"] == "application/problem+json"
        body = r.json()
        assert body["rule"] == "ASC-FIRE-2"
        assert "SMS Kaiser Wilhelm" not in r.text
        details.append(json.dumps(body).replace(target, "?"))
    assert details[0] == details[1]
    # nothing was appended, and the seat's view still shows the cruiser only as a bogey
    v = (await _view(api, game, "advantaged"))["state"]
    assert [b["bogey"] for b in v["bogeys"]] == ["bogey-1"] and "sms-kaiser" not in json.dumps(v)


def _tta_scenario() -> dict[str, Any]:
    def ship(vid: str, side: str, hex_: list[int], **extra: Any) -> dict[str, Any]:
        return {
            "id": vid,
            "name": vid.upper(),
            "side": side,
            "kind": "starship",
            "hex": hex_,
            "facing": 0,
            "warp_efficiency": 1.0,
            "manoeuvre": "C",
            "active_signature": 3,
            "passive_signature": 2,
            "sensors": [{"id": "act", "type": "active", "rating": 5}, {"id": "pas", "type": "passive", "rating": 4}],
            "ttas": 1,
            "hull": 10,
            "power_plant": 5,
            "crew_quality": 0,
            **extra,
        }

    guns = [
        {
            "id": g,
            "type": "normal",
            "arcs": [5, 0, 1],
            "weapon": "laser",
            "weapon_type": "laser",
            "mounts": 1,
            "targeting": 0,
            "damage": "1x1",
        }
        for g in ("las-1", "las-2")
    ]
    return {
        "name": "tta-test",
        "map_radius": 4,
        "turn_limit": 3,
        "side_names": {"advantaged": "A", "disadvantaged": "D"},
        "vessels": [
            ship("a-one", "advantaged", [0, 0], turrets=guns),
            ship("d-one", "disadvantaged", [0, 0]),
            ship("d-two", "disadvantaged", [0, 0]),
        ],
    }


async def test_more_targets_than_ttas_is_rejected(api):
    game = await _game(api, _tta_scenario())
    await _ok(api, game, "advantaged", {"type": "asc.commit_sensors", "side": "advantaged"})
    await _ok(
        api,
        game,
        "disadvantaged",
        {
            "type": "asc.commit_sensors",
            "side": "disadvantaged",
            "vessels": [{"vessel": "d-one", "active": True}, {"vessel": "d-two", "active": True}],
        },
    )
    for target in ("d-one", "d-two"):  # both radiate, so both may be locked (ASC-DET-2, ASC-DET-5)
        await _ok(api, game, "advantaged", {"type": "asc.lock", "vessel": "a-one", "target": target})
    await _to_phase(api, game, "fire")
    await _ok(api, game, "advantaged", {"type": "asc.fire", "vessel": "a-one", "weapon": "las-1", "target": "d-one"})
    r = await command(
        api,
        game,
        game["seats"]["advantaged"],
        {"type": "asc.fire", "vessel": "a-one", "weapon": "las-2", "target": "d-two"},
    )
    assert r.status_code == 422 and r.json()["rule"] == "ASC-FIRE-2" and "TTA" in r.json()["detail"]


async def test_screens_cannot_be_set_at_all_stop(api):
    game = await _game(api)
    await _quiet_commit(api, game)
    await _to_phase(api, game, "advantaged_movement")
    await _ok(api, game, "advantaged", {"type": "asc.all_stop", "vessel": "fs-aurore", "facing": 0})
    await _to_phase(api, game, "sensors", turn=2)
    r = await command(
        api,
        game,
        game["seats"]["advantaged"],
        {"type": "asc.commit_sensors", "side": "advantaged", "vessels": [{"vessel": "fs-aurore", "screen": 1}]},
    )
    assert r.status_code == 422 and r.json()["rule"] == "ASC-MOV-4", r.text


async def test_a_seat_cannot_command_the_other_sides_vessel(api):
    game = await _game(api)
    await _quiet_commit(api, game)
    await _to_phase(api, game, "disadvantaged_movement")
    bodies = []
    for vid in ("sms-kaiser", "fs-aurore", "zz-nothing"):  # hidden enemy, own-side-of-the-other, unknown
        seat = "disadvantaged" if vid == "fs-aurore" else "advantaged"
        r = await command(api, game, game["seats"][seat], {"type": "asc.move", "vessel": vid, "path": ["F"]})
        assert r.status_code == 403 and r.json()["rule"] == "ASC-HID-1", r.text
        bodies.append(json.dumps(r.json()).replace(vid, "?").replace("disadvantaged", "x").replace("advantaged", "x"))
    assert bodies[0] == bodies[2]
    assert "SMS Kaiser Wilhelm" not in bodies[0]


async def test_a_failed_hex_scan_of_a_hidden_buoy_reads_like_an_empty_hex(api):
    """ASC-HID-1: the convoy scans the hex of the raiders' (non-stutterwarp, so never a bogey) listening
    buoy; when it fails, the convoy must not learn that something was there."""
    shapes: dict[str, Any] = {}
    for attempt in range(40):
        game = await _game(api, "ambush")
        await _quiet_commit(api, game)
        hex_ = [1, 1] if attempt % 2 == 0 else [3, 1]  # the buoy's hex, an empty hex (both 4 from Vigilant)
        body = await _ok(
            api, game, "disadvantaged", {"type": "asc.detect", "vessel": "cnv-vigilant", "sensor": "pas", "hex": hex_}
        )
        env = next(e for e in body["events"] if e["type"] == "asc.detection_attempted")
        if env["data"].get("success"):
            continue  # the buoy was found (fair); try again
        events = (
            await api.get(f"/v1/games/{game['game_id']}/events", headers=bearer(game["seats"]["disadvantaged"]))
        ).json()["events"]
        seen = next(e for e in events if e["type"] == "asc.detection_attempted")
        assert seen == env
        data = {k: v for k, v in env["data"].items() if k != "hex"}
        rolls = [{k: v for k, v in r.items() if k != "value"} for r in env["rolls"]]
        shapes.setdefault(str(hex_), (data, rolls))
        if len(shapes) == 2:
            break
    assert len(shapes) == 2
    assert shapes["[1, 1]"] == shapes["[3, 1]"]


async def test_turn_replay_never_shows_more_than_the_live_view(api):
    game = await _game(api)
    await _ok(
        api,
        game,
        "advantaged",
        {"type": "asc.commit_sensors", "side": "advantaged", "vessels": [{"vessel": "fs-aurore", "screen": 2}]},
    )
    await _ok(
        api,
        game,
        "disadvantaged",
        {"type": "asc.commit_sensors", "side": "disadvantaged", "vessels": [{"vessel": "sms-kaiser", "screen": 3}]},
    )
    await _to_phase(api, game, "fire")
    await _ok(api, game, "umpire", {"type": "asc.force_phase"})  # fire resolves (nothing declared)
    for who in ("advantaged", "disadvantaged", None):
        headers = bearer(game["seats"][who]) if who else {}
        replay = (await api.get(f"/v1/games/{game['game_id']}/turns/1", headers=headers)).json()
        live = (await api.get(f"/v1/games/{game['game_id']}/events", headers=headers)).json()["events"]
        by_seq = {e["seq"]: e for e in live}
        for step in replay["events"]:
            assert step["event"] == by_seq[step["event"]["seq"]]
        assert replay["before"] == (await _view(api, game, who, at=replay["from_seq"] - 1))["state"]
        assert replay["after"] == (await _view(api, game, who, at=replay["to_seq"]))["state"]
        text = json.dumps(replay)
        if who != "disadvantaged":
            assert '"screen": 3' not in text and '"screen":3' not in text
            for needle in KAISER:
                assert needle not in text
        if who != "advantaged":
            assert '"screen": 2' not in text


async def test_umpire_export_verifies_and_imports_to_the_same_state(api, tmp_path):
    game = await _game(api, "ambush")
    await _quiet_commit(api, game)
    await _ok(
        api, game, "disadvantaged", {"type": "asc.detect", "vessel": "cnv-vigilant", "sensor": "pas", "hex": [1, 1]}
    )
    opts = (
        await api.get(f"/v1/games/{game['game_id']}/options", headers=bearer(game["seats"]["disadvantaged"]))
    ).json()["options"]
    opts = [o["command"] for o in opts]
    for cmd in [o for o in opts if o["type"] == "asc.detect"][:1]:  # more dice to verify
        await _ok(api, game, "disadvantaged", cmd)
    await _to_phase(api, game, "sensors", turn=3)
    r = await api.get(f"/v1/games/{game['game_id']}/export", headers=bearer(game["umpire_token"]))
    assert r.status_code == 200
    path = tmp_path / "battle.jsonl"
    path.write_bytes(r.content)
    result = subprocess.run([sys.executable, str(VERIFIER), str(path)], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.startswith("OK"), result.stdout + result.stderr
    assert not re.search(r"\b0 rolls verified", result.stdout)
    header = json.loads(r.content.split(b"\n", 1)[0])
    imp = await api.post("/v1/games/import", content=r.content)
    assert imp.status_code == 201, imp.text
    imported = imp.json()
    again = await api.get(f"/v1/games/{imported['game_id']}/export", headers=bearer(imported["umpire_token"]))
    assert json.loads(again.content.split(b"\n", 1)[0])["state_hash"] == header["state_hash"]
    a = (await _view(api, game, "umpire"))["state"]
    b = (await _view(api, imported, "umpire"))["state"]
    assert a == b
    # a seat's export of the same game is redacted: the raiders' buoy never appears in the convoy's file
    r = await api.get(f"/v1/games/{game['game_id']}/export", headers=bearer(game["seats"]["disadvantaged"]))
    assert_no_leak(
        r.text, _state_for_names(), {"rdr-ear", "rdr-sabre", "rdr-lance"} - _visible_ids(r.text), "seat export"
    )


def _state_for_names():
    from service.domain.asc import RULESET as R

    return R.initial_state(R.parse_setup(R.scenarios()["ambush"]))


def _visible_ids(text: str) -> set[str]:
    """Raider ids the convoy legitimately identified in its own file (a successful detection)."""
    out = set()
    for line in text.splitlines()[1:]:
        env = json.loads(line)
        if env["type"] == "asc.detection_attempted" and env["data"].get("success"):
            out.add(env["data"]["target"])
    return out


async def test_a_carrier_launches_and_recovers_a_fighter_over_http(api):
    """ASC-CRAFT-1, rulings ASC-R-30 and ASC-R-33 through the API: the page's options offer the launch; the
    raiders' view gets a new bogey and names nothing they cannot see; the raiders cannot recover it."""
    game = await _game(api, "carrier-strike")
    await _quiet_commit(api, game)
    await _to_phase(api, game, "advantaged_movement")
    token = game["seats"]["advantaged"]
    r = await api.get(f"/v1/games/{game['game_id']}/options", headers=bearer(token))
    offered = [o["command"] for o in r.json()["options"] if o["command"]["type"] == "asc.launch"]
    assert {"type": "asc.launch", "vessel": "fs-bearn", "craft": "ftr-1"} in offered
    body = await _ok(api, game, "advantaged", {"type": "asc.launch", "vessel": "fs-bearn", "craft": "ftr-1"})
    assert body["events"][0]["type"] == "asc.launched"
    raiders = await _view(api, game, "disadvantaged")
    text = json.dumps(raiders)
    assert "ftr-1" not in text and "Rafale" not in text and "fs-bearn" not in text
    assert [b["bogey"] for b in raiders["state"]["bogeys"]] == ["bogey-1", "bogey-2"]
    r = await command(api, game, game["seats"]["disadvantaged"], {"type": "asc.recover", "vessel": "ftr-1"})
    assert r.status_code == 403 and r.json()["rule"] == "ASC-HID-1"
    await _ok(api, game, "advantaged", {"type": "asc.recover", "vessel": "ftr-1"})
    raiders = await _view(api, game, "disadvantaged")
    assert [b["bogey"] for b in raiders["state"]["bogeys"]] == ["bogey-1"]
