"""Compact history pages (``?history=compact`` on the stream): a catch-up page of envelopes in one
message, each entry holding only what differs from what came before it in the page.

    {"kind":"events","game_id":G,"events":[ENTRY, …]}

An entry is an envelope without ``game_id`` (the page's), with these changes (openapi/websocket.md):

- ``seq`` is omitted when it is one more than the previous entry's;
- ``type``, ``v``, ``turn``, ``phase``, ``actor``, ``recorded_at`` and ``command_id`` are omitted when
  equal to the previous entry's (carried forward; ``"command_id": null`` when it goes back to none);
  ``recorded_at`` and ``command_id`` may come as ``[n, "rest"]``: the previous entry's first n characters
  followed by rest; ``dt`` instead of ``recorded_at``: the previous entry's date and time of day plus dt
  microseconds (both times of the form ``YYYY-MM-DDTHH:MM:SS.ffffffZ``, on the same date);
- ``data`` is omitted when equal to the data of the previous entry of the same type; ``d`` instead of
  ``data``: that data with the keys in ``d`` replaced;
- ``r`` instead of ``rolls``: the rolls of the previous entry of the same type (as many), roll i with the
  keys in ``r[i]`` replaced; no ``rolls`` and no ``r``: no rolls;
- ``dd`` instead of ``dice``: the dice of the previous entry that had dice, ``base`` plus ``dd[0]`` and
  ``slot`` plus ``dd[1]`` (``dd`` has one number when there is no slot); no ``dice`` and no ``dd``: none;
- ``superseded`` as in an envelope (absent: false).

The first entry of a page carries its seq and all of these in full (``command_id`` only when it has
one). A change of a value's JSON type (1 to true, 1 to 1.0) is never a patch: patches compare strictly.
``expand_page`` is the reference decoder.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

import msgspec

from service.events.envelope import DiceMaterial, Envelope

_encode = msgspec.json.Encoder().encode
_builtins = msgspec.to_builtins
_TIME = re.compile(r"(\d{4}-\d\d-\d\dT)(\d\d):(\d\d):(\d\d)\.(\d{6})Z", re.ASCII)  # 0-9 only
_DAY = 86_400_000_000


def compact_page(game_id: str, envelopes: Sequence[Envelope]) -> bytes:
    return _encode({"kind": "events", "game_id": game_id, "events": compact_entries(envelopes)})


def compact_entries(envelopes: Sequence[Envelope]) -> list[dict[str, Any]]:
    """The page's entries, in order (see the module's docstring for what each may leave out)."""
    entries: list[dict[str, Any]] = []
    last_seq = last_type = last_cmd = None
    last: list[Any] = [None, None, None, None]  # the previous entry's v, turn, phase and actor
    last_at: str | None = None
    last_time: tuple[str, int] | None = None
    data_of: dict[str, dict[str, Any]] = {}  # type -> the data of its previous entry
    rolls_of: dict[str, list[dict[str, Any]]] = {}  # type -> the rolls of its previous entry
    last_dice: DiceMaterial | None = None
    memo = _Memo()
    for env in envelopes:
        entry: dict[str, Any] = {}
        seq = env.seq
        if last_seq is None or seq != last_seq + 1:
            entry["seq"] = seq
        last_seq = seq
        kind = env.type
        if kind != last_type:
            entry["type"] = last_type = kind
        _put_changed(entry, env, last)
        at = env.recorded_at
        if at != last_at:
            time = memo.day_micros(at)
            if time is not None and last_time is not None and time[0] == last_time[0]:
                entry["dt"] = time[1] - last_time[1]
            else:
                entry["recorded_at"] = _shortened(last_at, at)
            last_at, last_time = at, time
        if env.command_id != last_cmd:
            entry["command_id"] = _shortened(last_cmd, env.command_id)
            last_cmd = env.command_id
        _put_data(entry, data_of, kind, env.data, memo)
        _put_rolls(entry, rolls_of, kind, memo.rolls(env.rolls), memo)
        dice = env.dice
        if dice is not None:
            shift = _dice_shift(last_dice, dice)
            if shift is not None:
                entry["dd"] = shift
            else:
                entry["dice"] = _builtins(dice)
            last_dice = dice
        if env.superseded:
            entry["superseded"] = True
        entries.append(entry)
    return entries


def _put_changed(entry: dict[str, Any], env: Envelope, last: list[Any]) -> None:
    """``v``, ``turn``, ``phase`` and ``actor`` where they differ from ``last`` (the previous entry's,
    updated here)."""
    if env.v != last[0]:
        entry["v"] = last[0] = env.v
    if env.turn != last[1]:
        entry["turn"] = last[1] = env.turn
    if env.phase != last[2]:
        entry["phase"] = last[2] = env.phase
    if env.actor != last[3]:
        entry["actor"] = last[3] = env.actor


class _Memo:
    """What a page works out more than once: envelopes of equal events share their data dict and rolls
    tuple (the reader renders them so), so their rolls as JSON values and the patches between two of
    them are worked out once. Keyed by ids, with the objects held so that no id is reused meanwhile."""

    def __init__(self) -> None:
        self._rolls: dict[int, tuple[Any, list[dict[str, Any]]]] = {}
        self._patches: dict[tuple[int, int], tuple[Any, Any, Any]] = {}
        self._seconds: dict[str, tuple[str, int] | None] = {}

    def rolls(self, rolls: tuple[Any, ...]) -> list[dict[str, Any]]:
        if not rolls:
            return []
        known = self._rolls.get(id(rolls))
        if known is not None and known[0] is rolls:
            return known[1]
        value = _builtins(rolls)
        self._rolls[id(rolls)] = (rolls, value)
        return value

    def day_micros(self, value: str) -> tuple[str, int] | None:
        """``_day_micros``, with the part up to the second worked out once per second (a busy game
        records many events a second)."""
        if (
            len(value) != 27
            or value[19] != "."
            or value[26] != "Z"
            or not value[20:26].isascii()
            or not value[20:26].isdigit()
        ):
            return None
        second = value[:19]
        known = self._seconds.get(second)
        if known is None:
            known = self._seconds[second] = _day_micros(second + ".000000Z")
        return None if known is None else (known[0], known[1] + int(value[20:26]))

    def patch(self, before: Any, after: Any, work: Any) -> Any:
        key = (id(before), id(after))
        known = self._patches.get(key)
        if known is not None and known[0] is before and known[1] is after:
            return known[2]
        value = work(before, after)
        self._patches[key] = (before, after, value)
        return value


def _put_data(
    entry: dict[str, Any], data_of: dict[str, dict[str, Any]], kind: str, data: dict[str, Any], memo: _Memo
) -> None:
    before = data_of.get(kind)
    data_of[kind] = data
    if before is None:
        entry["data"] = data
        return
    if before is data:
        return
    patch = memo.patch(before, data, _patch)
    if patch is None:
        entry["data"] = data
    elif patch:
        entry["d"] = patch


def _put_rolls(
    entry: dict[str, Any],
    rolls_of: dict[str, list[dict[str, Any]]],
    kind: str,
    rolls: list[dict[str, Any]],
    memo: _Memo,
) -> None:
    before = rolls_of.get(kind)
    rolls_of[kind] = rolls
    if not rolls:
        return
    if before is not None and len(before) == len(rolls):
        patches = memo.patch(before, rolls, _roll_patches)
        if patches is not None:
            entry["r"] = patches
            return
    entry["rolls"] = rolls


def _roll_patches(before: list[dict[str, Any]], rolls: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    patches = [_patch(b, r) for b, r in zip(before, rolls)]  # noqa: B905 - equal lengths
    return None if None in patches else patches  # type: ignore[return-value]


def _patch(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any] | None:
    """The keys of ``after`` whose values differ from ``before``'s, or None when the two do not have the
    same keys in the same order (a patch could not give ``after`` back exactly)."""
    if len(before) != len(after) or list(before) != list(after):
        return None
    return {k: v for k, v in after.items() if not _same(before[k], v)}


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON: Python's == takes 1 for True and 1.0, -0.0 for 0.0, and ignores key order."""
    if type(a) is not type(b) or a != b:
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(v, b[k]) for k, v in a.items())
    if isinstance(a, list):
        return all(map(_same, a, b))
    if isinstance(a, float):
        return math.copysign(1.0, a) == math.copysign(1.0, b)
    return True


def _dice_shift(before: DiceMaterial | None, dice: DiceMaterial) -> list[int] | None:
    """[base − before's base, slot − before's slot] when nothing else differs (one number without slots)."""
    if before is None or before.turn != dice.turn or before.salt != dice.salt:
        return None
    if (before.origin, before.salts, before.seen_by) != (dice.origin, dice.salts, dice.seen_by):
        return None
    if dice.slot is None or before.slot is None:
        return [dice.base - before.base] if dice.slot is None and before.slot is None else None
    return [dice.base - before.base, dice.slot - before.slot]


def _day_micros(value: str) -> tuple[str, int] | None:
    """(date, microseconds into the day) of a time written ``YYYY-MM-DDTHH:MM:SS.ffffffZ``."""
    m = _TIME.fullmatch(value)
    if m is None:
        return None
    h, mi, s = int(m[2]), int(m[3]), int(m[4])
    if h > 23 or mi > 59 or s > 59:
        return None
    return m[1], ((h * 60 + mi) * 60 + s) * 1_000_000 + int(m[5])


def _shortened(before: str | None, value: str | None) -> Any:
    """``value``, or ``[n, rest]`` when it shares its first n characters with ``before`` (worth it from 6)."""
    if before is None or value is None:
        return value
    lo, hi = 0, min(len(before), len(value))
    for k in (hi - 1, hi - 3):  # ids of one game mostly differ in their last few characters: try those first
        if k > lo and before[:k] == value[:k]:
            lo = k
            break
    while lo < hi:  # the longest shared prefix, by halving: slice comparisons, not a loop per character
        mid = (lo + hi + 1) // 2
        if before[:mid] == value[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return [lo, value[lo:]] if lo >= 6 else value


# --- the reference decoder ------------------------------------------------------------------------


def expand_page(frame: dict[str, Any]) -> list[dict[str, Any]]:
    """The envelopes of a compact page, exactly as ``{"kind":"event"}`` frames would carry them."""
    out: list[dict[str, Any]] = []
    last: dict[str, Any] = {"command_id": None}
    data_of: dict[str, dict[str, Any]] = {}
    rolls_of: dict[str, list[dict[str, Any]]] = {}
    dice: dict[str, Any] | None = None
    seq = 0
    for entry in frame["events"]:
        seq = entry.get("seq", seq + 1)
        for key in ("type", "v", "turn", "phase", "actor", "recorded_at", "command_id"):
            if key in entry:
                value = entry[key]
                last[key] = last[key][: value[0]] + value[1] if isinstance(value, list) else value
        if "dt" in entry:
            last["recorded_at"] = _plus_micros(last["recorded_at"], entry["dt"])
        kind = last["type"]
        if "data" in entry:
            data = entry["data"]
        else:
            data = {**data_of[kind], **entry.get("d", {})}
        data_of[kind] = data
        if "r" in entry:
            rolls = [{**before, **patch} for before, patch in zip(rolls_of[kind], entry["r"], strict=True)]
        else:
            rolls = entry.get("rolls", [])
        rolls_of[kind] = rolls
        served = _served_dice(entry, dice)
        if served is not None:
            dice = served
        out.append(_expanded(frame["game_id"], seq, last, data, rolls, served, bool(entry.get("superseded"))))
    return out


def _served_dice(entry: dict[str, Any], dice: dict[str, Any] | None) -> dict[str, Any] | None:
    """An entry's dice: ``dd`` applied to the previous entry's ``dice``, or its own (None: none)."""
    if "dd" in entry:
        assert dice is not None, "dd needs an earlier entry with dice"
        served = {**dice, "base": dice["base"] + entry["dd"][0]}
        if len(entry["dd"]) > 1:
            served["slot"] = dice["slot"] + entry["dd"][1]
        return served
    return entry.get("dice")


def _expanded(
    game_id: str,
    seq: int,
    last: dict[str, Any],
    data: dict[str, Any],
    rolls: list[dict[str, Any]],
    served: dict[str, Any] | None,
    superseded: bool,
) -> dict[str, Any]:
    """An envelope as a ``{"kind":"event"}`` frame carries it, in the Envelope's field order."""
    env: dict[str, Any] = {"game_id": game_id, "seq": seq}
    env.update((key, last[key]) for key in ("type", "v", "turn", "phase", "actor", "recorded_at"))
    env["data"] = data
    if last["command_id"] is not None:
        env["command_id"] = last["command_id"]
    if rolls:
        env["rolls"] = rolls
    if served is not None:
        env["dice"] = served
    if superseded:
        env["superseded"] = True
    return env


def _plus_micros(before: str, dt: int) -> str:
    date, micros = _day_micros(before) or ("", -1)
    micros += dt
    if not date or not 0 <= micros < _DAY:
        raise ValueError(f"dt {dt} does not apply to {before!r}")
    s, us = divmod(micros, 1_000_000)
    m, s = divmod(s, 60)
    h, m = divmod(m, 60)
    return f"{date}{h:02d}:{m:02d}:{s:02d}.{us:06d}Z"
