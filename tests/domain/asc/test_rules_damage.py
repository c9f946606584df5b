"""ASC-LOC, ASC-DMG and ASC-DC: hit location, armour, damage effects, damage control."""

from __future__ import annotations

from msgspec.structs import replace

from service.domain.asc.commands import Fire, ForcePhase, Repair
from service.domain.asc.condition import effective_armour, power_shutdown
from service.domain.asc.damage import apply_strikes, locate
from service.domain.asc.events import BackupTookOver, ContinuingDamage, LocksLost, RepairsRolled, VesselDestroyed
from service.domain.asc.state import Strike
from tests.support.decider import ScriptedDice, then_violation

from .builders import ADV, R, damaged, duel, lock, of, phase, run, state_of

FULL = {
    "turrets": [{"id": "t1", "arcs": [5, 0, 1]}, {"id": "t2", "type": "jack", "arcs": [0, 1]}],
    "launchers": [{"id": "sub"}],
    "sensors": [{"id": "s1", "type": "passive", "rating": 5}, {"id": "s2", "type": "active", "rating": 4}],
    "missile_bays": [{"id": "bay", "missiles": 3}],
    "hangars": 1,
    "small_craft": 2,
    "remote_communicators": 1,
    "ttas": 2,
    "armour": 3,
    "hull": 20,
    "power_plant": 10,
    "accommodation": 300,
    "marines": 150,
    "cargo": 1500,
}


def sheet(**kw: object):  # type: ignore[no-untyped-def]
    state = state_of(duel(alpha={**FULL, **kw}))
    return state.specs["alpha"], state.status["alpha"]


def _locate(faces: list[int], spec, st, damage: int, rolls: list) -> Strike:  # type: ignore[no-untyped-def]
    """Roll a strike's location with scripted dice, every one of which must be rolled."""
    dice = ScriptedDice(faces)
    strike = locate(dice, spec, st, damage, rolls)
    assert dice.unused == [], f"unused scripted dice {dice.unused}"
    return strike


def where(faces: list[int], damage: int = 1, **kw: object) -> Strike:
    spec, st = sheet(**kw)
    dice = ScriptedDice(faces)
    strike = locate(dice, spec, kw.get("_st", st), damage, [])  # type: ignore[arg-type]
    assert dice.unused == []
    return strike


def test_ASC_LOC_1_general_table() -> None:
    """ASC-LOC-1: general table."""
    assert [where([f]).location for f in (1, 4, 5, 6, 7)] == [
        "hull",
        "hull",
        "power_plant",
        "power_plant",
        "damage_control",
    ]
    assert where([8, 9]).location == "tta" and where([9, 1]).part == "t1" and where([10, 10, 1]).location == "computer"
    assert where([5], power_plant=0, kind="satellite").location == "hull"  # ASC-R-11: no power plant


def test_ASC_LOC_2_surface_fixture_table() -> None:
    """ASC-LOC-2: surface fixture table."""
    got = [where([8, f] + ([1] if f == 1 else [])).location for f in (1, 3, 4, 7, 9)]
    assert got == ["sensor", "remote_communicator", "screen_generator", "hangar", "tta"]
    assert where([8, 5]).part == "bay"
    assert where([8, 7], hangars=0).location == "hull"  # ASC-R-11


def test_ASC_LOC_3_critical_table() -> None:
    """ASC-LOC-3: critical table."""
    crits = [where([10, 10, f]).location for f in range(1, 11)]  # armour save die 10 fails first
    assert crits == [
        "computer",
        "tac",
        "bridge",
        "accommodation",
        "engineering",
        "cargo",
        "drive",
        "continuing",
        "continuing",
        "continuing",
    ]


def test_ASC_LOC_4_armour_save_converts_to_hull() -> None:
    """ASC-LOC-4: armour save converts to hull."""
    assert where([10, 3], damage=1).location == "hull" and where([10, 3]).saved  # 3 + 0 <= 3
    assert where([10, 3, 7], damage=2).location == "drive"  # 3 + 1 > 3
    assert where([9, 2, 3]).location == "hull"  # jack turret t2 chosen (d3 = 2), saved
    spec, st = sheet()
    assert effective_armour(spec, replace(st, hull_damage=5)) == 1  # minor breach halves
    assert effective_armour(spec, replace(st, hull_damage=10)) == 0  # major breach: no saves
    assert _locate([10, 1], spec, replace(st, hull_damage=10), 1, []).location == "computer"  # no save rolled


def test_ASC_LOC_5_turret_hit_picks_a_working_mount_and_split_compartments() -> None:
    """ASC-LOC-5: turret hit picks a working mount and split compartments."""
    assert [where([9, f]).part for f in (1, 3)] == ["t1", "sub"]
    spec, st = sheet()
    assert _locate([9, 4], spec, st, 1, []).part == "bay"
    only = replace(st, mounts_lost=("t2", "sub", "bay"))
    assert _locate([9], spec, only, 1, []).part == "t1"  # one candidate: no die
    carrier_spec, carrier_st = sheet(carrier=True)
    assert _locate([10, 10, 2, 6], carrier_spec, carrier_st, 1, []).location == "fighter_control"
    assert _locate([10, 10, 2, 5], carrier_spec, carrier_st, 1, []).location == "tac"
    flag_spec, flag_st = sheet(flagship=True)
    assert _locate([10, 10, 3, 9], flag_spec, flag_st, 1, []).location == "flag_communications"


def test_ASC_DMG_1_and_2_damage_to_location_and_hull_thresholds() -> None:
    """ASC-DMG-1, ASC-DMG-2: damage to location and hull thresholds."""
    spec, st = sheet()
    st1, _ = apply_strikes(spec, st, (Strike(damage=3, location="hull"),))
    assert st1.hull_damage == 3
    st2, _ = apply_strikes(spec, st, (Strike(damage=5, location="hull"),))
    from service.domain.asc.condition import major_breach, minor_breach

    assert minor_breach(spec, st2) and not major_breach(spec, st2)
    st3, notes = apply_strikes(spec, st2, (Strike(damage=15, location="hull"),))
    assert "hull collapsed" in notes
    state = state_of(duel(alpha={"hull": 4}), lock("alpha", "bravo"), lock("bravo", "alpha"), phase("fire"))
    state, _ = run(state, Fire(vessel="bravo", weapon="las", target="alpha"))
    state, events = run(state, ForcePhase(), dice=[7, 1])
    assert state.status["alpha"].hull_damage == 1
    state = R.evolve(state, damaged(state, "alpha", hull_damage=3, continuing=(1,)))
    state, events = run(state, ForcePhase())
    assert of(events, VesselDestroyed)[0].vessel == "alpha"
    assert R.is_over(state) and state.winner == "disadvantaged"


def test_ASC_DMG_3_power_plant_shutdown_and_restart() -> None:
    """ASC-DMG-3: power plant shutdown and restart."""
    spec, st = sheet()
    st1, _ = apply_strikes(spec, replace(st, screen=2, active=True), (Strike(damage=2, location="power_plant"),))
    assert power_shutdown(spec, st1) and st1.screen == 0 and not st1.active
    state = state_of(duel(alpha=FULL), lock("alpha", "bravo"), phase("fire"))
    state = R.evolve(state, damaged(state, "alpha", power_plant_damage=2))
    then_violation(R, state, Fire(vessel="alpha", weapon="t1", target="bravo"), "ASC-DMG-3", ADV)
    dc = state_of(duel(alpha={**FULL, "crew_quality": 1}), phase("damage_control"))
    dc = R.evolve(dc, damaged(dc, "alpha", power_plant_damage=2))
    dc, events = run(dc, Repair(vessel="alpha", locations=("power_plant",)), ADV, dice=[6])  # 6+1+4 = 11
    assert events[0].results[0].success and not power_shutdown(dc.specs["alpha"], dc.status["alpha"])
    dead = state_of(duel(alpha=FULL), phase("damage_control"))
    dead = R.evolve(dead, damaged(dead, "alpha", power_plant_damage=10))
    then_violation(R, dead, Repair(vessel="alpha", locations=("power_plant",)), "ASC-DMG-3", ADV)


def test_ASC_DMG_4_every_effect() -> None:
    """ASC-DMG-4: every effect."""
    spec, st = sheet()
    hits = tuple(
        Strike(damage=1, location=loc, part=part)
        for loc, part in [
            ("damage_control", None),
            ("turret", "t1"),
            ("sensor", "s1"),
            ("remote_communicator", None),
            ("screen_generator", None),
            ("missile_bay", "bay"),
            ("hangar", None),
            ("tta", None),
            ("computer", None),
            ("tac", None),
            ("bridge", None),
            ("accommodation", None),
            ("engineering", None),
            ("cargo", None),
            ("drive", None),
            ("continuing", None),
        ]
    )
    after, notes = apply_strikes(spec, st, hits)
    assert after.dc_teams == st.dc_teams - 1 and after.mounts_lost == ("t1",) and after.sensors_lost == ("s1",)
    assert after.remote_comms_lost == 1 and after.screen_max == st.screen_max - 1
    assert after.bays_out == ("bay",) and after.missiles["bay"] == 2
    assert after.hangars_out == 1 and after.small_craft == 1 and after.ttas_lost == 1
    assert after.computer_out and after.tac_out and after.bridge_out and after.engineering_out and after.drive_out
    assert after.quarters == 200 and after.marines == 50 and after.cargo == 500 and after.continuing == (1,)
    assert len(notes) == len(hits)
    # a computer or TAC loss breaks locks; without a backup the ship cannot fire
    state = state_of(duel(alpha=FULL), lock("alpha", "bravo"), phase("fire"))
    from service.domain.asc.events import ShotResolved

    hit = ShotResolved(
        vessel="bravo", weapon="las", target="alpha", outcome="hit", strikes=(Strike(damage=1, location="tac"),)
    )
    state = R.evolve(state, hit)
    state, events = run(state, ForcePhase())
    assert of(events, LocksLost) and state.status["alpha"].tac_out
    then_violation(
        R, R.evolve(state, phase("fire", 2)), Fire(vessel="alpha", weapon="t1", target="bravo"), "ASC-DMG-4", ADV
    )
    eng = state_of(duel(alpha=FULL), phase("damage_control"))
    eng = R.evolve(eng, damaged(eng, "alpha", engineering_out=True, drive_out=True, repair={"drive": 1}))
    then_violation(R, eng, Repair(vessel="alpha", locations=("drive",)), "ASC-DMG-4", ADV)


def test_ASC_DC_1_rolls_and_team_limit() -> None:
    """ASC-DC-1: rolls and team limit."""
    state = state_of(duel(alpha={**FULL, "dc_teams": 2, "crew_quality": 1}), phase("damage_control"))
    state = R.evolve(state, damaged(state, "alpha", drive_out=True, repair={"drive": 2}))
    then_violation(R, state, Repair(vessel="alpha", locations=("drive",) * 3), "ASC-DC-1", ADV)
    done, events = run(state, Repair(vessel="alpha", locations=("drive", "drive")), ADV, dice=[10, 9])
    rolls = of(events, RepairsRolled)[0]
    assert [r.success for r in rolls.results] == [True, False]  # 10+1 = 11 repairs, 9+1 = 10 does not
    assert done.status["alpha"].repair == {"drive": 1} and done.status["alpha"].drive_out
    then_violation(R, done, Repair(vessel="alpha", locations=("drive",)), "ASC-DC-1", ADV)


def test_ASC_DC_2_only_listed_locations_repairable() -> None:
    """ASC-DC-2: only listed locations repairable."""
    state = state_of(duel(alpha=FULL), phase("damage_control"))
    state = R.evolve(
        state, damaged(state, "alpha", hull_damage=3, tac_out=True, computer_out=True, repair={"computer": 1})
    )
    then_violation(R, state, Repair(vessel="alpha", locations=("hull",)), "ASC-DC-2", ADV)
    then_violation(R, state, Repair(vessel="alpha", locations=("tac",)), "ASC-DC-2", ADV)
    then_violation(R, state, Repair(vessel="alpha", locations=("drive",)), "ASC-DC-2", ADV)  # nothing to repair
    failed, _ = run(state, Repair(vessel="alpha", locations=("computer",)), ADV, dice=[10])  # 10 + 0 < 11
    assert failed.status["alpha"].computer_out
    crew = state_of(duel(alpha={**FULL, "crew_quality": 2}), phase("damage_control"))
    crew = R.evolve(
        crew, damaged(crew, "alpha", computer_out=True, bays_out=("bay",), repair={"computer": 1, "missile_bay:bay": 1})
    )
    crew, _ = run(crew, Repair(vessel="alpha", locations=("computer", "missile_bay:bay")), ADV, dice=[9, 9])
    assert not crew.status["alpha"].computer_out and crew.status["alpha"].bays_out == ()


def test_ASC_DC_3_backups_take_over_in_damage_control() -> None:
    """ASC-DC-3: backups take over in damage control."""
    state = state_of(
        duel(alpha={**FULL, "backups": {"databus": True, "tac": True, "bridge": False}}),
        lock("alpha", "bravo"),
        phase("fire"),
    )
    from service.domain.asc.events import ShotResolved

    state = R.evolve(
        state,
        ShotResolved(
            vessel="bravo",
            weapon="las",
            target="alpha",
            outcome="hit",
            strikes=(
                Strike(damage=1, location="computer"),
                Strike(damage=1, location="tac"),
                Strike(damage=1, location="bridge"),
            ),
        ),
    )
    state, events = run(state, ForcePhase())
    assert [e.system for e in of(events, BackupTookOver)] == ["databus", "tac"]
    st = state.status["alpha"]
    assert not st.computer_out and not st.tac_out and st.bridge_out and "computer" not in st.repair
    # a backup serves once (ASC-R-21)
    st2, _ = apply_strikes(state.specs["alpha"], st, (Strike(damage=1, location="tac"),))
    assert st2.tac_out and "tac" in st2.backups_used


def test_ASC_DC_4_order_damage_backups_repairs_then_continuing() -> None:
    """ASC-DC-4: order damage backups repairs then continuing."""
    state = state_of(duel(alpha={**FULL, "crew_quality": 1}), phase("fire"))
    from service.domain.asc.events import ShotResolved

    state = R.evolve(
        state,
        ShotResolved(
            vessel="bravo",
            weapon="las",
            target="alpha",
            outcome="hit",
            strikes=(Strike(damage=2, location="continuing"),),
        ),
    )
    state, events = run(state, ForcePhase())  # damage lands at the start of damage control
    assert state.status["alpha"].continuing == (2,) and state.status["alpha"].hull_damage == 0
    state, _ = run(state, Repair(vessel="alpha", locations=("continuing",)), ADV, dice=[10])
    assert state.status["alpha"].continuing == (1,)  # needs as many successes as damage taken
    state, events = run(state, ForcePhase())  # end of phase: continuing damage after repairs
    assert of(events, ContinuingDamage)[0].damage == 1 and state.status["alpha"].hull_damage == 1
    assert R.clock(state).phase == "sensors"
