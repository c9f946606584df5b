"""Which seats computer opponents hold, kept in the game's log so a restarted service resumes them.

Handing a seat to a bot (or taking it back) appends a ``bot.seated`` / ``bot.unseated`` service event,
by the umpire or the seat's holder, like a rewind: public (anyone may list a game's bots), in exports,
skipped by the fold, never inherited by a fork or an import. A rewind does not undo it: it says who
plays a seat, not what happened in the game. The last such event per seat is the seat's holder.
"""

from __future__ import annotations

from typing import Any

from service.domain.core import Actor

from . import ids
from .application import GameService
from .envelope import BotSeated, BotUnseated
from .head import GameHead
from .rows import event_row, now_iso

BOT_EVENT_TYPES = ("bot.seated", "bot.unseated")  # the tags of BotSeated, BotUnseated


async def record(service: GameService, game_id: str, actor: Actor, seat: str, bot: str | None) -> int:
    """Append the seat's new holder (``bot`` None: taken back); returns the game's new version."""
    event = BotSeated(seat=seat, bot=bot) if bot is not None else BotUnseated(seat=seat)

    async def rows(head: GameHead) -> list[dict[str, Any]]:
        clock = head.ruleset.clock(head.state)
        return [
            event_row(
                head.codec,
                game_id,
                head.seq + 1,
                event,
                clock.turn,
                clock.phase,
                actor.label,
                ids.command_id(),
                now_iso(),
                None,
            )
        ]

    head = await service.append_and_refold(game_id, rows)
    await service.announce(game_id, head.seq)
    return head.seq


async def seated(service: GameService, game_id: str) -> dict[str, str]:
    """Seat -> bot name, as the game's log last left them."""
    out: dict[str, str] = {}
    head = await service.head(game_id)
    for row in await service.store.read_events_of_types(game_id, BOT_EVENT_TYPES):
        event = head.codec.decode(row.type, row.v, row.data, row.rolls)
        if isinstance(event, BotSeated):
            out[event.seat] = event.bot
        elif isinstance(event, BotUnseated):
            out.pop(event.seat, None)
    return out


async def games_with_bots(service: GameService) -> list[str]:
    """Games whose log ever seated a bot (finished ones included: the caller skips those)."""
    return await service.store.games_with_event_types(BOT_EVENT_TYPES)
