"""Umpire rewinds: back to a seq or to the start of a turn/phase, by appending an event."""

from __future__ import annotations

import secrets

from service.domain.core import Actor

from .application import CommandResult, GameService, _envelope_list, _row, now_iso
from .envelope import GameRewound
from .errors import Forbidden, InvalidRequest
from .reading import GameReader
from .store import WriteBatch


async def rewind(
    service: GameService, game_id: str, actor: Actor, to_seq: int | None, turn: int | None, phase: str | None,
    reason: str = "",
) -> CommandResult:
    """Umpire rewind to a seq, or to the start of a turn (or of one phase of it), by appending an event.

    The superseded events stay in the log, marked; the fold skips them; the dice position goes back too,
    so the same commands replayed roll the same faces (a rewind cannot fish for new dice).
    """
    if not actor.is_umpire:
        raise Forbidden("only the umpire may rewind a game")
    head = await service.head(game_id)
    if to_seq is None:
        if turn is None:
            raise InvalidRequest("give to_seq, or turn (and optionally phase)", field="to_seq")
        bounds = await service.store.turn_bounds(game_id, turn, phase)
        if bounds is None:
            raise InvalidRequest(f"nothing happened in turn {turn}" + (f" phase {phase}" if phase else ""),
                                 field="turn")
        # the turn (or phase) starts once the command that opened it has finished, dice bookkeeping
        # included: rewinding there keeps the dice position, so replayed commands roll the same faces
        opening = await service.store.read_events(game_id, after=bounds[0] - 1, upto=bounds[1])
        to_seq = bounds[0]
        for row in opening[1:]:
            if row.command_id != opening[0].command_id:
                break
            to_seq = int(row.seq)
    if not 1 <= to_seq < head.seq:
        raise InvalidRequest(f"to_seq must be between 1 and {head.seq - 1}", field="to_seq")
    _, state, _ = await GameReader(service).state_at(game_id, to_seq)
    async with service._lock(game_id):
        head = await service.head(game_id)
        clock = head.ruleset.clock(state)
        event = GameRewound(to_seq=to_seq, reason=reason)
        row = _row(head.codec, game_id, head.seq + 1, event, clock.turn, clock.phase, actor.label,
                   "c_" + secrets.token_hex(8), now_iso(), None)
        await service.store.write(WriteBatch(game_id=game_id, events=[row]))
        service.forget(game_id)  # refold: the effective history changed
        head = await service._load(game_id)
    if service.publish is not None:
        await service.publish(game_id, [(head.seq, None)])
    body = _envelope_list.encode({"version": head.seq, "rewound_to": to_seq})
    return CommandResult(201, body)
