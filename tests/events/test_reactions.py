"""Process managers react to commands of the games of their rulesets only: a command of a game no
reaction wants is the pipeline's own coroutine (no wrapper, no reaction's coroutines per command)."""

from __future__ import annotations

from typing import Any

import msgspec

from service.domain.core import seat
from service.events.application import GameService
from service.events.memory_store import MemoryEventStore


def _hide(who: str, secret: int) -> bytes:
    return msgspec.json.encode({"command": {"type": "tiny.hide", "seat": who, "secret": secret}})


async def test_reactions_hear_the_commands_of_their_rulesets_only():
    service = GameService(MemoryEventStore())
    heard: list[tuple[str, str, int | None]] = []

    def reaction(name: str) -> Any:
        async def react(game_id: str, result: Any) -> None:
            heard.append((name, game_id, result.version))

        return react

    service.react_to_commands(reaction("other"), frozenset({"gsc2"}))
    gid = (await service.create_game("tiny", "long")).game_id
    await service.handle_command(gid, seat("red"), _hide("red", 1))  # head not cached yet: checked after
    handled = service.handle_command(gid, seat("red"), _hide("red", 2))
    assert handled.cr_code.co_name == "handle"  # type: ignore[attr-defined]  # the pipeline's, unwrapped
    await handled
    assert heard == []

    service.react_to_commands(reaction("tiny"), frozenset({"tiny"}))
    result = await service.handle_command(gid, seat("red"), _hide("red", 3))
    service.react_to_commands(reaction("all"))
    again = await service.handle_command(gid, seat("red"), _hide("red", 4))
    assert heard == [("tiny", gid, result.version), ("tiny", gid, again.version), ("all", gid, again.version)]
