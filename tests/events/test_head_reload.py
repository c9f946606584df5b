"""A head rebuilt from the latest snapshot + tail equals a fold of the whole log, rewinds included."""

from __future__ import annotations

import msgspec

from service.domain.core import UMPIRE, seat
from service.events.application import GameService
from service.events.head import head_from_rows
from service.events.rewind import rewind
from service.events.store import SqlEventStore


def _shot(who: str) -> bytes:
    other = "blue" if who == "red" else "red"
    return msgspec.json.encode({"command": {"type": "tiny.shoot", "shooter": who, "target": other}})


async def test_reload_from_snapshot_equals_full_fold_with_rewinds(sqlite_url):
    store = SqlEventStore(sqlite_url)
    store.start()
    try:
        service = GameService(store, snapshot_every=5)
        game = await service.create_game("tiny", "long")
        gid = game.game_id
        for i in range(23):
            who = "red" if i % 2 == 0 else "blue"
            await service.handle_command(gid, seat(who), _shot(who))
        await rewind(service, gid, UMPIRE, to_seq=12, turn=None, phase=None)
        for _ in range(9):
            await service.handle_command(gid, seat("red"), _shot("red"))
        live = await service.head(gid)
        full = head_from_rows(gid, await store.game(gid), await store.read_events(gid))
        service.forget(gid)
        reloaded = await service.head(gid)
        assert reloaded.state == full.state == live.state
        assert (reloaded.seq, reloaded.effective, reloaded.dice_turn) == (live.seq, live.effective, live.dice_turn)
        assert reloaded.rewinds == live.rewinds == [(26, 12)]
        assert reloaded.effective == live.seq - (26 - 12)  # 13 superseded shots and the rewind itself
    finally:
        store.close()
