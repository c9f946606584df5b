"""The rows the service writes, built in memory."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import msgspec

from service.domain.core import Event

from .envelope import DiceMaterial

_encoder = msgspec.json.Encoder()
_second = [-1, ""]  # the last second formatted, and its text up to the microseconds


def now_iso(_ns: Callable[[], int] = time.time_ns, _last: list[Any] = _second) -> str:
    """UTC now, ISO 8601 with microseconds ("2026-12-01T14:23:47.123456Z") as
    ``datetime.now(UTC).isoformat`` writes it, at a third of its cost (once per command): the text up
    to the second is formatted once a second, each call appends only the microseconds."""
    us = _ns() // 1000
    second = us // 1_000_000
    if second != _last[0]:
        _last[1] = time.strftime("%Y-%m-%dT%H:%M:%S.", time.gmtime(second))
        _last[0] = second
    return f"{_last[1]}{us - second * 1_000_000:06d}Z"


def event_row(
    codec: Any,
    game_id: str,
    seq: int,
    event: Event,
    turn: int,
    phase: str,
    actor: str,
    command_id: str | None,
    recorded_at: str,
    material: DiceMaterial | None,
) -> dict[str, Any]:
    tag, version, data, rolls = codec.encode_text(event)
    return {
        "game_id": game_id,
        "seq": seq,
        "type": tag,
        "v": version,
        "data": data,
        "rolls": rolls,
        "turn": turn,
        "phase": phase,
        "actor": actor,
        "command_id": command_id,
        "recorded_at": recorded_at,
        "dice": _encoder.encode(material).decode() if material else None,
    }


def result_record(version: int, envelopes: list[bytes]) -> bytes:
    """A keyed command's answer as its idempotency row keeps it, replayed verbatim to a retry:
    ``{"version": N, "events": [...]}``, byte for byte msgspec's encoding of that dict (the API layer's
    ``encoding.result_body`` of the same values)."""
    return b'{"version":%d,"events":[%b]}' % (version, b",".join(envelopes))
