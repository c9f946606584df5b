"""ASC-FIRE and ASC-SCR: declarations, locks and TTAs, arcs, range, to-hit, strikes, ordnance, screens."""

from __future__ import annotations

import pytest

from service.domain.asc.commands import CommitSensors, EndPhase, Fire, SensorSetting
from service.domain.asc.events import (
    DamageTaken,
    FireDeclared,
    PhaseChanged,
    ShotResolved,
    VesselDestroyed,
)
from service.domain.core import SPECTATOR, InvalidScenario
from tests.support.decider import then_violation

from .builders import ADV, DIS, R, damaged, duel, fire_phase, lock, of, phase, resolve, reveal, run, ship, state_of

LAS2 = {"id": "las2", "type": "normal", "arcs": [5, 0, 1], "damage": "1x1"}


def test_ASC_FIRE_1_sealed_declarations_simultaneous_damage_in_damage_control() -> None:
    """ASC-FIRE-1: sealed declarations simultaneous damage in damage control."""
    state = fire_phase(duel(), lock("alpha", "bravo"), lock("bravo", "alpha"))
    state, events = run(state, Fire(vessel="alpha", weapon="las", target="bravo"), ADV)
    assert isinstance(events[0], FireDeclared)
    assert R.redact(events[0], DIS, state) is None and R.redact(events[0], SPECTATOR, state) is None
    then_violation(R, state, Fire(vessel="alpha", weapon="las", target="bravo"), "ASC-FIRE-1", ADV)
    state, _ = run(state, Fire(vessel="bravo", weapon="las", target="alpha"), DIS)
    state, events = run(state, EndPhase(side="advantaged"), ADV)
    state, events = run(state, EndPhase(side="disadvantaged"), DIS, dice=[7, 1, 7, 2])
    kinds = [type(e).__name__ for e in events]
    assert kinds[:4] == ["PhaseEnded", "ShotResolved", "ShotResolved", "PhaseChanged"]
    assert [e.vessel for e in of(events, ShotResolved)] == ["alpha", "bravo"]  # fixed order (ASC-SCR-1)
    assert of(events, PhaseChanged)[0].phase == "damage_control"
    assert {e.vessel for e in of(events, DamageTaken)} == {"alpha", "bravo"}
    assert state.status["bravo"].hull_damage == 1 and state.status["alpha"].hull_damage == 1
    dc = state_of(duel(), lock("alpha", "bravo"), phase("damage_control"))
    then_violation(R, dc, Fire(vessel="alpha", weapon="las", target="bravo"), "ASC-FIRE-1", ADV)


def test_ASC_FIRE_2_lock_needed_and_targets_limited_by_ttas_utes_apart() -> None:
    """ASC-FIRE-2: lock needed and targets limited by ttas utes apart."""
    charlie = ship("charlie", "disadvantaged")
    alpha = {
        "ttas": 1,
        "turrets": [{"id": "las", "arcs": [5, 0, 1]}, LAS2, {"id": "utes", "arcs": [5, 0, 1], "utes": True}],
    }
    state = fire_phase(duel(alpha=alpha, extra=[charlie]), lock("alpha", "bravo"), lock("alpha", "charlie"))
    state, _ = run(state, Fire(vessel="alpha", weapon="las", target="bravo"), ADV)
    err = then_violation(R, state, Fire(vessel="alpha", weapon="las2", target="charlie"), "ASC-FIRE-2", ADV)
    assert "at most 1" in err.detail
    run(state, Fire(vessel="alpha", weapon="las2", target="bravo"), ADV)  # same target: fine
    run(state, Fire(vessel="alpha", weapon="utes", target="charlie"), ADV)  # UTES has its own TTA
    no_lock = fire_phase(duel(), reveal(("bravo", True, 0)))  # detected (active) but not locked
    err = then_violation(R, no_lock, Fire(vessel="alpha", weapon="las", target="bravo"), "ASC-FIRE-2", ADV)
    assert "no TTA locked" in err.detail
    hidden = fire_phase(duel())
    e1 = then_violation(R, hidden, Fire(vessel="alpha", weapon="las", target="bravo"), "ASC-FIRE-2", ADV)
    e2 = then_violation(R, hidden, Fire(vessel="alpha", weapon="las", target="nope"), "ASC-FIRE-2", ADV)
    assert (e1.detail, e2.detail) == ("no detected target 'bravo'", "no detected target 'nope'")


def test_ASC_R_5_remote_fires_on_controller_lock_or_guided_by_utes() -> None:
    """ASC-R-5: remote fires on controller lock or guided by utes."""
    missile = ship(
        "m1",
        "advantaged",
        kind="missile",
        controller="alpha",
        power_plant=0,
        hull=1,
        turrets=[{"id": "wh", "type": "warhead", "arcs": [0, 1, 2, 3, 4, 5], "weapon_type": "laser"}],
    )
    alpha = {"ttas": 1, "remote_communicators": 1, "turrets": [{"id": "utes", "arcs": [5, 0, 1], "utes": True}]}
    charlie = ship("charlie", "disadvantaged")
    state = fire_phase(duel(alpha=alpha, extra=[missile, charlie]), lock("alpha", "bravo"), lock("alpha", "charlie"))
    run(state, Fire(vessel="m1", weapon="wh", target="bravo"), ADV)
    guided, _ = run(state, Fire(vessel="m1", weapon="wh", target="charlie", guide="utes"), ADV)
    # the UTES guiding the missile at charlie cannot also engage bravo
    then_violation(R, guided, Fire(vessel="alpha", weapon="utes", target="bravo"), "ASC-FIRE-2", ADV)
    cut = R.evolve(state, damaged(state, "alpha", remote_comms_lost=1))
    then_violation(R, cut, Fire(vessel="m1", weapon="wh", target="bravo"), "ASC-DMG-4", ADV)


def test_ASC_FIRE_3_arcs() -> None:
    """ASC-FIRE-3: arcs."""
    behind = fire_phase(duel(bravo={"hex": [0, 1]}), lock("alpha", "bravo"))
    then_violation(R, behind, Fire(vessel="alpha", weapon="las", target="bravo"), "ASC-FIRE-3", ADV)
    ahead = fire_phase(duel(bravo={"hex": [1, -1]}), lock("alpha", "bravo"))  # NE: boundary of arcs 0-1
    run(ahead, Fire(vessel="alpha", weapon="las", target="bravo"), ADV)
    same = fire_phase(duel(alpha={"turrets": [{"id": "las", "type": "jack", "arcs": [2, 3]}]}), lock("alpha", "bravo"))
    run(same, Fire(vessel="alpha", weapon="las", target="bravo"), ADV)  # own hex: every arc
    with pytest.raises(InvalidScenario):
        R.parse_setup(duel(alpha={"turrets": [{"id": "t", "type": "gun_tower", "arcs": [0, 1, 2]}]}))


def test_ASC_FIRE_4_one_hex_maximum_and_minus_two_at_one_hex() -> None:
    """ASC-FIRE-4: one hex maximum and minus two at one hex."""
    far = fire_phase(duel(bravo={"hex": [0, -2]}), lock("alpha", "bravo"))
    then_violation(R, far, Fire(vessel="alpha", weapon="las", target="bravo"), "ASC-FIRE-4", ADV)
    near = fire_phase(duel(bravo={"hex": [0, -1]}), lock("alpha", "bravo"))
    _, events = resolve(near, Fire(vessel="alpha", weapon="las", target="bravo"), dice=[8])
    roll = of(events, ShotResolved)[0].rolls[0]
    assert [(m.rule, m.value) for m in roll.modifiers] == [("ASC-FIRE-4", -2)] and roll.outcome == "miss"


def test_ASC_FIRE_5_to_hit_modifiers_and_atmosphere() -> None:
    """ASC-FIRE-5: to hit modifiers and atmosphere."""
    alpha = {
        "crew_quality": 1,
        "target_computer": 1,
        "turrets": [{"id": "las", "arcs": [5, 0, 1], "targeting": 1, "mounts": 3}],
    }
    setup = duel(alpha=alpha, bravo={"hex": [0, -1], "target_profile": -1})
    state = fire_phase(setup, lock("alpha", "bravo"))
    _, events = resolve(state, Fire(vessel="alpha", weapon="las", target="bravo"), dice=[4])
    roll = of(events, ShotResolved)[0].rolls[0]
    assert sum(m.value for m in roll.modifiers) == 2 and roll.target == 7 and roll.outcome == "miss"
    assert {m.why for m in roll.modifiers} >= {"crew quality", "target profile", "triple mount", "target computer"}
    _, events = resolve(state, Fire(vessel="alpha", weapon="las", target="bravo"), dice=[5, 1])
    assert of(events, ShotResolved)[0].outcome == "hit"
    # atmospheric target: only from the planet hex, lasers/PB only, -2
    sub = {"launchers": [{"id": "sub", "rounds": 2, "damage": "2x1"}]}
    atmo = duel(planet_hexes=[[0, -1]], bravo={"hex": [0, -1], "atmospheric": True}, alpha=sub)
    outside = fire_phase(atmo, lock("alpha", "bravo"))
    then_violation(R, outside, Fire(vessel="alpha", weapon="las", target="bravo"), "ASC-FIRE-5", ADV)
    inside = fire_phase(atmo, lock("alpha", "bravo"), damaged(outside, "alpha", hex=outside.status["bravo"].hex))
    then_violation(R, inside, Fire(vessel="alpha", weapon="sub", target="bravo"), "ASC-FIRE-5", ADV)
    _, events = resolve(inside, Fire(vessel="alpha", weapon="las", target="bravo"), dice=[1])
    assert ("atmospheric target", -2) in [(m.why, m.value) for m in of(events, ShotResolved)[0].rolls[0].modifiers]


def test_ASC_FIRE_6_multi_strike_weapons_roll_each_location() -> None:
    """ASC-FIRE-6: multi strike weapons roll each location."""
    alpha = {"turrets": [{"id": "x", "arcs": [5, 0, 1], "weapon_type": "particle_beam", "damage": "3x2"}]}
    state = fire_phase(duel(alpha=alpha), lock("alpha", "bravo"))
    state, events = resolve(state, Fire(vessel="alpha", weapon="x", target="bravo"), dice=[7, 1, 2, 3])
    shot = of(events, ShotResolved)[0]
    assert [(s.damage, s.location) for s in shot.strikes] == [(2, "hull")] * 3
    assert state.status["bravo"].hull_damage == 6
    _, events = resolve(
        fire_phase(duel(alpha=alpha), lock("alpha", "bravo")),
        Fire(vessel="alpha", weapon="x", target="bravo"),
        dice=[6],
    )
    assert of(events, ShotResolved)[0].strikes == ()  # a miss: no strike at all
    with pytest.raises(InvalidScenario):
        R.parse_setup(duel(alpha={"turrets": [{"id": "x", "damage": "3*2"}]}))


def test_ASC_FIRE_7_submunitions_rounds_rof_and_launch_hex() -> None:
    """ASC-FIRE-7: submunitions rounds rof and launch hex."""
    alpha = {"launchers": [{"id": "sub", "rounds": 2, "rof": "1/2", "damage": "1x1"}]}
    fired = ShotResolved(vessel="alpha", weapon="sub", target="bravo", outcome="miss", launcher_turn=1)
    state = fire_phase(duel(alpha=alpha), lock("alpha", "bravo"), fired, phase("fire", 2))
    assert state.status["alpha"].rounds["sub"] == 1
    err = then_violation(R, state, Fire(vessel="alpha", weapon="sub", target="bravo"), "ASC-FIRE-7", ADV)
    assert "every 2 turns" in err.detail
    turn3 = R.evolve(state, phase("fire", 3))
    turn3, _ = resolve(turn3, Fire(vessel="alpha", weapon="sub", target="bravo"), dice=[1])
    assert turn3.status["alpha"].rounds["sub"] == 0
    turn5 = R.evolve(turn3, phase("fire", 5))
    err = then_violation(R, turn5, Fire(vessel="alpha", weapon="sub", target="bravo"), "ASC-FIRE-7", ADV)
    assert "no rounds" in err.detail
    adjacent = fire_phase(duel(alpha=alpha, bravo={"hex": [0, -1]}), lock("alpha", "bravo"))
    then_violation(R, adjacent, Fire(vessel="alpha", weapon="sub", target="bravo"), "ASC-FIRE-7", ADV)


MISSILE = {
    "kind": "missile",
    "power_plant": 0,
    "hull": 1,
    "warp_efficiency": 3,
    "manoeuvre": "A+",
    "turrets": [{"id": "wh", "type": "warhead", "arcs": [0, 1, 2, 3, 4, 5], "weapon_type": "det", "damage": "2x1"}],
    "sensors": [],
    "ttas": 0,
    "screens": 0,
    "dc_teams": 0,
}


def test_ASC_FIRE_8_det_missile_destroyed_when_it_fires() -> None:
    """ASC-FIRE-8: det missile destroyed when it fires."""
    m = ship("m1", "advantaged", controller="alpha", **{k: v for k, v in MISSILE.items()})
    state = fire_phase(duel(alpha={"remote_communicators": 1}, extra=[m]), lock("alpha", "bravo"))
    state, events = resolve(state, Fire(vessel="m1", weapon="wh", target="bravo"), dice=[2])  # a miss
    shot = of(events, ShotResolved)[0]
    assert shot.outcome == "miss" and shot.firer_destroyed
    assert of(events, VesselDestroyed)[0].vessel == "m1" and state.status["m1"].destroyed
    then_violation(
        R, R.evolve(state, phase("fire", 2)), Fire(vessel="m1", weapon="wh", target="bravo"), "ASC-FIRE-1", ADV
    )


def test_ASC_FIRE_9_missiles_die_to_any_hit_without_location_screen_or_armour() -> None:
    """ASC-FIRE-9: missiles die to any hit without location screen or armour."""
    m = ship("m1", "disadvantaged", controller="bravo", **MISSILE)
    state = fire_phase(duel(bravo={"remote_communicators": 1}, extra=[m]), lock("alpha", "m1"))
    state, events = resolve(state, Fire(vessel="alpha", weapon="las", target="m1"), dice=[7])
    shot = of(events, ShotResolved)[0]
    assert shot.missile_killed and shot.strikes == () and len(shot.rolls) == 1
    assert of(events, VesselDestroyed)[0].vessel == "m1"  # at the damage control phase
    then_violation(R, state, Fire(vessel="alpha", weapon="las", target="m1"), "ASC-FIRE-1", ADV)


def test_ASC_FIRE_10_point_defence_resolves_first() -> None:
    """ASC-FIRE-10: point defence resolves first."""
    m = ship("m1", "disadvantaged", controller="bravo", **MISSILE)
    setup = duel(bravo={"remote_communicators": 1, "hex": [0, -1]}, extra=[m])
    state = fire_phase(
        setup,
        lock("bravo", "alpha"),
        lock("alpha", "m1"),
        lock("alpha", "bravo"),
        damaged(state_of(setup), "m1", hex=state_of(setup).status["alpha"].hex),
    )
    state, _ = run(state, Fire(vessel="m1", weapon="wh", target="alpha"), DIS)
    pd = Fire(vessel="alpha", weapon="las", target="m1", point_defence=True)
    then_violation(R, state, Fire(vessel="alpha", weapon="las", target="bravo", point_defence=True), "ASC-FIRE-10", ADV)
    after, events = resolve(state, pd, dice=[7])
    shots = of(events, ShotResolved)
    assert shots[0].point_defence and shots[0].missile_killed
    assert shots[1].vessel == "m1" and shots[1].outcome == "void"
    assert after.status["alpha"].hull_damage == 0
    # point defence against a missile that attacks someone else is void (ASC-R-15)
    start = state_of(setup)
    quiet = fire_phase(setup, lock("alpha", "m1"), damaged(start, "m1", hex=start.status["alpha"].hex))
    _, events = resolve(quiet, pd)
    assert of(events, ShotResolved)[0].outcome == "void"
    sub = fire_phase(duel(alpha={"launchers": [{"id": "sub"}]}, extra=[m]), lock("alpha", "m1"))
    then_violation(R, sub, Fire(vessel="alpha", weapon="sub", target="m1", point_defence=True), "ASC-FIRE-10", ADV)


def test_ASC_MOV_4_direct_strike_on_all_stop_target() -> None:
    """ASC-MOV-4: direct strike on all stop target."""
    state = fire_phase(duel(), lock("alpha", "bravo"), reveal(("bravo", False, 3)))
    state = R.evolve(state, damaged(state, "bravo", all_stop=True))
    state, events = resolve(state, Fire(vessel="alpha", weapon="las", target="bravo"), dice=[1])  # location only
    shot = of(events, ShotResolved)[0]
    assert shot.outcome == "direct" and shot.strikes[0].damage == 10 and len(shot.rolls) == 1
    sub = fire_phase(duel(alpha={"launchers": [{"id": "sub"}]}), lock("alpha", "bravo"))
    sub = R.evolve(sub, damaged(sub, "alpha", all_stop=True))
    then_violation(R, sub, Fire(vessel="alpha", weapon="sub", target="bravo"), "ASC-MOV-4", ADV)


def test_ASC_SCR_1_screens_block_per_strike_and_drop_at_once() -> None:
    """ASC-SCR-1: screens block per strike and drop at once."""
    alpha = {"turrets": [{"id": "las", "arcs": [5, 0, 1], "damage": "1x2"}, LAS2]}
    state = fire_phase(duel(alpha=alpha), lock("alpha", "bravo"), reveal(("bravo", False, 3)))
    state, _ = run(state, Fire(vessel="alpha", weapon="las", target="bravo"))
    state, events = resolve(state, Fire(vessel="alpha", weapon="las2", target="bravo"), dice=[7, 2, 7, 2, 1])
    first, second = of(events, ShotResolved)
    assert first.strikes[0].blocked and first.screen_after == 1
    assert not second.strikes[0].blocked and second.rolls[1].target == 1
    assert state.status["bravo"].screen == 1 and state.status["bravo"].hull_damage == 1
    red = R.redact(first, ADV, state)
    assert red.screen_after is None and red.rolls[1].target is None  # the rating is the owner's secret
    # a commitment may restore screens up to the generator's current maximum
    nxt = R.evolve(state, phase("sensors", 2))
    nxt = R.evolve(nxt, damaged(nxt, "bravo", screen_max=2))
    then_violation(
        R,
        nxt,
        CommitSensors(side="disadvantaged", vessels=(SensorSetting(vessel="bravo", screen=3),)),
        "ASC-SEQ-2",
        DIS,
    )
    run(nxt, CommitSensors(side="disadvantaged", vessels=(SensorSetting(vessel="bravo", screen=2),)), DIS)


def test_ASC_SCR_2_det_strikes_face_one_rating() -> None:
    """ASC-SCR-2: det strikes face one rating."""
    alpha = {"turrets": [{"id": "x", "arcs": [5, 0, 1], "weapon_type": "det", "damage": "3x1"}]}
    state = fire_phase(duel(alpha=alpha), lock("alpha", "bravo"), reveal(("bravo", False, 2)))
    state, events = resolve(state, Fire(vessel="alpha", weapon="x", target="bravo"), dice=[7, 1, 2, 3, 1])
    shot = of(events, ShotResolved)[0]
    assert [s.blocked for s in shot.strikes] == [True, True, False]
    assert [r.target for r in shot.rolls if r.rule == "ASC-SCR-2"] == [2, 2, 2]
    assert shot.screen_after == 0


def test_ASC_SCR_3_no_screens_without_power_and_max_nine() -> None:
    """ASC-SCR-3: no screens without power and max nine."""
    state = state_of(duel())
    state = R.evolve(state, damaged(state, "alpha", power_plant_damage=2))
    then_violation(
        R, state, CommitSensors(side="advantaged", vessels=(SensorSetting(vessel="alpha", screen=1),)), "ASC-SCR-3", ADV
    )
    with pytest.raises(InvalidScenario):
        R.parse_setup(duel(alpha={"screens": 10}))
