"""FTC-TIME-*, FTC-ECO-* and FTC-BLD-*: turns, money, maintenance, buying and building."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from service.domain.core import SPECTATOR, UMPIRE, Dice, RuleViolation, seat
from service.domain.core.guards import GAME_OVER, guarded_decide
from service.domain.ftcampaign import RULESET as R
from service.domain.ftcampaign import commands as C
from service.domain.ftcampaign import events as E
from service.domain.ftcampaign.state import State
from tests.support.decider import then_violation

from .builders import Camp, fold, of, when

RED = seat("red")


def deployment(st: State) -> State:
    return replace(st, phase="deployment", turn=0)


def all_hold(st: State, dice: object = None) -> tuple[State, list]:  # type: ignore[type-arg]
    evs = []
    for p in st.order:
        if p in st.orders:
            continue
        e = when(R, st, C.SubmitOrders(), seat(p), dice)
        evs += e
        st = fold(st, e)
    return st, evs


def econ_of(st: State, player: str):  # type: ignore[no-untyped-def]
    return st.economies[player]


def test_ftc_time_1_a_week_per_strategic_turn_and_a_jump_takes_one() -> None:
    """FTC-TIME-1: outcome and rejection."""
    st = Camp().world((0, 0), "red").ship("red", "dd", (0, 0)).build()
    st = fold(st, when(R, st, C.SubmitOrders(orders=(C.Order(group="red-0,0", to=(1, 0)),)), RED))
    st, evs = all_hold(replace(st, orders={**st.orders}))
    assert st.turn == 2 and st.groups["red-0,0"].hex == (1, 0)
    assert of(evs, E.TurnEnded)[0].turn == 1
    over = fold(st, [E.CampaignEnded(reason="done")])
    with pytest.raises(RuleViolation) as info:  # the common guard (core.guards) refuses once it is over
        guarded_decide(R, over, C.SubmitOrders(), RED, Dice(b"k", "g", 1))
    assert info.value.rule == GAME_OVER
    last = Camp().world((0, 0), "red").at(36).build()
    _, evs = all_hold(last)
    assert of(evs, E.CampaignEnded)[0].reason == "turn 36 was the campaign's last"


def test_ftc_time_2_six_weeks_make_an_economic_turn_interdicted_worlds_pay_nothing() -> None:
    """FTC-TIME-2: outcome and rejection."""
    st = (
        Camp()
        .world((0, 0), "blue", 50)
        .world((1, 0), "blue", 30)
        .ship("red", "cl", (1, 0), posture="attack")
        .ship("red", "dd", (1, 0), posture="attack")
        .at(6)
        .build()
    )
    st, evs = all_hold(st)
    assert st.phase == "contacts" and st.steps[0].kind == "assault"
    evs = when(R, st, C.AssaultDefences(step=st.steps[0].id, ships=st.groups["red-1,0"].ships), RED, [3])
    assert of(evs, E.AssaultResolved)[0].result == "interdicted"
    st = fold(st, evs)
    assert st.turn == 7 and st.economic_turn == 2
    rep = [e for e in of(evs, E.EconomyReport) if e.player == "blue"][0]
    assert rep.income == 50 and rep.interdicted == ("1,0",) and st.economies["blue"].cash == 1050
    # the interdicted world paid nothing, so no repairs there this economic turn (FTC-REP-1)
    st2 = Camp().world((0, 0), "red").world((1, 0), "red").ship("red", "dd", (1, 0)).at(7).build()
    st2 = replace(st2, economies={**st2.economies, "red": replace(st2.economies["red"], income_worlds=("0,0",))})
    sid = st2.groups["red-1,0"].ships[0]
    st2 = replace(st2, ships={**st2.ships, sid: replace(st2.ships[sid], hull_lost=2)})
    then_violation(R, st2, C.Repair(ship=sid, hull=2), "FTC-REP-1", RED)


def test_ftc_eco_1_starting_capital_cap_spares_and_defences() -> None:
    """FTC-ECO-1: outcome and rejection."""
    st = deployment(Camp().world((0, 0), "red").world((1, 0), "red").build())
    st = replace(st, economies={**st.economies, "red": replace(econ_of(st, "red"), cash=5000, ship_spending=3600)})
    evs = when(R, st, C.BuyShip(design="cl", world="0,0"), RED)
    assert of(evs, E.ShipBought)[0].capped and fold(st, evs).economies["red"].ship_spending == 3800
    then_violation(R, st, C.BuyShip(design="bb", world="0,0"), "FTC-ECO-1", RED)
    evs = when(R, st, C.BuySpares(world="0,0", value=200), RED)
    sp = of(evs, E.SparesBought)[0]
    assert sp.price == 150 and not sp.pending
    st = fold(st, evs)
    assert st.economies["red"].spares == {"0,0": 200} and st.economies["red"].spares_cap == {"0,0": 200}
    st = fold(st, when(R, st, C.BuyDefences(world="1,0", points=30), RED))
    assert st.worlds["1,0"].idp == 80
    # later: replenish only where named at the start, only to the starting level, arriving next economic turn
    later = replace(
        st, phase="orders", turn=7, economies={**st.economies, "red": replace(st.economies["red"], spares={"0,0": 50})}
    )
    evs = when(R, later, C.BuySpares(world="0,0", value=150), RED)
    assert of(evs, E.SparesBought)[0].pending
    then_violation(R, later, C.BuySpares(world="0,0", value=200), "FTC-ECO-1", RED)
    then_violation(R, later, C.BuySpares(world="1,0", value=10), "FTC-ECO-1", RED)
    then_violation(R, later, C.BuyDefences(world="1,0", points=10), "FTC-ECO-1", RED)
    # set-up spending closes when the player declares ready
    ready = fold(st, when(R, st, C.Ready(), RED))
    for cmd in (
        C.BuyShip(design="dd", world="0,0"),
        C.BuySpares(world="0,0", value=10),
        C.BuyDefences(world="1,0", points=10),
    ):
        then_violation(R, ready, cmd, "FTC-ECO-1", RED)
    assert not any(isinstance(o.command, (C.BuyShip, C.BuySpares)) for o in R.options(ready, RED))


def test_ftc_eco_2_cash_from_economic_turn_2_and_no_credit() -> None:
    """FTC-ECO-2: outcome and rejection."""
    st = Camp().world((0, 0), "red").build()
    then_violation(R, st, C.LayKeel(design="dd", world="0,0"), "FTC-ECO-2", RED)
    st7 = Camp().world((0, 0), "red").at(7).build()
    evs = when(R, st7, C.BuyShip(design="dd", world="0,0"), RED)
    assert of(evs, E.ShipBought)[0].price == 100
    poor = replace(st7, economies={**st7.economies, "red": replace(econ_of(st7, "red"), cash=90)})
    then_violation(R, poor, C.BuyShip(design="dd", world="0,0"), "FTC-ECO-2", RED)


def test_ftc_eco_2_exactly_the_cash_held_is_spent_one_point_more_is_credit() -> None:
    """FTC-ECO-2 boundary: a 100-pt destroyer is bought with exactly 100 held (cash 0 after); 99 is refused."""
    st7 = Camp().world((0, 0), "red").at(7).build()
    exact = replace(st7, economies={**st7.economies, "red": replace(econ_of(st7, "red"), cash=100)})
    bought = of(when(R, exact, C.BuyShip(design="dd", world="0,0"), RED), E.ShipBought)
    assert [b.price for b in bought] == [100]
    assert fold(exact, bought).economies["red"].cash == 0
    short = replace(st7, economies={**st7.economies, "red": replace(econ_of(st7, "red"), cash=99)})
    v = then_violation(R, short, C.BuyShip(design="dd", world="0,0"), "FTC-ECO-2", RED)
    assert "only 99 are held" in v.detail


def test_ftc_eco_3_maintenance_ten_percent_of_list_plus_half_ordnance() -> None:
    """FTC-ECO-3: outcome and rejection."""
    st = Camp().world((0, 0), "red", 0).ship("red", "dd", (0, 0)).ship("red", "frt", (0, 0)).at(6).build()
    st = replace(st, economies={**st.economies, "red": replace(econ_of(st, "red"), ordnance=40)})
    st, evs = all_hold(st)
    rep = [e for e in of(evs, E.EconomyReport) if e.player == "red"][0]
    assert rep.maintenance == 25 + 20 and rep.cash == 1000 - 45  # 10% of 250 (freighter included) + 50% of 40
    # discounted ships pay on the list price: blue (ally of the NAC) buys a destroyer at 80
    b = Camp().world((0, 0), "blue").at(7).build()
    evs = when(R, b, C.BuyShip(design="dd", world="0,0"), seat("blue"))
    bought = of(evs, E.ShipBought)[0]
    assert bought.price == 80 and bought.ship.cost == 100
    # what maintenance took is gone: no credit afterwards
    st = replace(st, phase="orders")
    st = replace(st, economies={**st.economies, "red": replace(st.economies["red"], cash=rep.cash - 900)})
    then_violation(R, st, C.BuyShip(design="dd", world="0,0"), "FTC-ECO-2", RED)


def test_ftc_eco_4_standardised_navy_at_seven_and_a_half_percent() -> None:
    """FTC-ECO-4: outcome and rejection (and ruling FTC-R-17)."""
    st = Camp().world((0, 0), "red", 0).ship("red", "dd", (0, 0)).ship("red", "dd", (0, 0)).at(6).build()
    st = fold(st, when(R, st, C.ApproveStandardNavy(player="red", text="one design per class"), UMPIRE))
    st, evs = all_hold(st)
    rep = [e for e in of(evs, E.EconomyReport) if e.player == "red"][0]
    assert rep.maintenance == 15 and "7.5%" in rep.rate
    mixed = Camp().world((0, 0), "red").ship("red", "dd", (0, 0)).ship("red", "sv", (0, 0)).build()
    then_violation(R, mixed, C.ApproveStandardNavy(player="red"), "FTC-ECO-4")
    then_violation(R, mixed, C.ApproveStandardNavy(player="red"), "FTC-UMP-1", RED)


def test_ftc_eco_5_reduced_maintenance_and_forced_five_percent() -> None:
    """FTC-ECO-5: outcome and rejection."""
    st = Camp().world((0, 0), "red", 0).ship("red", "cl", (0, 0)).at(6).build()
    st = fold(st, when(R, st, C.SetMaintenance(rate="reduced"), RED))
    st, evs = all_hold(st)
    rep = [e for e in of(evs, E.EconomyReport) if e.player == "red"][0]
    assert rep.maintenance == 10 and rep.penalty and st.economies["red"].penalty
    poor = Camp().world((0, 0), "red", 0).ship("red", "cl", (0, 0)).at(6).build()
    poor = replace(poor, economies={**poor.economies, "red": replace(econ_of(poor, "red"), cash=15)})
    poor, evs = all_hold(poor)
    rep = [e for e in of(evs, E.EconomyReport) if e.player == "red"][0]
    assert rep.rate.startswith("reduced (forced)") and rep.maintenance == 10 and rep.penalty
    then_violation(R, st, C.SetMaintenance(rate="cheap"), "FTC-ECO-5", RED)


def test_ftc_eco_6_modules_are_construction_stored_and_swapped_in_a_week() -> None:
    """FTC-ECO-6: outcome and rejection."""
    st = deployment(Camp().world((0, 0), "red").world((1, 0), "red").build())
    evs = when(R, st, C.BuyModule(module="guns", world="0,0"), RED)
    assert of(evs, E.ModuleBought)[0].capped
    st = fold(st, evs)
    assert st.economies["red"].ship_spending == 40
    capped = replace(st, economies={**st.economies, "red": replace(st.economies["red"], ship_spending=3990)})
    then_violation(R, capped, C.BuyModule(module="guns", world="0,0"), "FTC-ECO-6", RED)
    st = Camp().world((0, 0), "red", 0).world((1, 0), "red").ship("red", "mod", (0, 0)).at(6).build()
    st = fold(st, when(R, deployment(st), C.BuyModule(module="guns", world="0,0"), RED))
    st = replace(st, phase="orders", turn=6)
    sid = st.groups["red-0,0"].ships[0]
    mid = st.economies["red"].modules[0].id
    evs = when(R, st, C.SwapModule(ship=sid, module=mid), RED)
    st = fold(st, evs)
    assert st.ships[sid].module == mid and st.ships[sid].busy_until == 7
    then_violation(R, st, C.SwapModule(ship=sid, module=mid), "FTC-ECO-6", RED)
    st, evs = all_hold(st)
    rep = [e for e in of(evs, E.EconomyReport) if e.player == "red"][0]
    assert rep.maintenance == 16  # 10% of hull 120 + fitted module 40; an unfitted one pays nothing


def test_ftc_bld_1_keels_build_at_100_per_week() -> None:
    """FTC-BLD-1: outcome and rejection (and ruling FTC-R-18)."""
    st = Camp().world((0, 0), "red").at(7).build()
    st = fold(st, when(R, st, C.LayKeel(design="custom", world="0,0", design_mass=50), RED))
    st, evs = all_hold(st)
    assert of(evs, E.KeelsWorked)[0].paid == 100 and st.economies["red"].cash == 900
    st, evs = all_hold(st)
    launched = of(evs, E.ShipBought)[0]
    assert launched.launched and launched.ship.design_mass == 50 and st.economies["red"].cash == 870
    then_violation(R, st, C.LayKeel(design="dd", world="5,0"), "FTC-MAP-2", RED)
    st = Camp().world((0, 0), "red").world((1, 0), "blue").at(7).build()
    then_violation(R, st, C.LayKeel(design="dd", world="1,0"), "FTC-BLD-1", RED)


def test_ftc_bld_2_buy_published_designs_at_economic_turn_start_ally_discount() -> None:
    """FTC-BLD-2: outcome and rejection."""
    st = Camp().world((0, 0), "blue").at(7).build()
    evs = when(R, st, C.BuyShip(design="cl", world="0,0"), seat("blue"))
    assert of(evs, E.ShipBought)[0].price == 160  # NAC ally: 20% off
    then_violation(R, st, C.BuyShip(design="custom", world="0,0"), "FTC-BLD-2", seat("blue"))
    then_violation(
        R, Camp().world((0, 0), "blue").at(8).build(), C.BuyShip(design="cl", world="0,0"), "FTC-BLD-2", seat("blue")
    )


def test_ftc_bld_3_freighters_outside_the_cap_conversion_costs_more() -> None:
    """FTC-BLD-3: outcome and rejection."""
    st = deployment(Camp().world((0, 0), "red").build())
    st = replace(st, economies={**st.economies, "red": replace(econ_of(st, "red"), ship_spending=4000)})
    evs = when(R, st, C.BuyShip(design="frt", world="0,0"), RED)
    assert not of(evs, E.ShipBought)[0].capped and of(evs, E.ShipBought)[0].ship.freighter
    then_violation(R, st, C.BuyShip(design="qship", world="0,0"), "FTC-ECO-1", RED)
    st = Camp().world((0, 0), "red").ship("red", "frt", (0, 0)).at(7).build()
    sid = st.groups["red-0,0"].ships[0]
    evs = when(
        R, st, C.Refit(ship=sid, remove="cargo", install=C.SystemKit(id="hg", kind="hangar", cost=9, mass=6)), RED
    )
    assert of(evs, E.Refitted)[0].cost == 11 + 2  # different type +20%, cargo conversion +20%


def test_ftc_bld_4_non_standard_technology_needs_approval_at_start() -> None:
    """FTC-BLD-4: outcome and rejection."""
    st = deployment(Camp().world((0, 0), "red").build())
    then_violation(R, st, C.BuyShip(design="alien", world="0,0"), "FTC-BLD-4", RED)
    evs = when(R, st, C.ApproveTechnology(player="red", design="alien", note="K-guns"), UMPIRE)
    assert R.redact(evs[0], seat("blue"), st) == evs[0]  # notified to all
    st = fold(st, evs)
    assert of(when(R, st, C.BuyShip(design="alien", world="0,0"), RED), E.ShipBought)
    then_violation(R, Camp().build(), C.ApproveTechnology(player="red", design="alien"), "FTC-BLD-4")


def test_ftc_bld_5_every_system_of_a_non_standard_design_counts_as_non_standard() -> None:
    """FTC-BLD-4/5: a design outside the books makes each of its systems non-standard, even one listed without
    the flag: its damaged beam is repaired only at the capital (FTC-BLD-5), for its cost + 20%."""
    from .builders import DESIGNS

    odd = {
        "id": "odd",
        "name": "Odd frigate",
        "size_class": "FF",
        "mass": 20,
        "cost": 70,
        "hull": 6,
        "thrust": 6,
        "standard": False,
        "systems": [{"id": "b2", "kind": "beam", "rating": 2, "cost": 6, "mass": 2}],
    }
    st = (
        Camp(designs=[*DESIGNS, odd]).world((0, 0), "red").world((1, 0), "red").ship("red", "odd", (1, 0)).at(7).build()
    )
    sid = st.groups["red-1,0"].ships[0]
    assert [s.standard for s in st.ships[sid].systems] == [False]
    broken = replace(
        st,
        ships={
            **st.ships,
            sid: replace(st.ships[sid], systems=tuple(replace(s, damaged=True) for s in st.ships[sid].systems)),
        },
    )
    then_violation(R, broken, C.Repair(ship=sid, systems=("b2",)), "FTC-BLD-5", RED)
    home = replace(broken, groups={**broken.groups, "red-1,0": replace(broken.groups["red-1,0"], hex=(0, 0))})
    assert of(when(R, home, C.Repair(ship=sid, systems=("b2",)), RED), E.RepairOrdered)[0].cost == 6 + 2


def test_ftc_bld_5_non_indigenous_tech_costs_more_and_repairs_at_capital() -> None:
    """FTC-BLD-5: outcome and rejection."""
    st = deployment(Camp().world((0, 0), "red").build())
    st = fold(st, when(R, st, C.ApproveTechnology(player="red", design="alien"), UMPIRE))
    evs = when(R, st, C.BuyShip(design="alien", world="0,0"), RED)
    assert of(evs, E.ShipBought)[0].price == 260 + 6
    st = Camp().world((0, 0), "red").world((1, 0), "red").ship("red", "alien", (1, 0)).at(7).build()
    sid = st.groups["red-1,0"].ships[0]
    st = replace(
        st,
        ships={
            **st.ships,
            sid: replace(st.ships[sid], systems=tuple(replace(s, damaged=True) for s in st.ships[sid].systems)),
        },
    )
    then_violation(R, st, C.Repair(ship=sid, systems=("k",)), "FTC-BLD-5", RED)
    st = replace(st, groups={**st.groups, "red-1,0": replace(st.groups["red-1,0"], hex=(0, 0))})
    evs = when(R, st, C.Repair(ship=sid, systems=("k",)), RED)
    assert of(evs, E.RepairOrdered)[0].cost == 36


def test_ftc_bld_6_biomass_tankers_forbidden() -> None:
    """FTC-BLD-6: outcome and rejection."""
    st = deployment(Camp().world((0, 0), "green").build())
    then_violation(R, st, C.BuyShip(design="tanker", world="0,0"), "FTC-BLD-6", seat("green"))
    assert of(when(R, st, C.BuyShip(design="sv", world="0,0"), seat("green")), E.ShipBought)
    then_violation(R, st, C.BuyShip(design="sv", world="0,0"), "FTC-UMP-1", SPECTATOR)
