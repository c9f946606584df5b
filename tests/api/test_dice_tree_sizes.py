"""A turn's Merkle tree sized by the turn before, and extended once a turn's rolls pass half of it
(docs/dice.md, "Tree sizes"): every roll a seat saw is still verified by key when its turn ends, a key
of the turn's first tree against the root committed before the turn's first command, and a slot first
rolled beyond every root committed by then gets no key (it waits for the disclosure)."""

from __future__ import annotations

import msgspec
from starlette.testclient import TestClient

from clients.verify_dice import Dice
from service.api.app import create_app
from service.domain.core import Event, merkle
from service.domain.core.dice import Roll
from service.events.dice_slots import TurnLedger
from service.events.envelope import DiceMaterial
from service.settings import Settings
from tests.api.watched_game import auth

SHOT = {"red": {"type": "tiny.shoot", "shooter": "red", "target": "blue"}}
SHOT["blue"] = {"type": "tiny.shoot", "shooter": "blue", "target": "red"}
END = [("red", "end"), ("blue", "end"), ("red", "end"), ("blue", "end")]  # both phases of a turn


def test_turn_trees_follow_the_turn_before_and_grow_past_half(sqlite_url):
    with TestClient(create_app(Settings(database_url=sqlite_url))) as client:
        game = client.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
        gid, tokens = game["game_id"], game["seats"]

        def send(who: str, what: str) -> None:
            cmd = SHOT[who] if what == "shoot" else {"type": "tiny.end_phase", "seat": who}
            r = client.post(f"/v1/games/{gid}/commands", json={"command": cmd, "salt": who}, headers=auth(tokens[who]))
            assert r.status_code == 201, r.text

        def events(who: str) -> list[dict]:
            r = client.get(f"/v1/games/{gid}/events", params={"limit": 10000}, headers=auth(tokens[who]))
            return r.json()["events"]

        for who, what in [("red", "shoot"), ("blue", "shoot"), *END]:  # turn 1: two slots
            send(who, what)
        for i in range(20):  # turn 2: twenty slots, past half of its tree after the 17th
            send(("red", "blue")[i % 2], "shoot")
        for who, what in END:
            send(who, what)

        red = events("red")
        committed = [e["data"] for e in red if e["type"] == "dice.committed"]
        by_turn = {}
        for c in committed:
            by_turn.setdefault(c["turn"], []).append(c["slots"])
        assert by_turn[1] == [merkle.TREE_SLOTS]  # the game's first turn: no turn before it to go by
        assert by_turn[2] == [merkle.MIN_SLOTS, 2 * merkle.MIN_SLOTS]  # its first tree, then the extension
        assert by_turn[3] == [64]  # twenty slots used: room for forty
        first, extended = [c for c in committed if c["turn"] == 2]
        assert first["commitment"] == extended["commitment"]  # the same seed
        (extension,) = [e for e in red if e["type"] == "dice.committed" and e["data"] is extended]
        shots = [e for e in red if e["type"] == "tiny.shot" and e["dice"]["turn"] == 2]
        # committed right after the command whose roll took slot 16, before the next command
        assert [s["dice"]["slot"] for s in shots if s["seq"] < extension["seq"]] == list(range(17))

        reveal = next(e for e in red if e["type"] == "dice.revealed" and e["data"]["turn"] == 2)
        assert reveal["data"]["slots"] == 2 * merkle.MIN_SLOTS
        assert sorted(k["slot"] for k in reveal["data"]["keys"]) == list(range(20))  # every roll red saw
        dice = Dice()
        for env in red:
            assert dice.read(env) is None, env["seq"]
        for shot in shots:
            face, how = dice.face(gid, shot["dice"], shot["rolls"][0])
            assert (face, how) == (shot["rolls"][0]["value"], "key")

        # the proof ties the first tree's keys to the first root on its own
        keys = {k["slot"]: bytes.fromhex(k["key"]) for k in reveal["data"]["keys"]}
        proof = reveal["data"]["proof"]
        assert merkle.verify_proof({r: k for r, k in keys.items() if r < 32}, proof, first["root"], 32)
        assert merkle.verify_proof(keys, proof, extended["root"], 64)

        # the verifier checks the first tree's keys against the first root too: a wrong one is caught even
        # though the extension's root matches
        tampered = Dice()
        first_root = dict(first, root="00" * 32)
        problems = [tampered.read(e if e["data"] is not first else dict(e, data=first_root)) for e in red]
        assert any(p and "Merkle root" in p for p in problems)


class Rolled(Event, tag="test.rolled"):
    pass


def test_a_slot_first_rolled_beyond_every_root_gets_no_key_at_the_reveal():
    ledger = TurnLedger(4, slotted=True)
    ledger.committed(32)
    rolls = tuple(Roll(i, "d6", 1, "p", "r") for i in range(3))
    ledger.take(DiceMaterial(turn=4, base=1, slot=0, seen_by=("seat:red",)), Rolled(rolls=rolls[:1]))
    ledger.take(DiceMaterial(turn=4, base=2, slot=30, seen_by=("seat:red",)), Rolled(rolls=rolls))  # 30, 31, 32
    assert ledger.late == {32}
    ledger.committed(64)  # the extension, after that command: slot 32 was rolled before it
    ledger.take(DiceMaterial(turn=4, base=3, slot=33, seen_by=("seat:red",)), Rolled(rolls=rolls[:1]))
    assert ledger.openings([]) == {"seat:red": [0, 30, 31, 33]}
    assert ledger.used() == 34
    assert msgspec.json.encode(ledger.openings([]))  # plain data, as the reveal stores it


def test_tree_slots_has_room_for_twice_the_turn_before():
    assert merkle.tree_slots(0) == merkle.tree_slots(16) == merkle.MIN_SLOTS
    assert merkle.tree_slots(17) == 64
    assert merkle.tree_slots(212) == 512
    assert merkle.tree_slots(5000) == merkle.TREE_SLOTS
