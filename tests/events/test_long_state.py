"""A game's state does not grow with its log (issue 31): played on for three times as many events, each ruleset's
state encodes to about the same size (histories keep what the rules need; the log keeps the rest)."""

from __future__ import annotations

import random

import msgspec
import pytest

from service.domain.core import UMPIRE
from service.events.application import GameService
from service.events.memory_store import MemoryEventStore
from tests.support.long_games import SCENARIOS, _play_long, _ruling, long_setup

pytestmark = pytest.mark.asyncio


@pytest.mark.parametrize("ruleset", sorted(SCENARIOS))
async def test_a_long_game_state_stays_the_same_size_as_its_log_grows(ruleset):
    service = GameService(MemoryEventStore(), snapshot_every=10**9)
    game = await service.create_game(ruleset, long_setup(ruleset))
    sizes = []
    for events in (400, 1_200):
        if ruleset == "ftcampaign":
            head = await service.head(game.game_id)
            for i in range(head.seq, events):
                await service.handle_command(game.game_id, UMPIRE, _ruling(i))
        else:
            await _play_long(service, game.game_id, events, random.Random(events))
        head = await service.head(game.game_id)
        assert head.seq >= events and not head.ruleset.is_over(head.state)
        sizes.append(len(msgspec.json.encode(head.state)))
    assert sizes[1] <= sizes[0] * 1.1, sizes
