"""The live head equals a head rebuilt from the store after every command, for every ruleset.

Random legal games (options and forms only, service/testing/randomplay.py) go through the real
GameService; after each accepted command the cached head is compared with one loaded afresh (latest
snapshot + tail) and with a fold of the whole log: state, seq, dice position, dice turn, committed
and revealed turns. A finished game, reloaded, answers a command with its rule rejection.
"""

from __future__ import annotations

import random

import msgspec
import pytest

from service.domain.core import UMPIRE, RuleViolation, available_rulesets, find_ruleset, seat
from service.events.application import GameService
from service.events.head import GameHead, head_from_rows
from service.events.head_cache import HeadCache
from service.events.memory_store import MemoryEventStore
from service.testing.randomplay import choices_for

COMMANDS_PER_GAME = 150


def _fingerprint(head: GameHead) -> tuple:
    return (
        head.state,
        head.seq,
        head.effective,
        head.dice_turn,
        sorted(head.committed),
        sorted(head.revealed),
        head.disclosed,
        head.rewinds,
    )


async def _assert_rebuilt_equals_live(service: GameService, store: MemoryEventStore, game_id: str, where: str):
    live = await service.head(game_id)
    from_snapshot = await HeadCache(store).load(game_id)
    full = head_from_rows(game_id, await store.game(game_id), await store.read_events(game_id))
    assert _fingerprint(from_snapshot) == _fingerprint(live), f"snapshot reload differs from live at {where}"
    assert _fingerprint(full) == _fingerprint(live), f"full fold differs from live at {where}"


async def _step(service: GameService, game_id: str, rng: random.Random) -> bool:
    """One random legal command, seats first, the umpire when no seat may act; False when none is accepted."""
    head = await service.head(game_id)
    ruleset = head.ruleset
    for viewers in ([seat(s) for s in head.seats], [UMPIRE]):
        choices = [(v, c) for v in viewers for c, _composed in choices_for(ruleset, head.state, v, rng)]
        rng.shuffle(choices)
        for viewer, command in choices[:20]:
            body = msgspec.json.encode({"command": msgspec.to_builtins(command)})
            try:
                await service.handle_command(game_id, viewer, body)
            except RuleViolation:
                continue  # a random composition of a form may break a cross-piece limit
            return True
    return False


def _cases() -> list[tuple[str, str]]:
    cases = []
    for name in available_rulesets():
        scenarios = sorted(find_ruleset(name).scenarios())
        cases += [(name, s) for s in scenarios[:2]]
    return cases


@pytest.mark.parametrize(("ruleset", "scenario"), _cases())
async def test_live_head_equals_rebuilt_head_after_every_command(ruleset, scenario):
    store = MemoryEventStore()
    service = GameService(store, snapshot_every=7)  # snapshots land mid-game: reloads start from them
    game = await service.create_game(ruleset, scenario)
    rng = random.Random(f"{ruleset}/{scenario}")
    await _assert_rebuilt_equals_live(service, store, game.game_id, "creation")
    played = 0
    for n in range(COMMANDS_PER_GAME):
        head = await service.head(game.game_id)
        if head.ruleset.is_over(head.state) or not await _step(service, game.game_id, rng):
            break
        played += 1
        await _assert_rebuilt_equals_live(service, store, game.game_id, f"command {n + 1}")
    assert played > 0, "random play accepted no command"


async def test_a_finished_game_answers_with_its_rule_after_a_restart():
    store = MemoryEventStore()
    service = GameService(store)
    game = await service.create_game("tiny", {"hull": 1000, "turn_limit": 2})
    gid = game.game_id
    head = await service.head(gid)
    while not head.ruleset.is_over(head.state):  # end both phases of every turn up to the limit
        for s in ("red", "blue"):
            body = msgspec.json.encode({"command": {"type": "tiny.end_phase", "seat": s}})
            await service.handle_command(gid, seat(s), body)
    assert head.state.turn == 3
    service.forget(gid)  # as after a restart: the head is rebuilt from the store
    restarted = GameService(store)
    shot = msgspec.json.encode({"command": {"type": "tiny.shoot", "shooter": "red", "target": "blue"}})
    for svc in (service, restarted):
        with pytest.raises(RuleViolation) as info:
            await svc.handle_command(gid, seat("red"), shot)
        assert info.value.rule == "GAME-OVER"
    assert (await restarted.head(gid)).dice_turn == head.dice_turn == 2
    assert await store.head(gid) == head.seq  # nothing appended by the rejections
