"""Scenario data sheets: samples load, validation names the field path, setups are redacted."""

from __future__ import annotations

import json

import pytest

from service.domain.asc import RULESET as R
from service.domain.core import SPECTATOR, UMPIRE, InvalidScenario, find_ruleset, seat

from .builders import duel, ship


def test_registry_and_contract() -> None:
    assert find_ruleset("asc") is R
    assert (R.name, R.version) == ("asc", "1.0")
    assert R.scenario_package == "service.domain.asc.scenarios"
    for t in (*R.command_types, *R.event_types):
        assert t.__struct_config__.tag.startswith("asc."), t


def test_sample_scenarios_load() -> None:
    names = set(R.scenarios())
    assert {"frigate-screen", "ambush"} <= names
    for raw in R.scenarios().values():
        setup = R.parse_setup(raw)
        assert R.seats(setup) == ["advantaged", "disadvantaged"]
        state = R.initial_state(setup)
        assert R.clock(state).phase == "sensors"


def test_ambush_has_drones_buoy_and_advantaged_starts_hidden() -> None:
    setup = R.parse_setup(R.scenarios()["ambush"])
    kinds = {v.kind for v in setup.vessels if v.side == "advantaged"}
    assert {"drone", "buoy", "missile", "starship"} <= kinds
    view = R.view(R.initial_state(setup), seat("disadvantaged"))
    assert all(v["side"] == "disadvantaged" for v in view["vessels"])
    # the buoy has no stardrive: not even a bogey (ASC-DET-1)
    assert len(view["bogeys"]) == 3


@pytest.mark.parametrize(
    "patch, path",
    [
        ({"alpha": {"facing": 7}}, "vessels[0].facing"),
        ({"alpha": {"screens": 10}}, "vessels[0].screens"),
        ({"bravo": {"passive_signature": "4(x)"}}, "vessels[1].passive_signature"),
        ({"bravo": {"turrets": [{"id": "t", "type": "jack", "arcs": [0, 1, 2]}]}}, "vessels[1].turrets[0].arcs"),
        ({"bravo": {"turrets": [{"id": "t", "arcs": [0, 2, 4]}]}}, "vessels[1].turrets[0].arcs"),
        ({"bravo": {"turrets": [{"id": "t", "mounts": 5}]}}, "vessels[1].turrets[0].mounts"),
        ({"bravo": {"turrets": [{"id": "t", "damage": "2y3"}]}}, "vessels[1].turrets[0].damage"),
        ({"bravo": {"launchers": [{"id": "s", "rof": "3/2"}]}}, "vessels[1].launchers[0].rof"),
        ({"alpha": {"hex": [20, 0]}}, "vessels[0].hex"),
        ({"alpha": {"controller": "bravo", "kind": "missile"}}, "vessels[0].controller"),
        ({"alpha": {"atmospheric": True}}, "vessels[0].atmospheric"),
    ],
)
def test_invalid_scenarios_name_the_field(patch: dict, path: str) -> None:
    with pytest.raises(InvalidScenario) as info:
        R.parse_setup(duel(**patch))
    assert info.value.path == path


def test_type_errors_name_the_field_too() -> None:
    raw = duel(alpha={"manoeuvre": "Z"})
    with pytest.raises(InvalidScenario) as info:
        R.parse_setup(raw)
    assert "vessels[0].manoeuvre" in info.value.path
    with pytest.raises(InvalidScenario):
        R.parse_setup(duel(alpha={"laser": 3}))  # unknown field
    with pytest.raises(InvalidScenario) as info:
        R.parse_setup({"name": "x", "vessels": [ship("a", "advantaged"), ship("a", "disadvantaged")]})
    assert info.value.path == "vessels[1].id"
    with pytest.raises(InvalidScenario) as info:
        R.parse_setup({"name": "x", "vessels": [ship("a", "advantaged")]})
    assert info.value.path == "vessels"


def test_redact_setup_hides_enemy_data_sheets() -> None:
    raw = R.scenarios()["ambush"]
    assert R.redact_setup(raw, UMPIRE) == raw
    dis = R.redact_setup(raw, seat("disadvantaged"))
    text = json.dumps(dis)
    for v in raw["vessels"]:
        if v["side"] == "advantaged":
            assert v["id"] not in text and v["name"] not in text
    assert [b["bogey"] for b in dis["bogeys"]] == ["bogey-1", "bogey-2", "bogey-3"]
    spec = R.redact_setup(raw, SPECTATOR)
    assert spec["vessels"] == [] and len(spec["bogeys"]) == 5
