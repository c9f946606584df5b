"""The rows the service writes, built in memory, and a read-alike view of them."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import msgspec

from service.domain.core import Event

from .envelope import DiceMaterial


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def event_row(
    codec: Any, game_id: str, seq: int, event: Event, turn: int, phase: str, actor: str,
    command_id: str | None, recorded_at: str, material: DiceMaterial | None,
) -> dict[str, Any]:
    tag, version, data, rolls = codec.encode(event)
    return {
        "game_id": game_id, "seq": seq, "type": tag, "v": version, "data": data.decode(),
        "rolls": rolls.decode(), "turn": turn, "phase": phase, "actor": actor, "command_id": command_id,
        "recorded_at": recorded_at, "dice": msgspec.json.encode(material).decode() if material else None,
    }


class RowView:
    """Attribute access over a row dict, so fresh rows render like stored ones."""

    def __init__(self, row: dict[str, Any]) -> None:
        self.__dict__.update(row)
