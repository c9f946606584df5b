"""Umpire rewinds: back to a seq or to the start of a turn/phase, by appending an event."""

from __future__ import annotations

from typing import Any

import msgspec

from service.domain.core import Actor

from . import ids
from .application import GameService
from .envelope import GameRewound
from .errors import Forbidden, InvalidRequest
from .head import GameHead
from .reading import GameReader
from .replay import command_end
from .rows import event_row, now_iso


async def _turn_start(service: GameService, game_id: str, turn: int | None, phase: str | None) -> int:
    """The seq a turn (or one phase of it) starts at: once the command that opened it has finished, dice
    bookkeeping included, so that rewinding there keeps the dice position (replayed commands roll the same
    faces)."""
    if turn is None:
        raise InvalidRequest("give to_seq, or turn (and optionally phase)", field="to_seq")
    bounds = await service.store.turn_bounds(game_id, turn, phase)
    if bounds is None:
        raise InvalidRequest(f"nothing happened in turn {turn}" + (f" phase {phase}" if phase else ""), field="turn")
    opening = await service.store.read_events(game_id, after=bounds[0] - 1, upto=bounds[1])
    to_seq = bounds[0]
    for row in opening[1:]:
        if row.command_id != opening[0].command_id:
            break
        to_seq = int(row.seq)
    return to_seq


class Rewound(msgspec.Struct, omit_defaults=True, gc=False):
    """A rewind's outcome (the API answers it as its JSON: the fields in this order, no ``requested_to``
    when the rewind landed where it was asked to)."""

    version: int  # the game's version after the rewind
    rewound_to: int
    requested_to: int | None = None  # a to_seq inside a command (rewound_to: that command's end)


async def rewind(
    service: GameService,
    game_id: str,
    actor: Actor,
    to_seq: int | None,
    turn: int | None,
    phase: str | None,
    reason: str = "",
) -> Rewound:
    """Umpire rewind to a seq, or to the start of a turn (or of one phase of it), by appending an event.

    The superseded events stay in the log, marked; the fold skips them; the dice position goes back too,
    so the same commands replayed roll the same faces (a rewind cannot fish for new dice).
    """
    if not actor.is_umpire:
        raise Forbidden("only the umpire may rewind a game")
    head = await service.head(game_id)
    if to_seq is None:
        to_seq = await _turn_start(service, game_id, turn, phase)
    if not 1 <= to_seq < head.seq:
        raise InvalidRequest(f"to_seq must be between 1 and {head.seq - 1}", field="to_seq")
    asked = to_seq
    # a seq inside a command lands at that command's end (replay.command_end): between two events of one
    # command the game is in a state its automatic steps were leaving, where a seat may have nothing to do
    to_seq = await command_end(service.store, game_id, to_seq, head.seq)
    if to_seq >= head.seq:
        raise InvalidRequest(
            f"seq {asked} is inside the game's last command (it ends at {head.seq}): nothing after it to rewind",
            field="to_seq",
        )
    _, state, _ = await GameReader(service).state_at(game_id, to_seq)
    target = to_seq

    async def rewound(head: GameHead) -> list[dict[str, Any]]:
        clock = head.ruleset.clock(state)
        event = GameRewound(to_seq=target, reason=reason)
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

    head = await service.append_and_refold(game_id, rewound)  # refold: the effective history changed
    await service.announce(game_id, head.seq)
    # inside a command: rewound to that command's end, and the seq asked for said beside it
    return Rewound(head.seq, to_seq, asked if to_seq != asked else None)
