"""FTC-REP-*, FTC-CAP-* and FTC-UMP-*: repairs, refits, captures, and the umpires."""

from __future__ import annotations

from msgspec.structs import replace

from service.domain.core import UMPIRE, seat
from service.domain.ftcampaign import RULESET as R
from service.domain.ftcampaign import commands as C
from service.domain.ftcampaign import events as E
from service.domain.ftcampaign.state import State
from tests.support.decider import then_violation

from .builders import Camp, fold, of, when
from .test_arrival import arrive, battle_ready

RED, BLUE = seat("red"), seat("blue")


def docked(*designs: str, turn: int = 7, at: tuple[int, int] = (0, 0)) -> State:
    c = Camp().world((0, 0), "red").world((2, 0), "red").at(turn)
    for d in designs:
        c = c.ship("red", d, at)
    return c.build()


def damage(st: State, sid: str, *systems: str, hull: int = 0, jury: tuple[str, ...] = ()) -> State:
    s = st.ships[sid]
    sys = tuple(replace(x, damaged=x.id in systems, jury=x.id in jury) for x in s.systems)
    return replace(st, ships={**st.ships, sid: replace(s, systems=sys, hull_lost=hull)})


def test_ftc_rep_1_only_at_an_income_world_you_still_hold() -> None:
    """FTC-REP-1: outcome and rejection."""
    st = docked("dd")
    sid = st.groups["red-0,0"].ships[0]
    st = damage(st, sid, "b2")
    assert of(when(R, st, C.Repair(ship=sid, systems=("b2",)), RED), E.RepairOrdered)
    lost = replace(st, worlds={**st.worlds, "0,0": replace(st.worlds["0,0"], owner="blue")})
    then_violation(R, lost, C.Repair(ship=sid, systems=("b2",)), "FTC-REP-1", RED)
    away = replace(st, groups={**st.groups, "red-0,0": replace(st.groups["red-0,0"], hex=(1, 0))})
    then_violation(R, away, C.Repair(ship=sid, systems=("b2",)), "FTC-REP-1", RED)


def test_ftc_rep_2_costs_new_spares_identical_and_other_ships() -> None:
    """FTC-REP-2: outcome and rejection."""
    st = docked("dd", "dd")
    a, b = st.groups["red-0,0"].ships
    st = damage(st, a, "b2")
    assert of(when(R, st, C.Repair(ship=a, systems=("b2",)), RED), E.RepairOrdered)[0].cost == 6
    spared = replace(st, economies={**st.economies, "red": replace(st.economies["red"], spares={"0,0": 10})})
    ev = of(when(R, spared, C.Repair(ship=a, systems=("b2",), source="spares"), RED), E.RepairOrdered)[0]
    assert ev.cost == 0 and ev.spares_used == 6
    ev = of(when(R, st, C.Repair(ship=a, systems=("b2",), source="identical", donor=b), RED), E.RepairOrdered)[0]
    assert ev.cost == 1 and ev.donor_systems == ("b2",)
    after = fold(st, [ev])
    assert after.ships[b].systems[0].damaged and not after.ships[a].systems[0].damaged
    st2 = (
        Camp()
        .world((0, 0), "red")
        .at(7)
        .ship("red", "dd", (0, 0), "g1")
        .ship("red", "dd", (0, 0), "g2")
        .ship("red", "cl", (0, 0), "g3")
        .ship("red", "sv", (0, 0), "g4")
        .build()
    )
    st2 = damage(damage(st2, "red-s1", "b2"), "red-s3", "b4")
    ev = of(
        when(R, st2, C.Repair(ship="red-s1", systems=("b2",), source="other", donor="red-s2"), RED), E.RepairOrdered
    )[0]
    assert ev.cost == 2 and fold(st2, [ev]).ships["red-s1"].systems[0].foreign  # tests one level worse
    then_violation(
        R, st2, C.Repair(ship="red-s1", systems=("b2",), source="identical", donor="red-s2"), "FTC-REP-2", RED
    )  # not in the same task group
    then_violation(
        R, st2, C.Repair(ship="red-s3", systems=("b4",), source="other", donor="red-s1"), "FTC-REP-2", RED
    )  # no functionally identical part
    then_violation(
        R, st2, C.Repair(ship="red-s1", systems=("b2",), source="other", donor="red-s4"), "FTC-REP-2", RED
    )  # never across species
    then_violation(R, st, C.Repair(ship=a, systems=("b1",)), "FTC-REP-2", RED)  # not damaged


def test_ftc_rep_3_jury_rigged_systems_inspected_at_refit() -> None:
    """FTC-REP-3: outcome and rejection."""
    st = docked("dd")
    sid = st.groups["red-0,0"].ships[0]
    st = damage(st, sid, jury=("b2", "pds"))
    evs = when(R, st, C.InspectJuryRig(ship=sid), RED, [2, 5])
    ins = of(evs, E.JuryRigInspected)[0]
    assert ins.passed == ("b2",) and ins.failed == ("pds",)
    after = fold(st, evs)
    assert [s.damaged for s in after.ships[sid].systems if s.id in ("b2", "pds")] == [False, True]
    then_violation(R, after, C.InspectJuryRig(ship=sid), "FTC-REP-3", RED)


def test_ftc_rep_4_minor_a_week_major_two_rush_doubles_core_a_third_of_keel() -> None:
    """FTC-REP-4: outcome and rejection (and ruling FTC-R-15)."""
    st = docked("cl")
    sid = st.groups["red-0,0"].ships[0]
    st = damage(st, sid, "b4", "core", "mr")
    assert of(when(R, st, C.Repair(ship=sid, systems=("mr",)), RED), E.RepairOrdered)[0].until == 8
    major = of(when(R, st, C.Repair(ship=sid, systems=("b4",)), RED), E.RepairOrdered)[0]
    assert major.until == 9 and major.cost == 24
    rush = of(when(R, st, C.Repair(ship=sid, systems=("b4",), rush=True), RED), E.RepairOrdered)[0]
    assert rush.until == 8 and rush.cost == 48
    assert of(when(R, st, C.Repair(ship=sid, systems=("core",)), RED), E.RepairOrdered)[0].cost == 20
    then_violation(R, st, C.Repair(ship=sid, systems=("mr",), rush=True), "FTC-REP-4", RED)
    busy = fold(st, when(R, st, C.Repair(ship=sid, systems=("mr",)), RED))
    then_violation(R, busy, C.Repair(ship=sid, systems=("b4",)), "FTC-REP-4", RED)
    from .test_movement import order

    then_violation(R, busy, order("red-0,0", (1, 0)), "FTC-REP-4", RED)


def test_ftc_rep_4_class_2_beams_and_level_1_shields_are_minor_level_2_shields_major() -> None:
    """FTC-REP-4 boundaries: a class-2 beam (rated ≤ 3) and a level-1 shield take a week; a level-2 shield two."""
    from service.domain.ftcampaign.state import ShipSystem

    st = docked("dd")
    sid = st.groups["red-0,0"].ships[0]
    shields = (
        ShipSystem(id="sh1", kind="shield", rating=1, cost=5),
        ShipSystem(id="sh2", kind="shield", rating=2, cost=10),
    )
    st = replace(st, ships={**st.ships, sid: replace(st.ships[sid], systems=st.ships[sid].systems + shields)})
    st = damage(st, sid, "b2", "sh1", "sh2")
    weeks = {
        name: of(when(R, st, C.Repair(ship=sid, systems=(name,)), RED), E.RepairOrdered)[0].until - st.turn
        for name in ("b2", "sh1", "sh2")
    }
    assert weeks == {"b2": 1, "sh1": 1, "sh2": 2}


def test_ftc_rep_5_savasku_biomass_two_per_damaged_box_one_per_expended() -> None:
    """FTC-REP-5: outcome and rejection."""
    st = Camp().world((0, 0), "green").ship("green", "sv", (0, 0)).at(7).build()
    sid = st.groups["green-0,0"].ships[0]
    st = replace(st, ships={**st.ships, sid: replace(st.ships[sid], hull_lost=3, biomass_expended=4)})
    ev = of(when(R, st, C.Repair(ship=sid, hull=3, biomass=4), seat("green")), E.RepairOrdered)[0]
    assert ev.cost == 3 * 2 + 4
    human = docked("dd")
    hid = human.groups["red-0,0"].ships[0]
    then_violation(R, human, C.Repair(ship=hid, biomass=1), "FTC-REP-5", RED)


def test_ftc_rep_6_refits_similar_same_mass_as_repair_otherwise_plus_20() -> None:
    """FTC-REP-6: outcome and rejection."""
    st = docked("dd", "cl")
    dd, cl = st.groups["red-0,0"].ships
    same = C.Refit(ship=dd, remove="b2", install=C.SystemKit(id="g2", kind="graser", rating=2, cost=8, mass=2))
    assert of(when(R, st, same, RED), E.Refitted)[0].cost == 8
    other = C.Refit(ship=dd, remove="b2", install=C.SystemKit(id="mr", kind="missile_rack", cost=6, mass=2))
    assert of(when(R, st, other, RED), E.Refitted)[0].cost == 8  # 6 + 20%, rounded up
    hangar = C.Refit(ship=cl, remove="hg1", install=C.SystemKit(id="b3", kind="beam", rating=3, cost=12, mass=4))
    assert of(when(R, st, hangar, RED), E.Refitted)[0].cost == 12  # a hangar becomes one system at repair cost
    too_big = C.Refit(ship=dd, remove="b1", install=C.SystemKit(id="b4", kind="beam", rating=4, cost=24, mass=8))
    then_violation(R, st, too_big, "FTC-REP-6", RED)
    then_violation(R, st, C.Refit(ship=dd, remove="hull", install=C.SystemKit(id="x", kind="beam")), "FTC-REP-6", RED)


def test_ftc_rep_7_design_weight_fixed_at_keel_and_never_below_launch() -> None:
    """FTC-REP-7: outcome and rejection."""
    st = Camp().world((0, 0), "red").at(7).build()
    st = fold(st, when(R, st, C.LayKeel(design="dd", world="0,0", design_mass=40), RED))
    assert st.economies["red"].keels[0].design_mass == 40
    then_violation(R, st, C.LayKeel(design="dd", world="0,0", design_mass=20), "FTC-REP-7", RED)
    roomy = docked("dd")
    sid = roomy.groups["red-0,0"].ships[0]
    roomy = replace(roomy, ships={**roomy.ships, sid: replace(roomy.ships[sid], design_mass=40)})
    big = C.Refit(ship=sid, remove="b1", install=C.SystemKit(id="b4", kind="beam", rating=4, cost=24, mass=8))
    assert of(when(R, roomy, big, RED), E.Refitted)[0].mass_after == 37


def _captured() -> tuple[State, str]:
    st, _ = arrive("attack", "attack", [2, 3, 4])
    st = battle_ready(st)
    blue_ship = st.groups["blue-0,0"].ships[0]
    evs = when(
        R,
        st,
        C.RecordBattle(
            battle=st.battles[0].id,
            victor="red",
            captured=(blue_ship,),
            ships=(C.ShipResult(ship=blue_ship, hull_lost=2, damaged=("b2",)),),
        ),
        UMPIRE,
    )
    return fold(st, evs), blue_ship


def test_ftc_cap_1_drifting_ships_captured_by_the_victor() -> None:
    """FTC-CAP-1: outcome and rejection."""
    st, ship = _captured()
    assert st.ships[ship].owner == "red" and st.ships[ship].hulk
    st0, _ = arrive("attack", "attack", [2, 3, 4])
    st0 = battle_ready(st0)
    blue_ship = st0.groups["blue-0,0"].ships[0]
    then_violation(R, st0, C.RecordBattle(battle=st0.battles[0].id, captured=(blue_ship,)), "FTC-CAP-1")


def test_ftc_cap_2_rebuild_needs_two_rows_and_three_majors_plus_20_if_new_type() -> None:
    """FTC-CAP-2: outcome and rejection (and ruling FTC-R-16)."""
    st = Camp().world((0, 0), "red").ship("red", "cl", (0, 0)).at(7).build()
    sid = st.groups["red-0,0"].ships[0]
    st = replace(st, ships={**st.ships, sid: replace(st.ships[sid], hulk=True, hull_lost=4, owner="red")})
    st = damage(st, sid, "b4", hull=4)
    st = replace(st, ships={**st.ships, sid: replace(st.ships[sid], hulk=True)})
    ev = of(when(R, st, C.RebuildCapture(ship=sid), RED), E.CaptureRebuilt)[0]
    assert ev.cost == -(-(24 + 4 * 2) * 12 // 10)  # not a type in red's service: +20%
    wrecked = replace(st, ships={**st.ships, sid: replace(st.ships[sid], hull_lost=9)})
    then_violation(R, wrecked, C.RebuildCapture(ship=sid), "FTC-CAP-2", RED)
    from .test_movement import order

    then_violation(R, st, order("red-0,0", (1, 0)), "FTC-CAP-2", RED)


def _hulk_with_majors(*damaged: str, hull_lost: int = 0) -> tuple[State, str]:
    """A captured light cruiser (16 hull in 4 rows of 4) listing all five major systems: three cores, a drive
    and an FTL drive; ``damaged`` names the broken ones."""
    from service.domain.ftcampaign.state import ShipSystem

    st = Camp().world((0, 0), "red").ship("red", "cl", (0, 0)).at(7).build()
    sid = st.groups["red-0,0"].ships[0]
    ship = st.ships[sid]
    majors = tuple(
        ShipSystem(id=i, kind=k, cost=c)
        for i, k, c in (("core2", "core", 0), ("core3", "core", 0), ("drv", "drive", 8), ("ftl", "ftl", 6))
    )
    ship = replace(ship, systems=ship.systems + majors, hulk=True)
    st = replace(st, ships={**st.ships, sid: ship})
    return damage(replace(st, ships={**st.ships, sid: replace(ship, hulk=True)}), sid, *damaged, hull=hull_lost), sid


def test_ftc_cap_2_boundaries_exactly_three_majors_and_exactly_two_rows() -> None:
    """FTC-CAP-2 boundaries: three of the five major systems working and exactly two intact hull rows rebuild;
    exactly two working majors, or one intact row, are refused."""
    three, sid = _hulk_with_majors("core", "drv", hull_lost=8)  # 8 lost of 4-box rows: rows 3 and 4 gone
    assert of(when(R, three, C.RebuildCapture(ship=sid), RED), E.CaptureRebuilt)
    two, sid = _hulk_with_majors("core", "drv", "ftl")
    v = then_violation(R, two, C.RebuildCapture(ship=sid), "FTC-CAP-2", RED)
    assert "3 of the 5 major systems" in v.detail
    cores_out, sid = _hulk_with_majors("core", "core2", "core3")
    then_violation(R, cores_out, C.RebuildCapture(ship=sid), "FTC-CAP-2", RED)
    one_row, sid = _hulk_with_majors(hull_lost=9)
    then_violation(R, one_row, C.RebuildCapture(ship=sid), "FTC-CAP-2", RED)


def test_ftc_cap_3_sell_for_scrap_or_strip_parts() -> None:
    """FTC-CAP-3: outcome and rejection."""
    st = docked("dd", "dd")
    a, b = st.groups["red-0,0"].ships
    st = replace(st, ships={**st.ships, b: replace(st.ships[b], hulk=True, hull_lost=2)})
    ev = of(when(R, st, C.SellCapture(ship=b), RED), E.CaptureSold)[0]
    assert ev.price == 10 * 3  # 10% of 100 per intact hull row (3 of 4 left)
    st = damage(st, a, "b2")
    st = replace(st, ships={**st.ships, b: replace(st.ships[b], hulk=True)})
    strip = of(when(R, st, C.Repair(ship=a, systems=("b2",), source="other", donor=b), RED), E.RepairOrdered)[0]
    assert strip.cost == 2 and strip.donor_systems == ("b2",)
    then_violation(R, st, C.SellCapture(ship=a), "FTC-CAP-3", RED)


def test_ftc_ump_1_umpires_see_all_close_turns_rule_and_stand_aside_when_involved() -> None:
    """FTC-UMP-1: outcome and rejection (and ruling FTC-R-19)."""
    st, _ = arrive("attack", "attack", [2, 3, 4])
    st = battle_ready(st)
    b = st.battles[0]
    then_violation(R, st, C.RecordBattle(battle=b.id, umpire="john"), "FTC-UMP-1")  # john plays blue
    assert of(when(R, st, C.RecordBattle(battle=b.id, umpire="alan"), UMPIRE), E.BattleRecorded)
    evs = when(R, st, C.RecordRuling(text="Heavy missiles from MT are fine.", umpire="alan"), UMPIRE)
    assert R.redact(evs[0], seat("green"), st) == evs[0]
    then_violation(R, st, C.RecordRuling(text="x", umpire="john", involves=("blue",)), "FTC-UMP-1")
    then_violation(R, st, C.RecordRuling(text="x"), "FTC-UMP-1", RED)
    assert R.view(st, UMPIRE)["groups"] and "economies" in R.view(st, UMPIRE)


def test_ftc_ump_2_rewind_is_an_event_that_supersedes_without_deleting() -> None:
    """FTC-UMP-2: outcome and rejection (and ruling FTC-R-19)."""
    from service.events.envelope import GameRewound
    from service.events.replay import Folder, superseded_seqs

    st0 = Camp().world((0, 0), "red").ship("red", "dd", (0, 0)).build()
    log: list = []
    st = st0
    for p, cmd in (
        ("red", C.SubmitOrders(orders=(C.Order(group="red-0,0", to=(1, 0)),))),
        ("blue", C.SubmitOrders()),
        ("green", C.SubmitOrders()),
    ):
        evs = when(R, st, cmd, seat(p))
        st = fold(st, evs)
        log += evs
    assert st.groups["red-0,0"].hex == (1, 0)

    class D:
        def __init__(self, seq: int, event: object) -> None:
            self.seq, self.event = seq, event

    rows = [D(i + 1, e) for i, e in enumerate(log)]
    rows.append(D(len(rows) + 1, GameRewound(to_seq=1, reason="disputed dogfight")))
    rewound = Folder(R).fold(st0, rows)  # type: ignore[arg-type]
    assert rewound.groups["red-0,0"].hex == (0, 0) and "red" in rewound.orders
    assert superseded_seqs([(len(rows), 1)], range(1, len(rows) + 1)) == set(range(2, len(rows)))
    then_violation(R, rewound, C.SubmitOrders(), "FTC-MOV-1", RED)
