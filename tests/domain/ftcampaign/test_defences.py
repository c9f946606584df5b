"""FTC-DEF-*: attacking system defences, surrender, interdiction, repulse and driving off."""

from __future__ import annotations

from msgspec.structs import replace

from service.domain.core import seat
from service.domain.ftcampaign import RULESET as R
from service.domain.ftcampaign import commands as C
from service.domain.ftcampaign import events as E
from service.domain.ftcampaign.defences import largest_remainder
from service.domain.ftcampaign.state import State
from tests.support.decider import then_violation

from .builders import Camp, fold, of, when
from .test_movement import rest_hold

RED, BLUE = seat("red"), seat("blue")


def siege(idp: int, *designs: str, turn: int = 1) -> State:
    c = Camp().world((0, 0), "blue", idp).world((3, 0), "red").at(turn)
    for d in designs:
        c = c.ship("red", d, (0, 0), posture="attack")
    st, _ = rest_hold(c.build())
    assert st.steps and st.steps[0].kind == "assault", st.steps
    return st


def fleet(st: State) -> tuple[str, ...]:
    return st.groups["red-0,0"].ships


def test_ftc_def_1_only_committed_ships_count_damage_does_not() -> None:
    """FTC-DEF-1: outcome and rejection."""
    st = siege(20, "cl", "dd")  # defence value 200
    cl = fleet(st)[0]
    st = replace(st, ships={**st.ships, cl: replace(st.ships[cl], hull_lost=10)})
    evs = when(R, st, C.AssaultDefences(step=st.steps[0].id, ships=(cl,)), RED, [3])
    res = of(evs, E.AssaultResolved)[0]
    assert res.fleet_points == 200 and res.defence_value == 200 and res.ships == (cl,)
    then_violation(R, st, C.AssaultDefences(step=st.steps[0].id, ships=()), "FTC-DEF-1", RED)


def test_ftc_def_2_modifiers_and_the_fifty_percent_floor() -> None:
    """FTC-DEF-2: outcome and rejection."""
    st = siege(10, "cl", "dd")  # 300 pts vs defence value 100: +2
    evs = when(R, st, C.AssaultDefences(step=st.steps[0].id, ships=fleet(st)), RED, [4, 5])
    roll = of(evs, E.AssaultResolved)[0].rolls[0]
    assert [m.value for m in roll.modifiers] == [2] and of(evs, E.AssaultResolved)[0].result == "surrendered"
    st = siege(25, "cl", "dd")  # 300 vs 250: +0; commit only the destroyer (100 < 125): may not attack
    then_violation(R, st, C.AssaultDefences(step=st.steps[0].id, ships=fleet(st)[1:]), "FTC-DEF-2", RED)
    st = siege(25, "cl")  # 200 vs 250: −1
    evs = when(R, st, C.AssaultDefences(step=st.steps[0].id, ships=fleet(st)), RED, [3])
    assert [m.value for m in of(evs, E.AssaultResolved)[0].rolls[0].modifiers] == [-1]
    st = replace(st, steps=(replace(st.steps[0], bonus=True),))
    evs = when(R, st, C.AssaultDefences(step=st.steps[0].id, ships=fleet(st)), RED, [3])
    assert sorted(m.value for m in of(evs, E.AssaultResolved)[0].rolls[0].modifiers) == [-1, 1]


def test_ftc_def_3_natural_or_modified_six_surrenders_the_world() -> None:
    """FTC-DEF-3: outcome and rejection."""
    st = siege(25, "cl")  # −1
    evs = when(R, st, C.AssaultDefences(step=st.steps[0].id, ships=fleet(st)), RED, [6, 5])
    assert of(evs, E.AssaultResolved)[0].result == "surrendered" and fold(st, evs).worlds["0,0"].owner == "red"
    st = siege(5, "cl")  # 200 vs 50: +3
    evs = when(R, st, C.AssaultDefences(step=st.steps[0].id, ships=fleet(st)), RED, [3, 5])
    assert of(evs, E.AssaultResolved)[0].result == "surrendered"
    then_violation(R, fold(st, evs), C.AssaultDefences(step=st.steps[0].id, ships=fleet(st)), "FTC-DEF-1", RED)


def test_ftc_def_4_surrender_damage_and_rebuilding() -> None:
    """FTC-DEF-4: outcome and rejection."""
    outcomes = {}
    for face in (1, 2, 3, 4, 5):
        st = siege(30, "bb")  # 450 vs 300: +0
        evs = when(R, st, C.AssaultDefences(step=st.steps[0].id, ships=fleet(st)), RED, [6, face])
        outcomes[face] = of(evs, E.AssaultResolved)[0].idp_after
    assert outcomes == {1: 0, 2: 0, 3: 10, 4: 20, 5: 30}
    st = siege(30, "bb", turn=6)
    st = fold(st, when(R, st, C.AssaultDefences(step=st.steps[0].id, ships=fleet(st)), RED, [6, 3]))
    assert st.turn == 7 and st.worlds["0,0"].idp == 10 and st.worlds["0,0"].idp_full == 30
    evs = when(R, st, C.RebuildDefences(world="0,0", thirds=2), RED)
    order = of(evs, E.DefenceRebuildOrdered)[0]
    assert order.idp == 20 and order.cost == 100 and order.due_et == 4
    then_violation(R, fold(st, evs), C.RebuildDefences(world="0,0", thirds=1), "FTC-DEF-4", RED)


def test_ftc_def_5_conquest_does_not_change_income() -> None:
    """FTC-DEF-5: outcome and rejection."""
    st = siege(30, "bb")
    st = fold(st, when(R, st, C.AssaultDefences(step=st.steps[0].id, ships=fleet(st)), RED, [6, 2]))
    assert st.worlds["0,0"].owner == "red" and st.worlds["0,0"].income == 30 and st.worlds["0,0"].idp == 0
    then_violation(R, st, C.RebuildDefences(world="0,0"), "FTC-DEF-4", BLUE)


def test_ftc_def_6_two_to_five_interdicts_for_the_turn() -> None:
    """FTC-DEF-6: outcome and rejection."""
    st = siege(30, "bb")
    evs = when(R, st, C.AssaultDefences(step=st.steps[0].id, ships=fleet(st)), RED, [4])
    assert of(evs, E.AssaultResolved)[0].result == "interdicted"
    st = fold(st, evs)
    assert st.worlds["0,0"].interdicted and st.turn == 2
    st = replace(st, groups={**st.groups, "red-0,0": replace(st.groups["red-0,0"], posture="stand_off")})
    st, evs = rest_hold(st)
    assert of(evs, E.InterdictionLifted) and not st.worlds["0,0"].interdicted
    then_violation(R, st, C.HoldOff(step="x1"), "FTC-DEF-1", RED)


def test_ftc_def_7_repulse_damage_allocated_by_mass_with_system_checks() -> None:
    """FTC-DEF-7: outcome and rejection (and ruling FTC-R-14)."""
    st = siege(30, "bb", "dd")  # 550 vs 300: +0
    evs = when(R, st, C.AssaultDefences(step=st.steps[0].id, ships=fleet(st)), RED, [1])
    res = of(evs, E.AssaultResolved)[0]
    assert res.result == "repulsed" and res.repulse == 30 and res.repulse_boxes == 10
    st = fold(st, evs)
    rep = st.groups["red-0,0"].repulse
    assert rep is not None and rep.boxes == 10
    assert largest_remainder(10, {"bb": 120, "dd": 30}) == {"bb": 8, "dd": 2}
    assert largest_remainder(5, {"a": 1, "b": 1, "c": 1}) == {"a": 2, "b": 2, "c": 1}
    # the fleet fights before repairing: the damage is allocated, and stripped rows check systems
    st = replace(st, phase="orders", settled=(), steps=())
    from service.domain.ftcampaign.common import accumulator
    from service.domain.ftcampaign.defences import allocate_repulse
    from tests.support.decider import ScriptedDice

    out = accumulator(st)
    allocate_repulse(out, st.groups["red-0,0"], ScriptedDice([6, 5, 5, 5, 5, 5]))
    alloc = of(out.events, E.RepulseAllocated)[0]
    bb, dd = fleet(st)
    assert alloc.hits == {bb: 8, dd: 2} and alloc.failed == (f"{dd}/b2",)  # 2 of 8 boxes strip the dd's first row
    # or it is repaired in time, at a repair world (FTC-REP-1), for its income's worth
    home = replace(st, groups={**st.groups, "red-0,0": replace(st.groups["red-0,0"], hex=(3, 0))}, turn=7)
    evs = when(R, home, C.RepairRepulse(group="red-0,0"), RED)
    assert of(evs, E.RepulseRepaired)[0].cost == 30
    then_violation(R, replace(home, turn=2), C.RepairRepulse(group="red-0,0"), "FTC-ECO-2", RED)
    then_violation(R, st, C.RepairRepulse(group="red-0,0"), "FTC-REP-1", RED)


def test_ftc_def_7_a_repulsed_fleet_departs_and_cannot_assault_again() -> None:
    """FTC-DEF-7 with ruling FTC-R-25: "on a 1 the incoming fleet is repulsed": it is beaten back and departs at
    once (FTC-ARR-10). Red's fleet came from nowhere else, so it heads for red's nearest world (3,0); one plain
    jump reaches (1,0), the reachable hex nearest to it (FTC-R-22). It carries the repulse damage, leaves no
    interdiction and no assault step behind."""
    st = siege(30, "bb", "dd")
    evs = when(R, st, C.AssaultDefences(step=st.steps[0].id, ships=fleet(st)), RED, [1])
    [dep] = of(evs, E.Departed)
    assert (dep.group, tuple(dep.to), dep.reason) == ("red-0,0", (1, 0), "repulsed by the defences")
    after = fold(st, evs)
    g = after.groups["red-0,0"]
    assert g.hex is None and g.ftl_to == (1, 0) and g.posture == "stand_off"
    assert g.repulse is not None and (g.repulse.pts, g.repulse.boxes) == (30, 10)
    assert not after.worlds["0,0"].interdicted and not [x for x in after.steps if x.kind == "assault"]
    then_violation(R, after, C.AssaultDefences(step=st.steps[0].id, ships=fleet(st)), "FTC-DEF-1", RED)


def test_ftc_def_7_two_groups_share_one_repulse_by_mass() -> None:
    """FTC-DEF-7: the repulse (30 pts, 30 IDP / 3 = 10 boxes) is carried once, shared by the committed ships'
    groups by mass: battleship 120 and destroyer 30 → 24 pts / 8 boxes and 6 pts / 2 boxes (not 30/10 each)."""
    c = Camp().world((0, 0), "blue", 30).world((3, 0), "red")
    c = c.ship("red", "bb", (0, 0), group="red-a", posture="attack").ship(
        "red", "dd", (0, 0), group="red-b", posture="attack"
    )
    st, _ = rest_hold(c.build())
    ships = (*st.groups["red-a"].ships, *st.groups["red-b"].ships)
    evs = when(R, st, C.AssaultDefences(step=st.steps[0].id, ships=ships), RED, [1])
    assert of(evs, E.AssaultResolved)[0].repulse_split == {"red-a": (24, 8), "red-b": (6, 2)}
    after = fold(st, evs)
    carried = [after.groups[g].repulse for g in ("red-a", "red-b")]
    assert [(r.pts, r.boxes) for r in carried if r] == [(24, 8), (6, 2)]
    assert sorted(d.group for d in of(evs, E.Departed)) == ["red-a", "red-b"]
    merged = fold(after, [E.GroupsMerged(player="red", into="red-a", other="red-b")])
    rep = merged.groups["red-a"].repulse
    assert rep is not None and (rep.pts, rep.boxes) == (30, 10)  # a merge adds the damage up, loses none


def test_ftc_def_7_a_second_assault_before_repair_allocates_the_first_repulse_first() -> None:
    """FTC-DEF-7: a fleet that fights before repairing takes its repulse damage first: back at the world with
    10 boxes unrepaired, the new assault allocates them (bb 8 of 36 boxes strips no row; dd 2 of 8 strips its
    first 2-box row: six system checks at 6+, all 5s hold), then rolls; a second repulse is carried in full.
    Every repulse's boxes are allocated: 10 now, 10 carried."""
    st = siege(30, "bb", "dd")
    step = st.steps[0]
    evs = when(R, st, C.AssaultDefences(step=step.id, ships=fleet(st)), RED, [1])
    back = fold(st, evs)
    g = back.groups["red-0,0"]
    back = replace(
        back,
        groups={**back.groups, "red-0,0": replace(g, hex=(0, 0), ftl_to=None, posture="attack")},
        steps=(step,),
        settled=(),
    )
    evs = when(R, back, C.AssaultDefences(step=step.id, ships=fleet(st)), RED, [5] * 6 + [1])
    [alloc] = of(evs, E.RepulseAllocated)
    bb, dd = fleet(st)
    assert alloc.hits == {bb: 8, dd: 2} and alloc.failed == () and len(alloc.rolls) == 6
    assert [type(e).__name__ for e in evs].index("RepulseAllocated") < [type(e).__name__ for e in evs].index(
        "AssaultResolved"
    )
    after = fold(back, evs)
    assert (after.ships[bb].hull_lost, after.ships[dd].hull_lost) == (8, 2)
    rep = after.groups["red-0,0"].repulse
    assert rep is not None and (rep.pts, rep.boxes) == (30, 10)


def test_ftc_def_8_too_weak_an_attack_is_driven_off_without_interdiction() -> None:
    """FTC-DEF-8: outcome and rejection."""
    c = Camp().world((0, 0), "blue", 30).world((1, 0), "red").ship("red", "dd", (1, 0))
    st = c.build()
    from .test_movement import order

    st = fold(st, when(R, st, order("red-1,0", (0, 0), "attack"), RED))
    st, evs = rest_hold(st)
    assert of(evs, E.DrivenOff)[0].to == (1, 0) and of(evs, E.Departed)
    assert not st.worlds["0,0"].interdicted and st.groups["red-1,0"].hex is None
    then_violation(R, st, C.AssaultDefences(step="x1", ships=()), "FTC-DEF-1", RED)
