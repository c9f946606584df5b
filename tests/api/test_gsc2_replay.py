"""GSC2 disputes over HTTP: turn replays explained, dice verified, battle files, rewinds and forks."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from service.domain.gsc2 import RULESET
from tests.api.gsc2_play import Played, new_gsc2_game, play, post, start
from tests.api.helpers import bearer, options, version, view

pytestmark = pytest.mark.asyncio
VERIFIER = Path(__file__).resolve().parents[2] / "clients" / "verify_dice.py"
RULE_ID = re.compile(r"^GSC2-[A-Z]+-\d+$")
FIRE = ("gsc2.fire",)  # always shoot when a battery bears: the turns then have rolls to dispute


async def _reach(api, seed: int, until, ok, attempts: int = 6) -> tuple[dict, Played]:
    """Play duels (through /options) until ``until(summary, played)``; keep the first where ``ok(summary)``.

    Dice come from fresh secret seeds, so a duel is not repeatable: now and then a ship dies early. A new
    game is then played (the odds that six in a row miss are negligible), so the tests do not flicker.
    """
    summary: dict = {}
    for attempt in range(attempts):
        game = await new_gsc2_game(api)
        played = Played()
        await start(api, game, played)
        await play(
            api, game, random.Random(seed + attempt), until=lambda s, p=played: until(s, p), played=played, eager=FIRE
        )
        summary = await view(api, game)
        if ok(summary):
            return game, played
    raise AssertionError(f"no duel reached the wanted point in {attempts} games: {summary['state']['result']}")


async def _two_turns(api, seed: int = 1) -> tuple[dict, Played]:
    """A duel played until turn 3 begins: the seeds of turns 1 and 2 are revealed, the game goes on."""
    return await _reach(
        api, seed, until=lambda s, _p: s["turn"] >= 3 or s["over"], ok=lambda s: s["turn"] == 3 and not s["over"]
    )


async def _export(api, game, token: str | None) -> bytes:
    r = await api.get(f"/v1/games/{game['game_id']}/export", headers=bearer(token) if token else {})
    assert r.status_code == 200 and r.headers["content-type"] == "application/x-ndjson"
    return r.content


def _verify(tmp_path, content: bytes, name: str = "battle.jsonl") -> subprocess.CompletedProcess:
    path = tmp_path / name
    path.write_bytes(content)
    return subprocess.run([sys.executable, str(VERIFIER), str(path)], capture_output=True, text=True, timeout=60)


def _lines(content: bytes) -> list[dict]:
    return [json.loads(line) for line in content.splitlines() if line.strip()]


async def test_turn_replay_explains_every_roll(api):
    game, _ = await _two_turns(api)
    gid = game["game_id"]
    fired = 0
    for turn in (1, 2):
        r = await api.get(f"/v1/games/{gid}/turns/{turn}")
        assert r.status_code == 200, r.text
        replay = r.json()
        assert replay["turn"] == turn and replay["phase"] is None
        # the view before the turn is the state at the seq before its first event; after, at its last
        # rules event (the seed reveal that follows the next turn's opening does not count)
        before = await view(api, game, at=replay["from_seq"] - 1)
        last_rules = max(
            step["event"]["seq"] for step in replay["events"] if not step["event"]["type"].startswith("dice.")
        )
        after = await view(api, game, at=last_rules)
        assert after["state"]["turn"] == turn
        assert replay["before"] == before["state"] and replay["after"] == after["state"]
        if turn == 1:
            assert replay["from_seq"] == 1 and replay["before"]["phase"] == "setup"
            assert {s["id"]: s["hull"] for s in replay["before"]["ships"]} == {"hood": 24, "bismarck": 26}
        # every event of the turn, in order (the turn's seed is revealed by the command that opens the next
        # turn, after that turn's first events: those belong to the next turn and are left out)
        span = {"after": replay["from_seq"] - 1, "limit": replay["to_seq"] - replay["from_seq"] + 1}
        everything = (await api.get(f"/v1/games/{gid}/events", params=span)).json()["events"]
        seqs = [step["event"]["seq"] for step in replay["events"]]
        assert seqs == [e["seq"] for e in everything if e["turn"] == turn]
        assert seqs[0] == replay["from_seq"] and seqs[-1] == replay["to_seq"]
        assert [step["event"] for step in replay["events"]] == [e for e in everything if e["turn"] == turn]
        assert replay["events"][-1]["event"]["type"] == "dice.revealed"
        for step in replay["events"]:
            env, text = step["event"], step["text"]
            assert env["turn"] == turn and text.strip() and "\n" not in text
            for roll in env.get("rolls", []):
                assert RULE_ID.match(roll["rule"]), roll
                assert 1 <= roll["value"] <= int(roll["die"].lstrip("d")) and roll["purpose"]
                for mod in roll.get("modifiers", []):
                    assert RULE_ID.match(mod["rule"]) and mod["why"] and isinstance(mod["value"], int), mod
            if env["type"] == "gsc2.beam_fired":
                fired += 1
                [roll] = env["rolls"]
                assert roll["rule"] == "GSC2-HIT-1" and roll["modifiers"], roll  # aspect at least
                assert roll["outcome"] == ("hit" if env["data"]["hit"] else "miss")
                assert text.startswith(env["data"]["ship_name"])  # the firing ship names the line
                assert f"rolled {roll['value']}" in text and env["data"]["target_name"] in text
                assert f"needs ≤ {roll['target']}" in text
        by_phase = await api.get(f"/v1/games/{gid}/turns/{turn}", params={"phase": "beams"})
        assert by_phase.status_code == 200
        beams = by_phase.json()["events"]
        assert beams and all(s["event"]["phase"] == "beams" for s in beams)
        assert [s["event"]["seq"] for s in beams] == [
            s["event"]["seq"] for s in replay["events"] if s["event"]["phase"] == "beams"
        ]
        assert by_phase.json()["before"] == (await view(api, game, at=by_phase.json()["from_seq"] - 1))["state"]
    assert fired > 0, "no battery fired in two turns of a duel"
    assert (await api.get(f"/v1/games/{gid}/turns/2", params={"phase": "nope"})).status_code == 404
    assert (await api.get(f"/v1/games/{gid}/turns/40")).status_code == 404


async def test_export_verifies_and_tampering_is_named(api, tmp_path):
    game, _ = await _two_turns(api)
    content = await _export(api, game, game["umpire_token"])
    lines = _lines(content)
    header, events = lines[0], lines[1:]
    assert header["format"] == "salvo-battle/2" and header["ruleset"] == "gsc2" and header["events"] == len(events)
    revealed = {e["data"]["turn"] for e in events if e["type"] == "dice.revealed"}
    assert revealed == {1, 2}
    expected = sum(len(e["rolls"]) for e in events if e.get("dice") and e["dice"]["turn"] in revealed)
    assert expected > 0
    result = _verify(tmp_path, content)
    assert result.returncode == 0, result.stdout
    assert result.stdout.startswith(f"OK {expected} rolls verified over 2 revealed turns"), result.stdout

    seat_copy = await _export(api, game, game["seats"]["blue"])  # nothing is hidden in GSC2: seats verify too
    assert _verify(tmp_path, seat_copy, "blue.jsonl").stdout.startswith(f"OK {expected} rolls")

    raw = content.decode().splitlines()
    index = next(i for i, ln in enumerate(raw) if '"gsc2.beam_fired"' in ln)
    env = json.loads(raw[index])
    env["rolls"][0]["value"] = env["rolls"][0]["value"] % 10 + 1
    raw[index] = json.dumps(env)
    tampered = ("\n".join(raw) + "\n").encode()
    result = _verify(tmp_path, tampered, "tampered.jsonl")
    assert result.returncode == 1 and result.stdout.startswith(f"MISMATCH seq {env['seq']} roll 0"), result.stdout
    assert "GSC2-HIT-1" in result.stdout
    r = await api.post("/v1/games/import", content=tampered)
    assert r.status_code == 422 and r.json()["field"] == f"line {index + 1}"


async def test_export_import_round_trip(api, tmp_path):
    game, _ = await _two_turns(api)
    content = await _export(api, game, game["umpire_token"])
    header = json.loads(content.split(b"\n", 1)[0])
    r = await api.post("/v1/games/import", content=content)
    assert r.status_code == 201, r.text
    imported = r.json()
    assert imported["imported_from"] == game["game_id"] and imported["game_id"] != game["game_id"]
    original = await view(api, game, game["umpire_token"])
    copy = await view(api, imported, imported["umpire_token"])
    assert copy["state"] == original["state"] and (copy["turn"], copy["phase"]) == (original["turn"], original["phase"])
    again = await _export(api, imported, imported["umpire_token"])
    assert json.loads(again.split(b"\n", 1)[0])["state_hash"] == header["state_hash"]
    result = _verify(tmp_path, again, "imported.jsonl")  # inherited rolls point back at their origin game
    assert result.returncode == 0 and "inherited from an origin game" in result.stdout, result.stdout
    # the copy is a live game: its seats go on from where the original stood
    offered = [(t, c) for t in imported["seats"].values() for c in await options(api, imported, t)]
    assert offered
    token, cmd = offered[0]
    assert (await post(api, imported, token, cmd)).status_code == 201
    assert (await view(api, game))["version"] == original["version"]


async def test_rewind_to_a_turn_replays_the_same_dice(api):
    def mid_turn_two(summary: dict, played: Played) -> bool:  # stop once turn 2's batteries have rolled
        return (
            summary["over"]
            or summary["turn"] >= 3
            or (
                summary["turn"] == 2
                and any(e["type"] == "gsc2.beam_fired" and e["turn"] == 2 for e in played.bodies[-1]["events"])
            )
        )

    game, played = await _reach(api, 5, until=mid_turn_two, ok=lambda s: s["turn"] == 2 and not s["over"])
    live = await view(api, game, game["umpire_token"])
    assert live["turn"] == 2 and not live["over"], (live["turn"], live["state"]["result"])
    umpire = game["umpire_token"]
    r = await api.post(
        f"/v1/games/{game['game_id']}/rewind",
        json={"turn": 2, "reason": "disputed"},
        headers=bearer(game["seats"]["red"]),
    )
    assert r.status_code == 403 and (await view(api, game))["version"] == live["version"]
    r = await api.post(
        f"/v1/games/{game['game_id']}/rewind", json={"turn": 2, "reason": "disputed"}, headers=bearer(umpire)
    )
    assert r.status_code == 201, r.text
    to_seq = r.json()["rewound_to"]
    assert r.json()["version"] == live["version"] + 1
    rewound = await view(api, game, umpire)
    assert (rewound["turn"], rewound["phase"]) == (2, "movement")
    assert rewound["state"] == (await view(api, game, umpire, at=to_seq))["state"]

    # the commands of turn 2 (those appended after the rewind point), sent again in the same order
    redo = [
        (who, cmd, body)
        for (who, cmd, _status), body in zip(played.posts, played.bodies, strict=True)
        if body["events"] and body["events"][0]["seq"] > to_seq
    ]
    assert redo and any(e.get("rolls") for _who, _cmd, body in redo for e in body["events"])
    tokens = {**game["seats"], "umpire": umpire}
    for who, cmd, body in redo:
        again = await post(api, game, tokens[who], cmd)
        assert again.status_code == 201, (cmd, again.text)
        first, second = body["events"], again.json()["events"]
        assert [e["type"] for e in second] == [e["type"] for e in first]
        assert [e.get("rolls") for e in second] == [e.get("rolls") for e in first]  # no fishing for new dice
        assert [e["data"] for e in second] == [e["data"] for e in first]
    assert (await view(api, game, umpire))["state"] == live["state"]
    events = (
        await api.get(f"/v1/games/{game['game_id']}/events", params={"limit": 10000}, headers=bearer(umpire))
    ).json()["events"]
    superseded = [e["seq"] for e in events if e.get("superseded")]
    assert superseded == list(range(to_seq + 1, live["version"] + 1))


async def test_a_seat_may_fork_a_gsc2_game(api):
    assert getattr(RULESET, "hidden_information", True) is False  # GSC2: everything is on the table
    game, played = await _two_turns(api)
    at = played.versions[len(played.versions) // 2]
    original_at = await view(api, game, at=at)
    before = await view(api, game, game["umpire_token"])
    r = await api.post(f"/v1/games/{game['game_id']}/fork", params={"at": at}, headers=bearer(game["seats"]["blue"]))
    assert r.status_code == 201, r.text
    fork = r.json()
    assert fork["forked_from"] == game["game_id"] and fork["forked_at"] == at and set(fork["seats"]) == {"red", "blue"}
    forked = await view(api, fork)
    assert forked["state"] == original_at["state"] and (forked["turn"], forked["phase"]) == (
        original_at["turn"],
        original_at["phase"],
    )
    created = (await api.get(f"/v1/games/{fork['game_id']}/events")).json()["events"][0]
    assert created["data"]["forked_from"] == game["game_id"] and created["data"]["forked_at"] == at
    # play on in the fork; the original does not move
    await play(
        api, fork, random.Random(3), until=lambda s: s["version"] >= forked["version"] + 10 or s["over"], eager=FIRE
    )
    assert await version(api, fork) > forked["version"]
    after = await view(api, game, game["umpire_token"])
    assert after["version"] == before["version"] and after["state"] == before["state"]
    assert (await view(api, game, at=at))["state"] == original_at["state"]
    # the fork's tokens are its own: they do not act on the original
    r = await post(api, game, fork["seats"]["red"], {"type": "gsc2.end_phase", "side": "red"})
    assert r.status_code == 401 and await version(api, game) == before["version"]
