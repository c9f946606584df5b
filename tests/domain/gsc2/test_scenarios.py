"""Ship data sheets and scenario validation (the issue's "Ship data"), and the sample scenarios."""

from __future__ import annotations

import pytest

from service.domain.core import InvalidScenario
from service.domain.gsc2 import RULESET as R

from .helpers import beam, scenario, ship


def test_sample_scenarios_load_and_have_the_promised_content() -> None:
    found = R.scenarios()
    assert {"duel", "fleet-action", "boarding-action"} <= set(found)
    duel = R.parse_setup(found["duel"])
    assert len(duel.ships) == 2 and R.seats(duel) == ["red", "blue"]
    fleet = R.parse_setup(found["fleet-action"])
    assert [sum(s.side == side for s in fleet.ships) for side in ("red", "blue")] == [3, 3]
    assert {t.kind for t in fleet.terrain} >= {"asteroid", "dust"}
    assert any(s.missiles for s in fleet.ships)
    board = R.parse_setup(found["boarding-action"])
    assert any(s.speed == 0 for s in board.ships)  # the immobilized target


def _bad(raw: dict, path: str) -> InvalidScenario:
    with pytest.raises(InvalidScenario) as info:
        R.parse_setup(raw)
    assert info.value.path == path, info.value
    return info.value


def test_a_battery_with_an_unknown_arc_is_rejected_with_its_path() -> None:
    _bad(scenario(ship("a", "red", beams=[beam(arc="Q")]), ship("b", "blue")), "ships[0].beams[0].arc")


def test_a_chart_row_naming_a_missing_system_is_rejected() -> None:
    chart = [["drive"]] * 10
    chart = [*chart[:3], ["drive", "mds"], *chart[4:]]
    err = _bad(scenario(ship("a", "red"), ship("b", "blue", chart=chart)), "ships[1].chart[3][1]")
    assert "mds" in err.detail


def test_negative_hull_is_rejected() -> None:
    _bad(scenario(ship("a", "red", hull=-3), ship("b", "blue")), "ships[0].hull")


def test_chart_needs_ten_rows_and_types_are_checked() -> None:
    _bad(scenario(ship("a", "red", chart=[["drive"]] * 9), ship("b", "blue")), "ships[0].chart")
    _bad(scenario(ship("a", "red", size="big"), ship("b", "blue")), "$.ships[0].size")
    _bad(scenario(ship("a", "red", beams=[beam(klass="huge")]), ship("b", "blue")), "ships[0].beams[0].class")


def test_gsc2_r_1_two_or_more_different_sides() -> None:
    """GSC2-R-1, GSC2-R-21: two or more different sides (at most six), each with a ship."""
    raw = scenario(ship("a", "red"), ship("b", "blue"))
    raw["sides"] = ["red", "blue", "green"]
    assert _bad(raw, "ships").detail == "side 'green' has no ship"
    for sides in (["red"], ["red", "red"], ["red", "blue", "red"], [f"s{i}" for i in range(7)]):
        _bad({**raw, "sides": sides}, "sides")
    three = scenario(ship("a", "red"), ship("b", "blue"), ship("c", "green"))
    three["sides"] = ["red", "blue", "green"]
    assert R.parse_setup(three).sides == ("red", "blue", "green")
