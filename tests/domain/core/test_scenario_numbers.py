"""Every ruleset's scenario parsing refuses numbers that are not finite or lie outside ±SCENARIO_LIMIT."""

from __future__ import annotations

import copy

import pytest

from service.domain.core import InvalidScenario, available_rulesets, find_ruleset
from service.domain.core.numbers import SCENARIO_LIMIT, check_scenario_numbers


def _first_number_path(value, path=""):
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return path
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found = _first_number_path(
            item,
            f"{path}.{key}"
            if isinstance(value, dict) and path
            else (str(key) if isinstance(value, dict) else f"{path}[{key}]"),
        )
        if found is not None:
            return found
    return None


def _set(raw, path, number):
    import re

    parts = re.findall(r"[^.\[\]]+", path)
    target = raw
    for part in parts[:-1]:
        target = target[int(part)] if isinstance(target, list) else target[part]
    last = parts[-1]
    if isinstance(target, list):
        target[int(last)] = number
    else:
        target[last] = number


@pytest.mark.parametrize("bad", [1e30, -1e308, float("inf"), float("nan"), SCENARIO_LIMIT + 1])
@pytest.mark.parametrize("name", available_rulesets())
def test_every_ruleset_refuses_absurd_scenario_numbers(name, bad):
    ruleset = find_ruleset(name)
    sample_name, sample = sorted(ruleset.scenarios().items())[0]
    raw = copy.deepcopy(sample)
    path = _first_number_path(raw)
    assert path is not None, f"{name}/{sample_name} has no number to corrupt"
    _set(raw, path, bad)
    with pytest.raises(InvalidScenario) as info:
        ruleset.parse_setup(raw)
    assert info.value.path == path


def test_numbers_within_the_range_pass_and_paths_name_the_field():
    check_scenario_numbers({"hull": SCENARIO_LIMIT, "x": -12.5, "flags": [True, False]})
    with pytest.raises(InvalidScenario) as info:
        check_scenario_numbers({"ships": [{"hull": 3}, {"x": 1e308}]})
    assert info.value.path == "ships[1].x"
