"""The setup type, its validation, and where the sample scenarios live."""

from __future__ import annotations

import msgspec

from service.domain.core import InvalidScenario

SAMPLES = "tests.support.template.scenarios"  # *.json in that package


class Scenario(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    name: str
    sides: tuple[str, ...] = ("red", "blue")
    hull: int = 4
    turn_limit: int = 12


def validate_scenario(s: Scenario) -> None:
    """Cross-field checks beyond the types; InvalidScenario names the field path."""
    if len(s.sides) != 2 or s.sides[0] == s.sides[1]:
        raise InvalidScenario("sides", "two distinct sides (TPL-1)")
    if s.hull < 1:
        raise InvalidScenario("hull", "must be at least 1 (TPL-3)")
    if s.turn_limit < 1:
        raise InvalidScenario("turn_limit", "must be at least 1 (TPL-3)")
