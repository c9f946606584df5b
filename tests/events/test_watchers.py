"""The notifications a command writes (issue 40), without a database: they ride in the command's own batch
(WriteBatch.outbox, so they are durable exactly when its events are); a game nobody watches is never looked
at; a failure computing them never fails the command."""

from __future__ import annotations

from typing import Any

import msgspec

from service.domain.core import Viewer
from service.events import watchers as watchers_module
from service.events.application import GameService
from service.events.event_store import WriteBatch
from service.events.memory_store import MemoryEventStore
from service.events.watchers import Watch, Watchers, notice_id

RED, BLUE = Viewer("seat", "red"), Viewer("seat", "blue")


class Recording(MemoryEventStore):
    def __init__(self) -> None:
        super().__init__()
        self.submitted: list[WriteBatch] = []

    def submit(self, batch: WriteBatch) -> Any:
        self.submitted.append(batch)
        return super().submit(batch)


def _end(seat: str) -> bytes:
    return msgspec.json.encode({"command": {"type": "tiny.end_phase", "seat": seat}})


async def _watched_service() -> tuple[GameService, Recording, Watchers, str, str]:
    store = Recording()
    service = GameService(store)
    watched = (await service.create_game("tiny", "duel")).game_id
    plain = (await service.create_game("tiny", "duel")).game_id
    watchers = Watchers(engine=None)  # type: ignore[arg-type]  # the index is set here, not loaded
    watchers.games = {watched: (Watch("s_1", "p_1", "seat", "red"),)}
    service.commands.writer.notices = watchers
    return service, store, watchers, watched, plain


async def test_the_notification_rides_in_the_batch_of_the_move_that_causes_it():
    service, store, _watchers, game, _plain = await _watched_service()
    await service.handle_command(game, RED, _end("red"))
    assert store.submitted[-1].outbox == []  # red's own move: nothing for red
    result = await service.handle_command(game, BLUE, _end("blue"))  # the phase moves on: red must act
    [row] = store.submitted[-1].outbox
    assert row["id"] == notice_id(game, result.version, "s_1", "your_turn", "seat:red")
    assert (row["kind"], row["seq"], row["subscription_id"]) == ("your_turn", result.version, "s_1")
    body = msgspec.json.decode(row["body"])
    assert (body["seat"], body["phase"], body["must_act"], body["why"]) == ("red", "end", True, "end phase")


async def test_a_game_nobody_watches_is_never_looked_at(monkeypatch):
    service, store, watchers, _game, plain = await _watched_service()
    looked: list[str] = []
    monkeypatch.setattr(watchers, "command_rows", lambda head, *a: looked.append(head.game_id) or [])
    await service.handle_command(plain, RED, _end("red"))
    await service.handle_command(plain, BLUE, _end("blue"))
    assert looked == [] and all(b.outbox == [] for b in store.submitted)


async def test_a_failure_computing_notifications_never_fails_the_command(monkeypatch):
    service, store, _watchers, game, _plain = await _watched_service()

    def broken(*_args: Any) -> Any:
        raise RuntimeError("a ruleset's drawing failed")

    monkeypatch.setattr(watchers_module, "seat_now", broken)
    result = await service.handle_command(game, RED, _end("red"))
    assert result.status == 201 and store.submitted[-1].outbox == []
