"""A game's next dice seed is drawn during the turn before and its Merkle tree built a step at a time
between other work (dice_book.DiceBook.prepare): the command that changes the turn commits that spare
without building a tree, the committed root is the spare's tree, a spare for a turn that does not come
next (a rewind) is dropped, and a reproducible ``secrets`` (tests) draws nothing ahead of time."""

from __future__ import annotations

import asyncio
import hashlib

import msgspec

from service.domain.core import UMPIRE, merkle, seat
from service.events import ids
from service.events.application import GameService
from service.events.memory_store import MemoryEventStore
from service.events.openings import tree_for
from service.events.rewind import rewind
from tests.support.seeded import SeededSecrets

TURN = [  # one whole turn of the tiny ruleset, a shot first
    ("red", {"type": "tiny.shoot", "shooter": "red", "target": "blue"}),
    ("blue", {"type": "tiny.shoot", "shooter": "blue", "target": "red"}),
    ("red", {"type": "tiny.end_phase", "seat": "red"}),
    ("blue", {"type": "tiny.end_phase", "seat": "blue"}),
    ("red", {"type": "tiny.end_phase", "seat": "red"}),
    ("blue", {"type": "tiny.end_phase", "seat": "blue"}),  # the turn ends: reveal, next commitment
]


async def play(service: GameService, gid: str, commands: list[tuple[str, dict]]) -> None:
    for who, command in commands:
        await service.handle_command(gid, seat(who), msgspec.json.encode({"command": command}))


async def built(spare) -> None:
    while not spare.builder.done:
        await asyncio.sleep(0)  # the event loop runs the builder's steps


async def committed_event(service: GameService, gid: str, turn: int) -> dict:
    rows = await service.store.read_events(gid, after=0)
    (row,) = [r for r in rows if r.type == "dice.committed" and msgspec.json.decode(r.data)["turn"] == turn]
    return msgspec.json.decode(row.data)


async def test_the_turn_change_commits_the_spare_drawn_during_the_turn_before(monkeypatch):
    service = GameService(MemoryEventStore())
    gid = (await service.create_game("tiny", "long")).game_id
    await play(service, gid, TURN[:1])
    spare = service.dice.spares[gid]
    assert spare.turn == 2 and not spare.builder.done  # drawn by the shot, its tree still on the way
    await built(spare)

    builds = []
    real_build = merkle.SlotTree.build
    monkeypatch.setattr(merkle.SlotTree, "build", classmethod(lambda cls, *a: builds.append(a) or real_build(*a)))
    await play(service, gid, TURN[1:])
    assert builds == []  # no tree built on the command path: the spare's was ready

    head = await service.head(gid)
    assert head.dice_turn == 2 and head.seeds[2] == spare.seed and gid not in service.dice.spares
    assert (await service.store.seed(gid, 2)).seed == spare.seed.hex()
    committed = await committed_event(service, gid, 2)
    assert committed["commitment"] == hashlib.sha256(spare.seed).hexdigest()
    assert committed["slots"] == merkle.MIN_SLOTS  # turn 1 used 2 slots: the smallest tree has room for them
    assert committed["root"] == real_build(spare.seed, 2, merkle.MIN_SLOTS).root == spare.builder.tree().root
    assert tree_for(spare.seed, 2, merkle.MIN_SLOTS) is spare.builder.tree()  # kept for the turn's reveal

    await play(service, gid, TURN[:1])  # the next turn's first command draws the spare after it
    assert service.dice.spares[gid].turn == 3 and service.dice.spares[gid].seed != spare.seed


async def test_a_spare_not_yet_built_is_finished_by_the_turn_change():
    service = GameService(MemoryEventStore())
    gid = (await service.create_game("tiny", "long")).game_id
    await play(service, gid, TURN[:1])
    spare = service.dice.spares[gid]
    spare.builder.step()  # some of it
    for who, command in TURN[1:]:  # no sleeps: the commands may leave the builder little time
        await service.handle_command(gid, seat(who), msgspec.json.encode({"command": command}))
    assert (await committed_event(service, gid, 2))["root"] == merkle.SlotTree.build(
        spare.seed, 2, merkle.MIN_SLOTS
    ).root


async def test_a_spare_for_a_turn_that_is_already_committed_is_dropped_after_a_rewind():
    service = GameService(MemoryEventStore())
    gid = (await service.create_game("tiny", "long")).game_id
    await play(service, gid, TURN)  # turn 2 committed
    rewind_to = (await service.head(gid)).seq
    await play(service, gid, TURN[:1])
    stale = service.dice.spares[gid]
    assert stale.turn == 3
    await rewind(service, gid, UMPIRE, to_seq=2, turn=None, phase=None)  # back into turn 1
    assert (await service.head(gid)).dice_turn == 1
    await play(service, gid, TURN[:1])  # turn 2 has its commitment: nothing to draw, the stale spare goes
    assert gid not in service.dice.spares
    await play(service, gid, TURN[1:])  # into turn 2 again, on its old commitment
    head = await service.head(gid)
    assert head.dice_turn == 2 and rewind_to < head.seq
    await play(service, gid, TURN)  # turn 3 gets a fresh seed, never the dropped one
    assert (await service.head(gid)).seeds[3] != stale.seed


async def test_a_reproducible_secrets_draws_no_seed_ahead(monkeypatch):
    monkeypatch.setattr(ids, "secrets", SeededSecrets("spares"))
    service = GameService(MemoryEventStore())
    gid = (await service.create_game("tiny", "long")).game_id
    await play(service, gid, TURN)
    assert service.dice.spares == {} and ids.spare_dice_seed() is None
    replay = SeededSecrets("spares")  # the same draws in the same order as before spares existed
    replay.token_hex(8), replay.token_bytes(32), replay.token_hex(6)  # game id, turn 1's seed, command ids
    assert (await service.head(gid)).seeds[2] == replay.token_bytes(32)


async def test_spares_are_bounded_and_a_game_still_playing_keeps_its_own():
    service = GameService(MemoryEventStore())
    service.dice.SPARES = 2
    gids = [(await service.create_game("tiny", "long")).game_id for _ in range(3)]
    for gid in gids:
        await play(service, gid, TURN[:1])
    assert list(service.dice.spares) == gids[:2]  # the third gets none: both places are in use
    for _ in range(4 * service.dice.SPARES):
        await play(service, gids[1], TURN[:1])  # the first game goes quiet
    await play(service, gids[2], TURN[:1])
    assert list(service.dice.spares) == gids[1:]  # the quiet game's spare made way
