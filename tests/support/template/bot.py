"""The template's rules-aware bot: the shot with the most expected damage (one ply; core.bot.Bot)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from service.domain.core.choices import Form, Option

from . import commands as C
from .gunnery import needed


def expected_damage(power: int) -> float:
    """TPL-2: P(d6 ≥ 3 + power) × power — power 2 is best (2/3 of a point)."""
    return max(0, 7 - needed(power)) / 6 * power


class TemplateBot:
    name = "rules"

    def choose(
        self, view: Mapping[str, Any], options: Sequence[Option], forms: Sequence[Form], me: str, key: int
    ) -> Any:
        shots = [o.command for o in options if isinstance(o.command, C.Fire)]
        if shots:
            return max(shots, key=lambda c: expected_damage(c.power))
        return options[0].command if options else None
