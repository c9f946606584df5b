"""The ASC rules-aware bot (placeholder until written; see below)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from service.domain.core.bot import RandomBot
from service.domain.core.choices import Form, Option


class AscBot:
    name = "rules"

    def choose(
        self, view: Mapping[str, Any], options: Sequence[Option], forms: Sequence[Form], me: str, key: int
    ) -> Any:
        return RandomBot().choose(view, options, forms, me, key)
