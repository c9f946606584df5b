"""Computer opponents: the protocol every ruleset's bots follow, and the random bot all rulesets share.

A bot sees exactly what its seat sees — the seat's view (with its ``draw``), its options and forms —
never the referee's state, so it cannot cheat in a hidden-information game and the same bot can run in
the service or behind a client holding a seat token. Bots are deterministic: ``key`` (e.g. the game's
version) drives every choice through a hash, never a global random source.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from .choices import Field, Form, Option, compose


class Bot(Protocol):
    name: str

    def choose(
        self, view: Mapping[str, Any], options: Sequence[Option], forms: Sequence[Form], me: str, key: int
    ) -> Any:
        """A command to send (a Command or its JSON builtins), or None to wait."""
        ...


def pick_index(key: int, salt: str, n: int) -> int:
    """A deterministic index in range(n) from ``key`` and ``salt``."""
    digest = hashlib.sha256(f"{key}:{salt}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % max(1, n)


def hashed_pick(key: int) -> Any:
    """A form picker choosing each field's value by hash (for the random bot and tests)."""

    def pick(field: Field, index: int) -> Any:
        salt = f"{field.key}:{index}"
        if field.kind == "choice":
            return field.values[pick_index(key, salt, len(field.values))].value if field.values else None
        if field.kind == "number":
            lo = field.min if field.min is not None else 0.0
            hi = field.max if field.max is not None else lo
            step = field.step or 1.0
            n = int(round((hi - lo) / step)) + 1 if hi > lo else 1
            return lo + step * pick_index(key, salt, n)
        if field.kind == "flag":
            return pick_index(key, salt, 2) == 1
        if field.kind == "legs":
            left = float(field.limits.get("max_distance_left", 0.0))
            tenths = int(left * 10)
            return [{"turn": 0, "distance": pick_index(key, salt, tenths + 1) / 10}] if tenths else []
        return field.default if field.default is not None else []

    return pick


class RandomBot:
    """Any option or a hashed composition of any form, uniformly: the baseline a rules-aware bot must beat."""

    name = "random"

    def choose(
        self, view: Mapping[str, Any], options: Sequence[Option], forms: Sequence[Form], me: str, key: int
    ) -> Any:
        n = len(options) + len(forms)
        if n == 0:
            return None
        i = pick_index(key, me, n)
        if i < len(options):
            return options[i].command
        return compose(forms[i - len(options)], hashed_pick(key))
