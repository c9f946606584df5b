"""Table talk: a message is a ``table.message`` service event in the game's log, with its audience.

Appended like a bot seat or a rewind (under the game's lock, after its commands in flight), announced to
the live streams as a bare notification, so each socket reads it from the log through the same redaction
as every other event (``replay.visible_event`` → ``table_events.may_read``). Length is limited here; the
rate per token is the API's (``service/api/routes/talk.py``).
"""

from __future__ import annotations

import unicodedata
from typing import Any

from service.domain.core import Actor, Viewer

from . import ids
from .application import GameService
from .errors import Forbidden, InvalidRequest
from .head import GameHead
from .rows import event_row, now_iso
from .table_events import MAX_MESSAGE_CHARS, TableMessage, may_read, side_of

MESSAGE_TYPES = ("table.message",)  # TableMessage's tag


def clean_text(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """The text as kept: trimmed, 1..``limit`` characters, no control characters but line breaks and tabs
    (a terminal escape in a message would reach every reader)."""
    text = text.strip()
    if not text:
        raise InvalidRequest("a message needs some text", field="text")
    if len(text) > limit:
        raise InvalidRequest(f"a message is at most {limit} characters (this one has {len(text)})", field="text")
    if any(unicodedata.category(c) == "Cc" and c not in "\n\t" for c in text):
        raise InvalidRequest("a message may not hold control characters", field="text")
    return text


def audience(head: GameHead, to: str) -> str:
    """``to`` checked against the game's seats: all, umpire, side:<side>, seat:<seat>."""
    if to in ("all", "umpire"):
        return to
    kind, _, name = to.partition(":")
    if kind == "seat" and name in head.seats:
        return to
    if kind == "side" and name in {side_of(s) for s in head.seats}:
        return to
    sides = sorted({side_of(s) for s in head.seats})
    raise InvalidRequest(
        f"to must be all, umpire, side:<one of {sides}> or seat:<one of {list(head.seats)}>", field="to"
    )


async def post(service: GameService, game_id: str, actor: Actor, to: str, text: str) -> dict[str, Any]:
    """Append one message from ``actor`` (a seat or the umpire); returns what its sender reads back."""
    if actor.kind not in ("seat", "umpire"):
        raise Forbidden("spectators talk in the spectators' channel (POST …/spectator-messages)", field="to")
    text = clean_text(text)
    head = await service.head(game_id)
    message = TableMessage(sender=actor.label, to=audience(head, to), text=text)
    recorded = now_iso()

    async def rows(head: GameHead) -> list[dict[str, Any]]:
        clock = head.ruleset.clock(head.state)
        return [
            event_row(
                head.codec,
                game_id,
                head.seq + 1,
                message,
                clock.turn,
                clock.phase,
                actor.label,
                ids.command_id(),
                recorded,
                None,
            )
        ]

    head = await service.append_and_refold(game_id, rows)
    await service.announce(game_id, head.seq)
    return {"seq": head.seq, "sender": message.sender, "to": message.to, "text": text, "recorded_at": recorded}


async def read(service: GameService, game_id: str, viewer: Viewer, after: int = 0) -> list[dict[str, Any]]:
    """The messages ``viewer`` may read, after ``after``, oldest first (superseded ones too: a rewind takes
    back moves, not what was said)."""
    head = await service.current_head(game_id)
    out = []
    for row in await service.store.read_events_of_types(game_id, MESSAGE_TYPES):
        if int(row.seq) <= after:
            continue
        message = head.codec.decode(row.type, row.v, row.data, row.rolls)
        if isinstance(message, TableMessage) and may_read(message, viewer):
            out.append(
                {
                    "seq": int(row.seq),
                    "sender": message.sender,
                    "to": message.to,
                    "text": message.text,
                    "recorded_at": row.recorded_at,
                }
            )
    return out
