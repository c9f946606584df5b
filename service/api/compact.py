"""Compact history pages (``?history=compact`` on the stream): a catch-up page of envelopes in one
message, each entry holding only what differs from the entry before it.

    {"kind":"events","game_id":G,"events":[ENTRY, …]}

An entry is an envelope without ``game_id`` (the page's); ``seq`` is omitted when it is one more than
the previous entry's; ``type``, ``v``, ``turn``, ``phase``, ``actor``, ``recorded_at`` and
``command_id`` are omitted when equal to the previous entry's (carried forward; ``"command_id": null``
when it goes back to none); ``recorded_at`` and ``command_id`` may come as ``[n, "rest"]``: the previous
entry's first n characters followed by rest (times and ids of one game share long prefixes). The
first entry of a page carries its seq and all of these in full (``command_id`` only when it has one).
``data``, ``rolls``, ``dice`` and ``superseded`` are as in an envelope (absent: the default).
``expand_page`` is the reference decoder (openapi/websocket.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from service.events.envelope import Envelope

CARRIED = ("type", "v", "turn", "phase", "actor", "recorded_at", "command_id")
PREFIXED = ("recorded_at", "command_id")  # may come as [n, rest]: the previous value's first n chars + rest
_encode = msgspec.json.Encoder().encode


def compact_page(game_id: str, envelopes: Sequence[Envelope]) -> bytes:
    entries: list[dict[str, Any]] = []
    last: dict[str, Any] = {"command_id": None}
    last_seq: int | None = None
    for env in envelopes:
        full = msgspec.to_builtins(env)  # omit_defaults: no command_id, rolls, dice, superseded by default
        del full["game_id"]
        seq = full.pop("seq")
        entry: dict[str, Any] = {} if last_seq is not None and seq == last_seq + 1 else {"seq": seq}
        for key in CARRIED:
            value = full.pop(key, None)
            if value != last[key] if key in last else True:
                entry[key] = _shortened(last.get(key), value) if key in PREFIXED else value
                last[key] = value
        entry.update(full)
        entries.append(entry)
        last_seq = seq
    return _encode({"kind": "events", "game_id": game_id, "events": entries})


def expand_page(frame: dict[str, Any]) -> list[dict[str, Any]]:
    """The envelopes of a compact page, exactly as ``{"kind":"event"}`` frames would carry them."""
    out: list[dict[str, Any]] = []
    last: dict[str, Any] = {"command_id": None}
    seq = 0
    for entry in frame["events"]:
        seq = entry.get("seq", seq + 1)
        for key in CARRIED:
            if key in entry:
                value = entry[key]
                last[key] = last[key][:value[0]] + value[1] if isinstance(value, list) else value
        env: dict[str, Any] = {"game_id": frame["game_id"], "seq": seq}
        env.update((key, last[key]) for key in CARRIED if last.get(key) is not None)
        env.update((k, v) for k, v in entry.items() if k != "seq" and k not in CARRIED)
        out.append(env)
    return out


def _shortened(before: str | None, value: str | None) -> Any:
    """``value``, or ``[n, rest]`` when it shares its first n characters with ``before`` (worth it from 6)."""
    if before is None or value is None:
        return value
    n = 0
    for a, b in zip(before, value):  # noqa: B905 - the shorter one bounds the shared prefix
        if a != b:
            break
        n += 1
    return [n, value[n:]] if n >= 6 else value
