"""Open-information games commit their turns' seeds without a Merkle tree (issue 37, docs/dice.md): their
reveal gives every viewer the seed, from which each recomputes every slot key and roll, so a root would let
no seat verify more, nor sooner. What a seat verifies stays the same: each turn's seed against the commitment
published before the turn's first command, and every roll of the turn from that seed (GSC2-DICE: rolls are
recorded facts a viewer re-derives); hidden-information games keep their root, keys and proofs."""

from __future__ import annotations

import hashlib
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from service.domain.core import merkle
from service.events import dice_book
from tests.api.gsc2_play import new_gsc2_game, play, start
from tests.api.test_battle_files import export, reseal, split

pytestmark = pytest.mark.asyncio
VERIFIER = Path(__file__).resolve().parents[2] / "clients" / "verify_dice.py"


def verify(tmp_path: Path, content: bytes) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "battle.jsonl"
    path.write_bytes(content)
    return subprocess.run([sys.executable, str(VERIFIER), str(path)], capture_output=True, text=True)


@pytest.fixture
def trees(monkeypatch) -> list[Any]:
    """Every Merkle tree the service starts building (a spare's, or one built at once)."""
    built: list[Any] = []
    real_builder, real_build = dice_book.TreeBuilder, merkle.SlotTree.build

    def builder(seed: bytes, turn: int, *rest: Any) -> Any:
        built.append((seed, turn))
        return real_builder(seed, turn, *rest)

    def build(cls: Any, seed: bytes, turn: int, *rest: Any) -> Any:
        built.append((seed, turn))
        return real_build(seed, turn, *rest)

    monkeypatch.setattr(dice_book, "TreeBuilder", builder)
    monkeypatch.setattr(merkle.SlotTree, "build", classmethod(build))
    return built


async def played_gsc2(api: Any) -> dict[str, Any]:
    game = await new_gsc2_game(api, "duel")
    await start(api, game)
    await play(api, game, random.Random(4))
    return game


async def test_an_open_information_game_commits_each_turn_without_a_tree_and_a_seat_verifies_every_roll(
    api, trees, tmp_path
):
    game = await played_gsc2(api)
    assert trees == []  # no tree built, ahead of a turn or at its change
    seat = next(iter(game["seats"]))
    content = await export(api, game, game["seats"][seat])
    _, envelopes = split(content)
    committed = [e["data"] for e in envelopes if e["type"] == "dice.committed"]
    revealed = {e["data"]["turn"]: e["data"]["seed"] for e in envelopes if e["type"] == "dice.revealed"}
    assert len(committed) >= 3 and all("root" not in c and c["slots"] == merkle.TREE_SLOTS for c in committed)
    # each seed the seat was given is the one committed before its turn began
    for c in committed:
        assert hashlib.sha256(bytes.fromhex(revealed[c["turn"]])).hexdigest() == c["commitment"]
    rolled = [e for e in envelopes if e.get("rolls")]
    assert rolled and all(e["dice"]["slot"] is not None for e in rolled)  # rolls still take slot keys

    result = verify(tmp_path, content)
    assert result.returncode == 0, result.stdout + result.stderr
    rolls = sum(len(e["rolls"]) for e in rolled)
    assert f"OK {rolls} rolls verified" in result.stdout and "(0 rolls await a reveal" in result.stdout

    r = await api.post("/v1/games/import", content=content)  # the import checks each seed and every roll
    assert r.status_code == 201 and r.json()["verified"] is True, r.text


async def test_a_roll_its_seed_does_not_give_still_fails_without_a_root(api, tmp_path):
    game = await played_gsc2(api)
    header, envelopes = split(await export(api, game))
    index = next(i for i, e in enumerate(envelopes) if e.get("rolls"))
    roll = envelopes[index]["rolls"][0]
    sides = int(roll["die"].lstrip("d"))
    roll["value"] = roll["value"] % sides + 1
    unsigned = {k: v for k, v in header.items() if k != "signature"}
    result = verify(tmp_path, reseal(unsigned, envelopes, refold=False))
    assert result.returncode == 1 and f"MISMATCH seq {envelopes[index]['seq']} roll 0" in result.stdout


async def test_a_seed_that_is_not_the_one_committed_still_fails_without_a_root(api, tmp_path):
    game = await played_gsc2(api)
    header, envelopes = split(await export(api, game))
    index = next(i for i, e in enumerate(envelopes) if e["type"] == "dice.revealed")
    envelopes[index]["data"]["seed"] = "ab" * 32
    unsigned = {k: v for k, v in header.items() if k != "signature"}
    result = verify(tmp_path, reseal(unsigned, envelopes, refold=False))
    assert result.returncode == 1 and "is not the one committed" in result.stdout


async def test_a_hidden_information_game_keeps_its_root_and_its_spare_tree(api, trees):
    """The tiny ruleset hides each seat's secret: its commitments keep the Merkle root of the slot keys."""
    r = await api.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"})
    game = r.json()
    red = game["seats"]["red"]
    shot = {"command": {"type": "tiny.shoot", "shooter": "red", "target": "blue"}}
    assert (
        await api.post(f"/v1/games/{game['game_id']}/commands", json=shot, headers={"Authorization": f"Bearer {red}"})
    ).status_code == 201
    _, envelopes = split(await export(api, game))
    (committed,) = [e["data"] for e in envelopes if e["type"] == "dice.committed"]
    assert len(committed["root"]) == 64 and committed["slots"] == merkle.TREE_SLOTS
    assert [turn for _, turn in trees][:2] == [1, 2]  # turn 1's tree at creation, turn 2's spare after the shot
