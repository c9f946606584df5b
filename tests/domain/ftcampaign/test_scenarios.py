"""Sample campaigns load; scenario errors name the field path; rulings FTC-R-n of the docs."""

from __future__ import annotations

import copy

import msgspec
import pytest

from service.domain.core import SPECTATOR, UMPIRE, Dice, InvalidScenario, seat
from service.domain.core.registry import find_ruleset
from service.domain.ftcampaign import RULESET as R
from service.domain.ftcampaign import commands as C
from service.domain.ftcampaign import events as E
from tests.support.decider import then_violation

from .builders import SETUP, Camp, fold, of, when
from .test_arrival import arrive, battle_ready
from .test_movement import order, rest_hold


def test_registry_and_samples() -> None:
    assert find_ruleset("ftcampaign") is R and R.hidden_information
    scenarios = R.scenarios()
    assert set(scenarios) >= {"intro-duel", "three-powers"}
    for raw in scenarios.values():
        setup = R.parse_setup(raw)
        st = R.initial_state(setup)
        assert R.seats(setup) == list(st.order) and R.clock(st).phase == "map"
        assert R.redact_setup(raw, seat(st.order[0])) == raw
        msgspec.json.encode(R.view(st, SPECTATOR))


@pytest.mark.parametrize(
    ("mutate", "path"),
    [
        (lambda s: s.update(players=s["players"][:1]), "players"),
        (lambda s: s["players"][1].update(id="red"), "players[1].id"),
        (lambda s: s["players"][2].update(ally_navy="NAC"), "players[2].ally_navy"),
        (lambda s: s["umpires"][1].update(plays="nobody"), "umpires[1].plays"),
        (lambda s: s["designs"][1].update(mass=0), "designs[1].mass"),
        (lambda s: s["designs"][1]["systems"][1].update(id="b2"), "designs[1].systems[1].id"),
        (lambda s: s["designs"][2].update(hull="lots"), "$.designs[2].hull"),
        (lambda s: s["modules"][0].update(hull_design="nope"), "modules[0].hull_design"),
        (lambda s: s.update(map_side=12), "map_side"),
        (lambda s: s["designs"][0].update(colour="red"), "$.designs[0]"),
    ],
)
def test_scenario_errors_name_the_field(mutate, path) -> None:  # type: ignore[no-untyped-def]
    raw = copy.deepcopy(SETUP)
    raw["players"] = [dict(p) for p in raw["players"]]
    mutate(raw)
    with pytest.raises(InvalidScenario) as info:
        R.parse_setup(raw)
    assert info.value.path.startswith(path), (info.value.path, info.value.detail)


def test_ftc_r_1_map_side_may_be_smaller_for_short_games() -> None:
    """FTC-R-1: a scenario may set map_side 3..8 (the digest's 6 is the default)."""
    st = R.initial_state(R.scenarios()["intro-duel"])
    evs = when(R, st, C.GenerateMap(), UMPIRE, Dice(b"r1", "g", 1))
    assert of(evs, E.MapGenerated)[0].radius == 3


def test_ftc_r_2_percentages_round_up() -> None:
    """FTC-R-2: 20% of 6 is 2 pts; 7.5% of 100 is 8."""
    from service.domain.ftcampaign.state import ceil_pct

    assert ceil_pct(6, 200) == 2 and ceil_pct(100, 75) == 8 and ceil_pct(100, 100) == 10


def test_ftc_r_3_economic_turn_1_is_paid_by_the_starting_capital() -> None:
    """FTC-R-3: no income and no maintenance at the start of economic turn 1."""
    st = Camp().world((0, 0), "red").build()
    st = R.evolve(st, E.PhaseChanged(phase="deployment"))
    from msgspec.structs import replace

    st = replace(st, turn=0)
    evs: list = []
    for p in st.order:
        evs = when(R, st, C.Ready(), seat(p))
        st = fold(st, evs)
    reps = of(evs, E.EconomyReport)
    assert st.turn == 1 and st.economies["red"].cash == 1000 and len(reps) == 3
    assert all(r.income == 0 and r.maintenance == 0 for r in reps)
    assert st.economies["red"].income_worlds == ("0,0",)
    then_violation(R, st, C.Ready(), "FTC-ECO-1", seat("red"))


def test_ftc_r_4_a_light_element_is_one_ship_of_mass_20_or_less() -> None:
    """FTC-R-4."""
    st = Camp().world((1, 0), None, None).ship("red", "dd", (1, 0)).build()
    then_violation(R, st, C.Scout(group="red-1,0"), "FTC-WLD-5", seat("red"))


def test_ftc_r_5_interdiction_lasts_until_the_next_movement() -> None:
    """FTC-R-5: an interdiction blocks routes in the next turn's movement, then lifts."""
    st = (
        Camp()
        .world((0, 0), "red", route=True)
        .world((2, 0), "blue", route=True)
        .world((4, 0), None, None, route=True)
        .route((0, 0), (2, 0))
        .route((2, 0), (4, 0))
        .ship("red", "dd", (0, 0))
        .build()
    )
    from msgspec.structs import replace

    st = replace(st, worlds={**st.worlds, "2,0": replace(st.worlds["2,0"], interdicted=True)})
    st = fold(st, when(R, st, order("red-0,0", (4, 0), route=True), seat("red")))
    st, evs = rest_hold(st)
    assert st.groups["red-0,0"].hex == (0, 0) and of(evs, E.InterdictionLifted)
    assert not st.worlds["2,0"].interdicted


def test_ftc_r_6_closing_the_turn_takes_defaults() -> None:
    """FTC-R-6: umpire closes contacts: engage → stay, stand-off → stand off, assault → hold off, formations → line."""
    st, _ = arrive("attack", "stand_off")
    evs = when(R, st, C.CloseTurn(), UMPIRE, [2, 3, 3])
    assert of(evs, E.BattleStarted)
    st = fold(st, evs)
    evs = when(R, st, C.CloseTurn(), UMPIRE)
    assert {e.formation.formation for e in of(evs, E.FormationDeclared)} == {"line"}
    st = fold(st, evs)
    then_violation(R, st, C.CloseTurn(), "FTC-ARR-8")


def test_ftc_r_7_views_and_explanations_hold_no_secrets() -> None:
    """FTC-R-7: another player's composition, economy and sealed orders are never in a view."""
    st, _ = arrive("attack", "attack", [2, 3, 4])
    st = battle_ready(st)
    green = R.view(st, seat("green"))
    assert green["battles"] == [] and green["groups"] == [] and "economies" not in green
    report = E.EconomyReport(
        player="red",
        economic_turn=1,
        income=50,
        interdicted=(),
        maintenance=0,
        rate="full",
        penalty=False,
        ordnance=0,
        cash=10,
        income_worlds=("0,0",),
    )
    moved = E.GroupMoved(player="red", group="red-0,0", frm=(0, 0), to=(1, 0), posture="attack")
    for e in (report, moved):
        assert R.redact(e, seat("green"), st) is None and R.redact(e, seat("red"), st) == e
    assert R.explain(E.OrdersSubmitted(player="red", orders=None)) == "red seals orders."
