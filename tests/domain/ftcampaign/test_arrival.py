"""FTC-ARR-*: arrival postures, stand-offs, engagement, initiative, linked battles and departures."""

from __future__ import annotations

from msgspec.structs import replace

from service.domain.core import UMPIRE, seat
from service.domain.ftcampaign import RULESET as R
from service.domain.ftcampaign import commands as C
from service.domain.ftcampaign import events as E
from service.domain.ftcampaign.state import State
from tests.support.decider import then_violation

from .builders import Camp, fold, of, when
from .test_movement import order, rest_hold

RED, BLUE, GREEN = seat("red"), seat("blue"), seat("green")


def arrive(
    red: str, blue: str | None = "stand_off", dice: object = None, camp: Camp | None = None, green: str | None = None
) -> tuple[State, list]:  # type: ignore[type-arg]
    """Red jumps from (1,0) into blue's world (0,0) with posture ``red``; blue's fleet there holds ``blue``."""
    c = camp or Camp().world((0, 0), "blue", 20).world((1, 0), "red").ship("red", "dd", (1, 0))
    if blue is not None:
        c = c.ship("blue", "dd", (0, 0))
    if green is not None:
        c = c.ship("green", "sv", (0, -1))
    st = c.build()
    st = fold(st, when(R, st, order("red-1,0", (0, 0), red), RED))
    if blue is not None:
        st = fold(st, when(R, st, order("blue-0,0", (0, 0), blue), BLUE))
    if green is not None:
        st = fold(st, when(R, st, order("green-0,-1", (0, 0), green), GREEN))
    return rest_hold(st, dice)


def battle_ready(st: State) -> State:
    b = st.battles[0]
    for f in b.forces:
        if f.player not in st.battles[0].formations:
            st = fold(st, when(R, st, C.DeclareFormation(battle=b.id, formation="wedge", speed=4), seat(f.player)))
    return st


def test_ftc_arr_1_postures_and_visible_attack_posture() -> None:
    """FTC-ARR-1: outcome and rejection."""
    st, evs = arrive("attack", "stand_off")
    seen = [c for s in R.view(st, BLUE)["sightings"] for c in s["counters"]]
    assert seen[0]["posture"] == "attack"
    st2, _ = arrive("stand_off", "stand_off")
    seen = [c for s in R.view(st2, BLUE)["sightings"] for c in s["counters"]]
    assert seen[0]["posture"] is None, "stand off is not readable from outside"
    st = Camp().ship("red", "dd", (1, 0)).build()
    then_violation(R, st, order("red-1,0", (0, 0), "ambush"), "FTC-ARR-1", RED)


def test_ftc_arr_2_stand_off_neither_attacks_nor_interdicts() -> None:
    """FTC-ARR-2: outcome (alone and with an opposing fleet present) and rejection."""
    st, evs = arrive("stand_off", None)
    assert st.turn == 2 and not of(evs, E.AssaultResolved) and not st.worlds["0,0"].interdicted
    # with blue's fleet there, both on stand-off: a stand-off round, no battle, no assault, no interdiction
    st, evs = arrive("stand_off", "stand_off")
    assert [s.kind for s in st.steps] == ["standoff"] and not of(evs, E.BattleStarted)
    for who in (RED, BLUE):
        evs = when(R, st, C.ChoosePosture(step=st.steps[0].id, posture="stand_off"), who, [])
        st = fold(st, evs)
    assert st.turn == 2 and not of(evs, E.BattleStarted) and not of(evs, E.AssaultResolved)
    assert not st.worlds["0,0"].interdicted and st.worlds["0,0"].owner == "blue"
    assert st.groups["red-1,0"].hex == (0, 0) and st.groups["blue-0,0"].hex == (0, 0)
    # rejection: a group on stand-off cannot join its side's assault on the defences
    camp = (
        Camp()
        .world((0, 0), "blue", 20)
        .world((1, 0), "red")
        .ship("red", "dd", (1, 0))
        .ship("red", "dd", (1, 0), group="red-b")
    )
    st = camp.build()
    st = fold(
        st,
        when(
            R,
            st,
            C.SubmitOrders(
                orders=(
                    C.Order(group="red-1,0", to=(0, 0), posture="attack"),
                    C.Order(group="red-b", to=(0, 0), posture="stand_off"),
                )
            ),
            RED,
        ),
    )
    st, _ = rest_hold(st)
    (step,) = st.steps
    assert step.kind == "assault"
    standing = st.groups["red-b"].ships
    then_violation(
        R, st, C.AssaultDefences(step=step.id, ships=(*st.groups["red-1,0"].ships, *standing)), "FTC-ARR-2", RED
    )


def test_ftc_arr_3_attack_order_fleets_on_attack_then_stand_off_then_defences() -> None:
    """FTC-ARR-3: outcome and rejection (and ruling FTC-R-8)."""
    st, evs = arrive("attack", "attack", green="stand_off")
    step = st.steps[0]
    assert step.kind == "engage" and step.awaiting == ("green",)
    evs = when(R, st, C.Engage(step=step.id, stay=True), GREEN, [1, 3, 4, 5])
    bs = of(evs, E.BattleStarted)[0]
    assert bs.priority["red"] == ("blue", "green", "defences")
    assert bs.priority["blue"] == ("red", "green")
    then_violation(R, st, C.Engage(step=step.id, stay=True), "FTC-ARR-6", RED)


def test_ftc_arr_4_withdraw_if_contested_leaves_or_recons_defences() -> None:
    """FTC-ARR-4: outcome and rejection (and ruling FTC-R-9)."""
    st, evs = arrive("withdraw", "stand_off")
    dep = of(evs, E.Departed)[0]
    assert dep.group == "red-1,0" and dep.to == (1, 0) and st.groups["red-1,0"].hex is None
    st, evs = rest_hold(st)
    assert st.groups["red-1,0"].hex == (1, 0), "it arrives back where it came from the next week"
    st, _ = arrive(
        "withdraw", None, camp=Camp().world((0, 0), "blue", 10).world((1, 0), "red").ship("red", "cl", (1, 0))
    )
    assert st.steps[0].kind == "recon"
    then_violation(R, st, C.Recon(step=st.steps[0].id, choice="flee"), "FTC-ARR-4", RED)
    st = fold(st, when(R, st, C.Recon(step=st.steps[0].id, choice="attack"), RED))
    assert st.steps[0].kind == "assault"


def test_ftc_arr_5_all_on_stand_off_choose_again_secretly() -> None:
    """FTC-ARR-5: outcome and rejection (and ruling FTC-R-12)."""
    st, _ = arrive("stand_off", "stand_off")
    step = st.steps[0]
    assert step.kind == "standoff" and set(step.awaiting) == {"red", "blue"}
    evs = when(R, st, C.ChoosePosture(step=step.id, posture="stand_off"), RED)
    assert R.redact(evs[0], BLUE, st).choice is None and R.redact(evs[0], GREEN, st) is None
    st = fold(st, evs)
    evs = when(R, st, C.ChoosePosture(step=step.id, posture="stand_off"), BLUE)
    assert of(evs, E.StepResolved)[0].settle and fold(st, evs).turn == 2, "both may stay to the end of the turn"
    then_violation(R, st, C.ChoosePosture(step=step.id, posture="attack"), "FTC-ARR-5", GREEN)


def test_ftc_arr_5_withdrawing_from_a_stand_off_departs_to_where_it_came_from() -> None:
    """FTC-ARR-5 with FTC-ARR-10: red, arrived from (1,0), picks withdraw in the fresh secret choice: it departs
    back to (1,0) and the step does not settle into a stand-off for it; blue stays."""
    st, _ = arrive("stand_off", "stand_off")
    step = st.steps[0]
    st = fold(st, when(R, st, C.ChoosePosture(step=step.id, posture="withdraw"), RED))
    evs = when(R, st, C.ChoosePosture(step=step.id, posture="stand_off"), BLUE)
    [dep] = of(evs, E.Departed)
    assert (dep.group, tuple(dep.to), dep.reason) == ("red-1,0", (1, 0), "withdrew")
    assert not of(evs, E.StepResolved)[0].settle
    after = fold(st, evs)
    assert after.groups["red-1,0"].hex is None and after.groups["blue-0,0"].hex == (0, 0)


def test_ftc_arr_6_the_disengage_option_heads_back_where_the_group_came_from() -> None:
    """FTC-ARR-6, FTC-ARR-10: blue attacks; red, which jumped in from (1,0), is offered to stay or to disengage
    towards (1,0) (not an arbitrary neighbour), and that option is accepted."""
    st, _ = arrive("stand_off", "attack")
    step = st.steps[0]
    assert step.kind == "engage" and "red" in step.awaiting
    offered = [o.command for o in R.options(st, RED) if isinstance(o.command, C.Engage)]
    assert C.Engage(step=step.id, stay=True) in offered
    [leave] = [c for c in offered if not c.stay]
    assert tuple(leave.to) == (1, 0)


def test_ftc_arr_6_range_d6_plus_6_out_of_table_means_automatic_disengagement() -> None:
    """FTC-ARR-6: outcome and rejection."""
    st, _ = arrive("attack", "stand_off")
    step = st.steps[0]
    evs = when(R, st, C.Engage(step=step.id, stay=False, to=(0, -1)), BLUE, [4])  # 10 ft > 8 ft table
    res = of(evs, E.StepResolved)[0]
    assert res.range_feet == 10 and of(evs, E.Departed)[0].group == "blue-0,0" and not of(evs, E.BattleStarted)
    evs = when(R, st, C.Engage(step=step.id, stay=False, to=(0, -1)), BLUE, [2, 3, 3])  # 8 ft: on the table
    assert of(evs, E.BattleStarted) and not of(evs, E.Departed)
    then_violation(R, st, C.Engage(step="nope", stay=True), "FTC-ARR-6", BLUE)


def test_ftc_arr_7_initiative_drop_half_difference_capped_ties_and_late_arrivals() -> None:
    """FTC-ARR-7: outcome and rejection."""
    st, _ = arrive("attack", "stand_off")
    evs = when(R, st, C.Engage(step=st.steps[0].id, stay=True), BLUE, [1, 6, 1])
    bs = of(evs, E.BattleStarted)[0]
    assert bs.drop == "red" and bs.drop_changes == 2 and bs.late == ("blue",)  # 7 vs 1: (7-1)//2 = 3 → 2
    evs = when(R, st, C.Engage(step=st.steps[0].id, stay=True), BLUE, [1, 3, 4])
    bs = of(evs, E.BattleStarted)[0]
    assert bs.drop is None and bs.drop_changes == 0  # 4 vs 4: a tie gives no one the drop
    then_violation(R, fold(st, evs), C.RecordBattle(battle=bs.battle.id), "FTC-UMP-1", RED)


def test_ftc_arr_8_linked_tactical_game_result_appended() -> None:
    """FTC-ARR-8: outcome and rejection."""
    st, _ = arrive("attack", "attack", [2, 3, 4])
    st = battle_ready(st)
    b = st.battles[0]
    blue_ship = st.groups["blue-0,0"].ships[0]
    red_ship = st.groups["red-1,0"].ships[0]
    evs = when(
        R,
        st,
        C.RecordBattle(
            battle=b.id,
            tactical_game_id="g_gsc2_42",
            victor="red",
            ships=(
                C.ShipResult(ship=blue_ship, destroyed=True),
                C.ShipResult(ship=red_ship, hull_lost=2, damaged=("b2",)),
            ),
            ordnance={"red": 20},
        ),
        UMPIRE,
        [],
    )  # nothing rolled: the assault waits for red's decision
    rec = of(evs, E.BattleRecorded)[0]
    assert rec.tactical_game_id == "g_gsc2_42" and rec.defeated == ("blue",)
    after = fold(st, evs)
    assert blue_ship not in after.ships and after.ships[red_ship].hull_lost == 2
    assert after.economies["red"].ordnance == 20
    then_violation(R, st, C.RecordBattle(battle="b99"), "FTC-ARR-8")
    then_violation(R, st, C.RecordBattle(battle=b.id, ships=(C.ShipResult(ship="zz"),)), "FTC-ARR-8")


def test_ftc_arr_9_defeating_the_fleet_leads_at_once_to_the_defences_with_plus_one() -> None:
    """FTC-ARR-9: outcome and rejection."""
    st, _ = arrive("attack", "attack", [2, 3, 4])
    st = battle_ready(st)
    b = st.battles[0]
    blue_ship = st.groups["blue-0,0"].ships[0]
    evs = when(
        R, st, C.RecordBattle(battle=b.id, victor="red", ships=(C.ShipResult(ship=blue_ship, destroyed=True),)), UMPIRE
    )
    st = fold(st, evs)
    assert st.steps[0].kind == "assault" and st.steps[0].bonus
    # seeing off a lone scout is no victory for the +1
    camp = Camp().world((0, 0), "blue", 20).world((1, 0), "red").ship("red", "dd", (1, 0)).ship("blue", "scout", (0, 0))
    st2 = camp.build()
    st2 = fold(st2, when(R, st2, order("red-1,0", (0, 0), "attack"), RED))
    st2 = fold(st2, when(R, st2, order("blue-0,0", (0, 0), "attack"), BLUE))
    st2, _ = rest_hold(st2, [2, 3, 4])
    st2 = battle_ready(st2)
    scout = st2.groups["blue-0,0"].ships[0]
    st2 = fold(
        st2,
        when(
            R,
            st2,
            C.RecordBattle(battle=st2.battles[0].id, victor="red", ships=(C.ShipResult(ship=scout, destroyed=True),)),
            UMPIRE,
        ),
    )
    assert st2.steps[0].kind == "assault" and not st2.steps[0].bonus
    then_violation(R, st, C.AssaultDefences(step=st.steps[0].id, ships=("zz",)), "FTC-DEF-1", RED)


def test_ftc_arr_10_departure_written_at_once_replaces_next_move_same_formation() -> None:
    """FTC-ARR-10: outcome and rejection."""
    st, _ = arrive("attack", "attack", [2, 3, 4])
    st = battle_ready(st)
    b = st.battles[0]
    evs = when(
        R,
        st,
        C.RecordBattle(
            battle=b.id, victor="red", left=(C.Departure(group="blue-0,0", to=(0, -1), formation="column", speed=7),)
        ),
        UMPIRE,
        [],
    )
    dep = of(evs, E.Departed)[0]
    assert dep.to == (0, -1) and dep.under_fire.formation == "column"
    st = fold(st, evs)
    st = replace(st, phase="orders", steps=())
    then_violation(R, st, order("blue-0,0", (1, 0)), "FTC-ARR-10", BLUE)
    st, _ = rest_hold(st)
    g = st.groups["blue-0,0"]
    assert g.hex == (0, -1) and g.under_fire.speed == 7
    # cloaked ships cannot depart
    st, _ = arrive("attack", "attack", [2, 3, 4])
    st = battle_ready(st)
    st = replace(st, groups={**st.groups, "blue-0,0": replace(st.groups["blue-0,0"], cloaked=True)})
    then_violation(
        R, st, C.RecordBattle(battle=st.battles[0].id, left=(C.Departure(group="blue-0,0", to=(0, -1)),)), "FTC-ARR-10"
    )


def test_ftc_arr_11_disengaging_under_fire() -> None:
    """FTC-ARR-11: outcome and rejection."""
    st, _ = arrive("attack", "attack", [2, 3, 4])
    st = battle_ready(st)
    b = st.battles[0]
    then_violation(
        R,
        st,
        C.ResolveDisengagement(
            battle=b.id, group="blue-0,0", to=(0, -1), distance_inches=20, weapons_range_inches=30, separation="grows"
        ),
        "FTC-ARR-11",
    )
    evs = when(
        R,
        st,
        C.ResolveDisengagement(
            battle=b.id, group="blue-0,0", to=(0, -1), distance_inches=36, weapons_range_inches=48, separation="grows"
        ),
        UMPIRE,
    )
    assert of(evs, E.DisengagementResolved)[0].escaped and of(evs, E.Departed)
    evs = when(
        R,
        st,
        C.ResolveDisengagement(
            battle=b.id, group="blue-0,0", to=(0, -1), distance_inches=30, weapons_range_inches=30, separation="unclear"
        ),
        UMPIRE,
        [4, 4],
    )
    res = of(evs, E.DisengagementResolved)[0]
    assert not res.escaped and len(res.rolls) == 2, "equal thrust, 4 vs 4: the pursuit continues"
    evs = when(
        R,
        st,
        C.ResolveDisengagement(
            battle=b.id, group="blue-0,0", to=(0, -1), distance_inches=30, weapons_range_inches=30, separation="shrinks"
        ),
        UMPIRE,
    )
    assert not of(evs, E.DisengagementResolved)[0].escaped


def test_ftc_arr_12_table_set_up_entry_side_and_recorded_formations() -> None:
    """FTC-ARR-12: outcome and rejection."""
    st, evs = arrive("attack", "attack", [2, 3, 4])
    red = next(f for f in st.battles[0].forces if f.player == "red")
    assert red.entry_side == "SE"  # from (1,0) into (0,0) through the south-east hexside (right edge)
    then_violation(R, st, C.RecordBattle(battle=st.battles[0].id), "FTC-ARR-12")
    st = battle_ready(st)
    then_violation(R, st, C.DeclareFormation(battle=st.battles[0].id, formation="line", speed=2), "FTC-ARR-12", RED)
    # a fleet that left under fire keeps its formation and speed
    st, _ = arrive("attack", "attack", [2, 3, 4])
    st = replace(st, groups={**st.groups, "red-1,0": replace(st.groups["red-1,0"], under_fire=None)})
    assert "red" not in st.battles[0].formations


def test_ftc_r_22_a_departure_is_one_normal_move_back_along_the_route_it_came_by() -> None:
    """FTC-ARR-10 ruling FTC-R-22: driven off a world it reached by charted route, a group goes back by that
    route (not by a plain jump of several hexes), and the route's blockages apply; a departure to a hex no
    normal move reaches is refused (FTC-MOV-2)."""
    camp = (
        Camp()
        .world((0, 0), "red", route=True)
        .world((3, 0), "green", route=True)
        .world((5, 0), "blue", 50, route=True)
        .route((0, 0), (3, 0))
        .route((3, 0), (5, 0))
        .ship("red", "dd", (0, 0))
    )
    st = camp.build()
    st = fold(st, when(R, st, C.SubmitOrders(orders=(C.Order(group="red-0,0", to=(5, 0), posture="attack"),)), RED))
    st, evs = rest_hold(st, [])
    assert of(evs, E.GroupMoved)[0].route and of(evs, E.DrivenOff)  # 100 pts < 50% of a defence value of 500
    (dep,) = of(evs, E.Departed)
    assert dep.to == (0, 0) and dep.route, "five hexes back: only the charted route it came by reaches it"
    assert st.groups["red-0,0"].hex is None and st.groups["red-0,0"].ftl_route
    # green closes its route world in between: the departure stops short where it started (FTC-R-10)
    closed = replace(st, worlds={**st.worlds, "3,0": replace(st.worlds["3,0"], closed=True)})
    _, evs = rest_hold(closed, [])
    (moved,) = [e for e in of(evs, E.GroupMoved) if e.group == "red-0,0"]
    assert moved.route and moved.stopped_short and moved.to == (5, 0)
    # open: it arrives home by the route, in one week
    st, evs = rest_hold(st, [])
    (moved,) = [e for e in of(evs, E.GroupMoved) if e.group == "red-0,0"]
    assert moved.route and not moved.stopped_short and moved.frm == (5, 0) and moved.to == (0, 0)
    # rejection: leaving a battle for a hex no normal move reaches
    st, _ = arrive("attack", "attack", [2, 3, 4])
    st = battle_ready(st)
    then_violation(
        R,
        st,
        C.RecordBattle(battle=st.battles[0].id, victor="red", left=(C.Departure(group="blue-0,0", to=(0, 3)),)),
        "FTC-MOV-2",
    )
