"""``CommandWriter.decide_now`` without a coroutine (the turn's seed and slots in memory, the turn going
on) decides what the coroutine that reads them from the store does: the same rows, seeds, result, dice
turn and head afterwards, command after command of whole turns (a turn's end always takes the coroutine)."""

from __future__ import annotations

import msgspec

from service.domain.core import seat
from service.events import decide_append, ids
from service.events.application import GameService
from service.events.command_pipeline import decode_command, fork
from service.events.decide_append import Decision
from service.events.memory_store import MemoryEventStore
from tests.support.seeded import SeededSecrets

from .test_command_core import CYCLE


async def test_decide_now_is_decide(monkeypatch):
    monkeypatch.setattr(decide_append, "now_iso", lambda: "2026-12-01T14:23:47.123456Z")
    service = GameService(MemoryEventStore())
    writer = service.commands.writer
    gid = (await service.create_game("tiny", "long")).game_id
    paths = []
    for i, (who, command) in enumerate(CYCLE * 2):
        body = msgspec.json.encode({"command": command, "salt": f"s{i}"})
        request, decoded = decode_command((await service.head(gid)).ruleset, body)
        ahead = fork(await service.head(gid))
        ahead.seeds, ahead.dice_ledger = {}, None  # the seed and the turn's slots come from the store
        other = fork(ahead)
        await writer.dice.seed(other, other.dice_turn)  # in memory, as on the pipeline's head ahead
        await writer.dice.ledger(other)
        writer.dice.spares.clear()  # each path draws the turn's next seed itself
        monkeypatch.setattr(ids, "secrets", SeededSecrets(f"decide-{i}"))  # same seeds and command id
        slow = writer.decide_now(ahead, seat(who), decoded, request.salt, None, "")
        assert not isinstance(slow, Decision)
        slow = await slow
        writer.dice.spares.clear()
        monkeypatch.setattr(ids, "secrets", SeededSecrets(f"decide-{i}"))
        fast = writer.decide_now(other, seat(who), decoded, request.salt, None, "")
        paths.append(isinstance(fast, Decision))
        if not isinstance(fast, Decision):
            fast = await fast
        assert fast.batch.events == slow.batch.events
        assert fast.batch.seeds == slow.batch.seeds
        assert (fast.result, fast.dice_turn, fast.service_events) == (slow.result, slow.dice_turn, slow.service_events)
        for head, decision in ((ahead, slow), (other, fast)):
            writer.apply(head, decision)
        assert (other.seq, other.dice_turn, other.dice_ledger, other.seeds) == (
            ahead.seq,
            ahead.dice_turn,
            ahead.dice_ledger,
            ahead.seeds,
        )
        monkeypatch.undo()
        monkeypatch.setattr(decide_append, "now_iso", lambda: "2026-12-01T14:23:47.123456Z")
        await service.handle_command(gid, seat(who), body)
    assert paths == [True] * 7 + [False] + [True] * 7 + [False]  # each turn's last command needs the store
