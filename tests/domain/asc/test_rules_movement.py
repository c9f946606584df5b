"""ASC-MOV: allowance, turn costs, stacks, All Stop, bridge/drive/power limits."""

from __future__ import annotations

from service.domain.asc.commands import AllStop, CommitSensors, Move, SensorSetting
from service.domain.asc.events import Moved
from service.domain.asc.scenario import movement_allowance
from tests.support.decider import then_violation

from .builders import ADV, DIS, R, damaged, duel, of, phase, run, ship, state_of


def test_ASC_MOV_1_allowance_is_warp_times_two_rounded_half_up() -> None:
    """ASC-MOV-1: allowance is warp times two rounded half up."""
    setup = R.parse_setup(duel())
    spec = setup.vessels[0]
    from msgspec.structs import replace

    assert [movement_allowance(replace(spec, warp_efficiency=w)) for w in (1.5, 1.25, 1.2, 2.5, 0)] == [3, 3, 2, 5, 0]
    buoy = ship("buoy", "advantaged", hex=(3, 0), kind="buoy", warp_efficiency=0)
    state = state_of(duel(extra=[buoy]), phase("advantaged_movement"))
    then_violation(R, state, Move(vessel="buoy", path=("F",)), "ASC-MOV-1", ADV)
    state, events = run(state, Move(vessel="alpha", path=("F", "F", "F")), ADV)
    assert of(events, Moved)[0].hex.r == -3


def test_ASC_MOV_2_turn_costs_accumulate_and_only_in_own_phase() -> None:
    """ASC-MOV-2: turn costs accumulate and only in own phase."""

    def st(cls: str):
        return state_of(duel(alpha={"manoeuvre": cls}), phase("advantaged_movement"))

    run(st("A"), Move(vessel="alpha", path=("R", "R", "R", "F", "F")), ADV)  # 3 x 1/3 + 2 = 3
    run(st("B"), Move(vessel="alpha", path=("R", "F", "L", "F")), ADV)  # 1/2 + 1 + 1/2 + 1 = 3
    then_violation(R, st("B"), Move(vessel="alpha", path=("R", "R", "R", "F", "F")), "ASC-MOV-2", ADV)
    run(st("D"), Move(vessel="alpha", path=("R", "F")), ADV)
    then_violation(R, st("D"), Move(vessel="alpha", path=("R", "R")), "ASC-MOV-2", ADV)
    then_violation(R, st("E"), Move(vessel="alpha", path=("L", "F")), "ASC-MOV-2", ADV)
    run(st("A+"), Move(vessel="alpha", path=("R", "F", "R", "F", "R", "F")), ADV)
    then_violation(R, st("C"), Move(vessel="alpha", path=("F", "F", "F", "F")), "ASC-MOV-2", ADV)
    wrong = state_of(duel(), phase("disadvantaged_movement"))
    then_violation(R, wrong, Move(vessel="alpha", path=("F",)), "ASC-MOV-2", ADV)
    edge = state_of(duel(alpha={"hex": [0, -10]}), phase("advantaged_movement"))
    then_violation(R, edge, Move(vessel="alpha", path=("F",)), "ASC-MOV-2", ADV)  # off the map (ASC-R-6)


def test_ASC_MOV_3_stacks_move_together_at_the_slowest_and_each_moves_once() -> None:
    """ASC-MOV-3: stacks move together at the slowest and each moves once."""
    fast = ship("fast", "disadvantaged", warp_efficiency=2.5, manoeuvre="A")
    state = state_of(duel(extra=[fast]), phase("disadvantaged_movement"))
    then_violation(R, state, Move(vessel="fast", path=("F",) * 4, stack=("bravo",)), "ASC-MOV-2", DIS)
    then_violation(R, state, Move(vessel="fast", path=("R", "F", "F", "F"), stack=("bravo",)), "ASC-MOV-2", DIS)
    moved, events = run(state, Move(vessel="fast", path=("F", "F", "F"), stack=("bravo",)), DIS)
    assert [e.vessel for e in of(events, Moved)] == ["fast", "bravo"]
    assert moved.status["fast"].hex == moved.status["bravo"].hex
    then_violation(R, moved, Move(vessel="bravo", path=()), "ASC-MOV-3", DIS)
    apart = state_of(duel(extra=[ship("far", "disadvantaged", hex=(2, 0))]), phase("disadvantaged_movement"))
    then_violation(R, apart, Move(vessel="bravo", path=("F",), stack=("far",)), "ASC-MOV-3", DIS)


def test_ASC_MOV_4_all_stop() -> None:
    """ASC-MOV-4: all stop."""
    state = state_of(duel(), phase("advantaged_movement"))
    state = R.evolve(state, damaged(state, "alpha", screen=3))
    stopped, events = run(state, AllStop(vessel="alpha", facing=3), ADV)
    assert stopped.status["alpha"].facing == 3 and stopped.status["alpha"].all_stop
    assert stopped.status["alpha"].screen == 0  # ruling: screens drop at once
    then_violation(R, stopped, Move(vessel="alpha", path=("F",)), "ASC-MOV-4", ADV)  # MA 0
    moved, _ = run(state, Move(vessel="alpha", path=("F",)), ADV)
    then_violation(R, moved, AllStop(vessel="alpha", facing=0), "ASC-MOV-4", ADV)  # declared before moving
    # still at All Stop in the next sensor commit: no screens (and the halved signature, see ASC-DET-4)
    nxt = R.evolve(stopped, phase("sensors", 2))
    cmd = CommitSensors(side="advantaged", vessels=(SensorSetting(vessel="alpha", screen=1),))
    then_violation(R, nxt, cmd, "ASC-MOV-4", ADV)
    # All Stop ends when its side's next movement phase starts (ASC-R-13)
    assert not R.evolve(nxt, phase("advantaged_movement", 2)).status["alpha"].all_stop


def test_ASC_MOV_5_bridge_drive_and_power_limits() -> None:
    """ASC-MOV-5: bridge drive and power limits."""
    state = state_of(duel(), phase("advantaged_movement"))
    no_bridge = R.evolve(state, damaged(state, "alpha", bridge_out=True))
    run(no_bridge, Move(vessel="alpha", path=("F", "F")), ADV)
    then_violation(R, no_bridge, Move(vessel="alpha", path=("R", "F")), "ASC-MOV-5", ADV)
    then_violation(R, no_bridge, AllStop(vessel="alpha", facing=2), "ASC-MOV-5", ADV)
    no_drive = R.evolve(state, damaged(state, "alpha", drive_out=True))
    then_violation(R, no_drive, Move(vessel="alpha", path=("F",)), "ASC-MOV-5", ADV)
    no_power = R.evolve(state, damaged(state, "alpha", power_plant_damage=2))
    then_violation(R, no_power, Move(vessel="alpha", path=("F",)), "ASC-MOV-5", ADV)
    no_computer = R.evolve(state, damaged(state, "alpha", computer_out=True))
    then_violation(R, no_computer, Move(vessel="alpha", path=("F",)), "ASC-DMG-4", ADV)
    _ = DIS
