"""Sample scenarios, scenario validation with field paths, the ruleset object, view and options."""

from __future__ import annotations

import msgspec
import pytest

from service.domain.core import SPECTATOR, UMPIRE, InvalidScenario, find_ruleset, seat
from service.domain.starfinder import RULESET as R
from service.domain.starfinder import commands as C

from .helpers import crew, scenario, ship, weapon


def test_the_registry_finds_the_ruleset_and_its_scenarios() -> None:
    assert find_ruleset("starfinder") is R
    assert (R.name, R.version, R.hidden_information) == ("starfinder", "1.0", False)
    found = R.scenarios()
    assert {"duel", "skirmish"} <= set(found)
    duel = R.parse_setup(found["duel"])
    assert [s.tier for s in duel.ships] == [1, 1] and "sunrise/pilot" in R.seats(duel)
    skirmish = R.parse_setup(found["skirmish"])
    assert [sum(s.side == side for s in skirmish.ships) for side in skirmish.sides] == [2, 1]
    assert any(c.role == "passenger" for s in skirmish.ships for c in s.crew)
    for tag in [c.__struct_config__.tag for c in R.command_types] + [e.__struct_config__.tag for e in R.event_types]:
        assert tag.startswith("starfinder.")


def _bad(raw: dict, path: str) -> InvalidScenario:
    with pytest.raises(InvalidScenario) as info:
        R.parse_setup(raw)
    assert info.value.path == path, info.value
    return info.value


def test_scenario_errors_name_the_field_path() -> None:
    b = ship("b", "corsairs", hex=(3, 3))
    _bad(scenario(ship("a", "pact", weapons=[weapon(arc="up")]), b), "ships[0].weapons[0].arc")
    _bad(scenario(ship("a", "pact", weapons=[weapon(damage="lots")]), b), "ships[0].weapons[0].damage")
    _bad(scenario(ship("a", "pact", crew=[crew("x", "pilot"), crew("y", "pilot")]), b), "ships[0].crew[0].role")
    _bad(scenario(ship("a", "pact", crew=[crew("x", "admiral")]), b), "ships[0].crew[0].role")
    _bad(scenario(ship("a", "pact"), ship("b", "corsairs")), "ships[1].hex")
    _bad(scenario(ship("a", "pact", facing=6), b), "ships[0].facing")
    _bad(scenario(ship("a", "pact", tier=1.5), b), "$.ships[0].tier")
    _bad(scenario(ship("a", "pact", tier="one"), b), "ships[0].tier")  # SF-R-22: 1/4, 1/3, 1/2 only
    _bad(scenario(ship("a", "pact", warp=9), b), "$.ships[0]")
    _bad(scenario(ship("a", "pact", shields={"forward": -1}), b), "ships[0].shields.forward")  # SF-DMG-2
    assert R.parse_setup(scenario(ship("a", "pact", shields={"forward": 0, "aft": 0}), b)).ships[0].max_shields == 0
    _bad(scenario(ship("a", "pact"), ship("b", "pirates", hex=(3, 3))), "ships[1].side")
    _bad(scenario(ship("a", "pact"), ship("a", "corsairs", hex=(3, 3))), "ships[1].id")
    _bad({**scenario(ship("a", "pact"), b), "sides": ["pact"]}, "sides")


def test_view_draws_a_hex_map_and_says_whose_action_is_pending() -> None:
    setup = R.parse_setup(R.scenarios()["duel"])
    st = R.initial_state(setup)
    v = R.view(st, SPECTATOR)
    msgspec.json.encode(v)
    sunrise = v["ships"][0]
    assert sunrise["hex"] == [0, 4] and sunrise["facing"] == 0 and sunrise["shields"]["forward"] == 10
    assert sunrise["hull"] == 35 and sunrise["critical_damage"] == {} and sunrise["data_sheet"]["tier"] == 1
    assert (v["turn"], v["phase"]) == (1, "engineering")
    assert set(v["awaiting"]) == {"sunrise/captain", "sunrise/engineer", "ashen/captain", "ashen/engineer"}
    assert R.clock(st).phase == "engineering"


def test_options_are_labelled_complete_commands_for_the_seat_and_none_for_spectators() -> None:
    st = R.initial_state(R.parse_setup(R.scenarios()["duel"]))
    assert R.options(st, SPECTATOR) == [] and R.forms(st, SPECTATOR) == []
    assert [o.command for o in R.options(st, UMPIRE)] == [C.ForcePhase()]
    offered = R.options(st, seat("sunrise/engineer"))
    mine = {msgspec.json.encode(o.command): o for o in offered}
    divert = mine[msgspec.json.encode(C.Divert(seat="sunrise/engineer", to="engines"))]
    assert divert.label == "Divert power to the engines: +2 speed" and divert.piece == "sunrise"
    assert divert.group == "engineering" and divert.rule == "SF-RND-2"
    passing = mine[msgspec.json.encode(C.Pass(seat="sunrise/engineer"))]
    assert passing.label == "Pass: take no engineering action this round"
    assert all(o.label and "{" not in o.label for o in mine.values())
    assert not [o for o in R.options(st, seat("sunrise/gunner")) if isinstance(o.command, C.Fire)]
