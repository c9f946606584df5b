"""Rewinds, forks, battle files and the standalone dice verifier (tiny ruleset; rulesets add their own)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.api.helpers import SHOOT_RED, bearer, command, new_game

pytestmark = pytest.mark.asyncio
VERIFIER = Path(__file__).resolve().parents[2] / "clients" / "verify_dice.py"


async def _play_two_turns(api, game):
    red, blue = game["seats"]["red"], game["seats"]["blue"]
    for _ in range(2):
        await command(api, game, red, SHOOT_RED)
        await command(api, game, blue, {"type": "tiny.shoot", "shooter": "blue", "target": "red"})
        for _phase in range(2):
            for who, token in (("red", red), ("blue", blue)):
                assert (await command(api, game, token, {"type": "tiny.end_phase", "seat": who})).status_code == 201


async def _export(api, game, token=None):
    r = await api.get(f"/v1/games/{game['game_id']}/export", headers=bearer(token) if token else {})
    assert r.status_code == 200 and r.headers["content-type"] == "application/x-ndjson"
    return r.content


def _verify(tmp_path, content: bytes) -> subprocess.CompletedProcess:
    path = tmp_path / "battle.jsonl"
    path.write_bytes(content)
    return subprocess.run([sys.executable, str(VERIFIER), str(path)], capture_output=True, text=True)


async def test_rewind_marks_superseded_and_replays_the_same_dice(api):
    game = await new_game(api, scenario="long")
    red = game["seats"]["red"]
    first = [(await command(api, game, red, SHOOT_RED)).json()["events"][0] for _ in range(3)]
    r = await api.post(
        f"/v1/games/{game['game_id']}/rewind", json={"to_seq": 2, "reason": "disputed"}, headers=bearer(red)
    )
    assert r.status_code == 403  # a seat cannot rewind
    r = await api.post(
        f"/v1/games/{game['game_id']}/rewind",
        json={"to_seq": 2, "reason": "disputed"},
        headers=bearer(game["umpire_token"]),
    )
    assert r.status_code == 201 and r.json()["rewound_to"] == 2
    view = (await api.get(f"/v1/games/{game['game_id']}")).json()
    assert view["state"]["hull"]["blue"] == 1000  # the fold skips the superseded shots
    events = (await api.get(f"/v1/games/{game['game_id']}/events")).json()["events"]
    assert [e["superseded"] for e in events if e["type"] == "tiny.shot"] == [True, True, True]
    again = [(await command(api, game, red, SHOOT_RED)).json()["events"][0] for _ in range(3)]
    assert [e["rolls"] for e in again] == [e["rolls"] for e in first]  # no fishing for new dice
    assert [e["seq"] for e in again] == [7, 8, 9]


async def test_rewind_to_the_start_of_a_turn(api):
    game = await new_game(api)
    await _play_two_turns(api, game)
    r = await api.post(f"/v1/games/{game['game_id']}/rewind", json={"turn": 2}, headers=bearer(game["umpire_token"]))
    assert r.status_code == 201
    view = (await api.get(f"/v1/games/{game['game_id']}")).json()
    assert (view["turn"], view["phase"]) == (2, "fire")
    bad = await api.post(f"/v1/games/{game['game_id']}/rewind", json={"turn": 99}, headers=bearer(game["umpire_token"]))
    assert bad.status_code == 422 and bad.json()["field"] == "turn"


async def test_fork_is_a_linked_sandbox_that_never_touches_the_original(api):
    game = await new_game(api, scenario="long")
    red = game["seats"]["red"]
    for _ in range(4):
        await command(api, game, red, SHOOT_RED)
    r = await api.post(f"/v1/games/{game['game_id']}/fork", params={"at": 4}, headers=bearer(red))
    assert r.status_code == 403  # tiny declares no public-only information: only the umpire forks
    r = await api.post(f"/v1/games/{game['game_id']}/fork", params={"at": 4}, headers=bearer(game["umpire_token"]))
    assert r.status_code == 201
    fork = r.json()
    original = (await api.get(f"/v1/games/{game['game_id']}", params={"at": 4})).json()["state"]
    forked = (await api.get(f"/v1/games/{fork['game_id']}")).json()["state"]
    assert forked["hull"] == original["hull"]
    created = (await api.get(f"/v1/games/{fork['game_id']}/events")).json()["events"][0]
    assert created["data"]["forked_from"] == game["game_id"] and created["data"]["forked_at"] == 4
    before = (await api.get(f"/v1/games/{game['game_id']}")).json()["version"]
    for _ in range(3):
        assert (await command(api, fork, fork["seats"]["red"], SHOOT_RED)).status_code == 201
    assert (await api.get(f"/v1/games/{game['game_id']}")).json()["version"] == before


async def test_export_import_round_trip_and_verifier(api, tmp_path):
    game = await new_game(api)
    await _play_two_turns(api, game)
    content = await _export(api, game, game["umpire_token"])
    header = json.loads(content.split(b"\n", 1)[0])
    assert header["format"] == "salvo-battle/2" and header["ruleset_version"] == "1.0"
    assert header["signature"]["alg"] == "Ed25519" and len(header["digests"]) == header["events"]
    result = _verify(tmp_path, content)
    assert result.returncode == 0 and result.stdout.startswith("OK")
    assert not re.search(r"\b0 rolls verified", result.stdout), result.stdout  # ("10 rolls verified" is fine)
    r = await api.post("/v1/games/import", content=content)
    assert r.status_code == 201, r.text
    imported = r.json()
    a = (await api.get(f"/v1/games/{game['game_id']}", headers=bearer(game["umpire_token"]))).json()["state"]
    b = (await api.get(f"/v1/games/{imported['game_id']}", headers=bearer(imported["umpire_token"]))).json()["state"]
    assert a == b
    again = await _export(api, imported, imported["umpire_token"])
    assert json.loads(again.split(b"\n", 1)[0])["state_hash"] == header["state_hash"]


async def test_tampered_roll_is_caught_by_verifier_and_import(api, tmp_path):
    game = await new_game(api)
    await _play_two_turns(api, game)
    lines = (await _export(api, game, game["umpire_token"])).decode().splitlines()
    index = next(i for i, ln in enumerate(lines) if '"tiny.shot"' in ln)
    env = json.loads(lines[index])
    env["rolls"][0]["value"] = env["rolls"][0]["value"] % 10 + 1
    lines[index] = json.dumps(env)
    tampered = ("\n".join(lines) + "\n").encode()
    result = _verify(tmp_path, tampered)
    assert result.returncode == 1 and f"MISMATCH seq {env['seq']} roll 0" in result.stdout
    r = await api.post("/v1/games/import", content=tampered)
    assert r.status_code == 422 and r.json()["field"] == f"line {index + 1}"
    header = json.loads(lines[0])
    header["digests"] = []  # a forger who drops the digests is refused: the chain is part of the format
    no_digests = ("\n".join([json.dumps(header)] + lines[1:]) + "\n").encode()
    r = await api.post("/v1/games/import", content=no_digests)
    assert r.status_code == 422 and r.json()["field"] == "line 1" and "digests" in r.json()["detail"]
    del header["signature"]  # ... and, asked to accept an unsigned file, the dice still catch the roll
    r = await api.post(
        "/v1/games/import",
        content=no_digests.replace(lines[0].encode(), json.dumps(header).encode()),
        params={"allow_unverified": "true"},
    )
    assert r.status_code == 422 and r.json()["field"] == "line 1"


async def test_import_rejects_gaps_and_altered_outcomes(api):
    game = await new_game(api)
    await _play_two_turns(api, game)
    lines = (await _export(api, game, game["umpire_token"])).decode().splitlines()
    gap = "\n".join(lines[:3] + lines[4:]).encode()
    r = await api.post("/v1/games/import", content=gap)
    assert r.status_code == 422 and r.json()["field"] == "line 4" and "chain breaks" in r.json()["detail"]
    index = next(i for i, ln in enumerate(lines) if '"tiny.phase_done"' in ln)
    env = json.loads(lines[index])
    env["data"]["seat"] = "blue" if env["data"]["seat"] == "red" else "red"
    altered = "\n".join(lines[:index] + [json.dumps(env)] + lines[index + 1 :]).encode()
    r = await api.post("/v1/games/import", content=altered)
    assert r.status_code == 422 and r.json()["field"] == f"line {index + 1}" and "chain" in r.json()["detail"]
    r = await api.post("/v1/games/import", content=b'{"format":"nope"}\n')
    assert r.status_code == 422 and r.json()["field"] == "line 1"


async def test_no_salt_fishing_after_a_rewind_into_a_revealed_turn(api):
    game = await new_game(api)
    await _play_two_turns(api, game)  # turn 1's seed is public now
    r = await api.post(f"/v1/games/{game['game_id']}/rewind", json={"turn": 1}, headers=bearer(game["umpire_token"]))
    assert r.status_code == 201
    r = await api.post(
        f"/v1/games/{game['game_id']}/commands",
        headers=bearer(game["seats"]["red"]),
        json={"command": SHOOT_RED, "salt": "chosen-offline"},
    )
    [shot] = r.json()["events"]
    assert "salt" not in shot["dice"]  # the salt was ignored: the public seed alone decides


async def test_turn_replay_after_view_is_the_end_of_that_turn(api):
    game = await new_game(api)
    await _play_two_turns(api, game)
    replay = (await api.get(f"/v1/games/{game['game_id']}/turns/1")).json()
    assert replay["after"]["turn"] == 1 and replay["after"]["phase"] == "end"


async def test_hidden_information_seeds_are_withheld_until_the_game_ends(api, tmp_path):
    """A revealed seed would let a player recompute rolls of events hidden from it (their seqs show as
    gaps), so a hidden-information game (tiny declares one) shows players `dice.revealed` without the seed
    and discloses every seed when it ends; then anyone can verify every roll they saw."""
    game = await new_game(api, scenario={"hull": 2, "turn_limit": 50})
    red, blue = game["seats"]["red"], game["seats"]["blue"]
    gid = game["game_id"]
    for _ in range(60):
        view = (await api.get(f"/v1/games/{gid}")).json()
        if view["over"]:
            break
        await command(api, game, red, SHOOT_RED)
        for who, token in (("red", red), ("blue", blue), ("red", red), ("blue", blue)):
            await command(api, game, token, {"type": "tiny.end_phase", "seat": who})
        if view["turn"] == 1:
            events = (await api.get(f"/v1/games/{gid}/events", headers=bearer(blue))).json()["events"]
            reveal = next(e for e in events if e["type"] == "dice.revealed")
            assert reveal["data"]["seed"] == "" and "openings" not in reveal["data"]
            assert [k["slot"] for k in reveal["data"]["keys"]] == [0]  # red's one shot, which blue saw
            umpire = (await api.get(f"/v1/games/{gid}/events", headers=bearer(game["umpire_token"]))).json()
            assert next(e for e in umpire["events"] if e["type"] == "dice.revealed")["data"]["seed"]
    assert (await api.get(f"/v1/games/{gid}")).json()["over"]
    content = await _export(api, game, blue)
    disclosed = [json.loads(ln) for ln in content.splitlines()[1:] if b'"dice.disclosed"' in ln]
    assert len(disclosed) == 1 and len(disclosed[0]["data"]["seeds"]) >= 2
    result = _verify(tmp_path, content)
    assert result.returncode == 0 and not re.search(r"\b0 rolls verified", result.stdout), result.stdout
    r = await api.post("/v1/games/import", content=content)  # a seat's record is verified, never imported
    assert r.status_code == 422 and r.json()["field"] == "line 1" and "viewer" in r.json()["detail"], r.text
