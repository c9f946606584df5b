"""The bounds every scenario number respects, whatever the ruleset: finite, and within ±SCENARIO_LIMIT.

A ruleset's own ranges (a hull of at least 1, a position on the map) are its ``validate_setup``'s; this
check only keeps absurd values (hull 1e30, x = ±1e308, NaN) out of every fold, view and drawing.
"""

from __future__ import annotations

import math
from typing import Any

from .errors import InvalidScenario

SCENARIO_LIMIT = 1_000_000  # larger than any table measure, hull, turn count or income in a real scenario


def check_scenario_numbers(value: Any, path: str = "") -> None:
    """Raise InvalidScenario naming the first number that is not finite or lies outside the limit."""
    if isinstance(value, bool):
        return
    if isinstance(value, int | float):
        if isinstance(value, float) and not math.isfinite(value):
            raise InvalidScenario(path or "$", f"must be a finite number, not {value}")
        if abs(value) > SCENARIO_LIMIT:
            raise InvalidScenario(path or "$", f"{value:g} is outside the scenario range ±{SCENARIO_LIMIT:,}")
    elif isinstance(value, dict):
        for key, item in value.items():
            check_scenario_numbers(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            check_scenario_numbers(item, f"{path}[{index}]")
