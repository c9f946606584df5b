"""Live frames: each new event encoded once per listening audience, handed to the publisher."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import msgspec

from service.domain.core import UMPIRE, Viewer

from .head import GameHead
from .replay import Decoded, envelope_for

FrameItems = list[tuple[int, dict[str, bytes | None] | None]]
# (game id, [(seq, {audience: frame bytes or None})]) -> published to live streams
Publisher = Callable[[str, FrameItems], Awaitable[None]]

_frame_encoder = msgspec.json.Encoder()


def audiences(head: GameHead) -> list[Viewer]:
    return [UMPIRE, Viewer("spectator"), *(Viewer("seat", s) for s in head.seats)]


def audience_key(viewer: Viewer) -> str:
    return viewer.label


def live_frames(
    head: GameHead, decoded: list[tuple[Decoded, Any]], wanted: set[str] | None
) -> FrameItems:
    """Frames of ``decoded`` (each with the state after it) for the audiences in ``wanted`` (all when
    None), encoded once per audience, not once per connection; an audience missing from the frames
    reads the event from the store."""
    out: FrameItems = []
    viewers = [v for v in audiences(head) if wanted is None or audience_key(v) in wanted]
    for d, after in decoded:
        per: dict[str, bytes | None] = {}
        for viewer in viewers:
            env = envelope_for(head.codec, head.ruleset, head.game_id, d, viewer, after)
            per[audience_key(viewer)] = None if env is None else _frame_encoder.encode(
                {"kind": "event", "event": env})
        out.append((d.seq, per))
    return out
