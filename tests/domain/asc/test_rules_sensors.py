"""ASC-SEQ, ASC-DET and ASC-HID: the turn, sealed commitments, detection, locks, bogeys."""

from __future__ import annotations

import json

import msgspec
import pytest

from service.domain.asc.commands import CommitSensors, Detect, EndPhase, Fire, ForcePhase, LockOn, Move, SensorSetting
from service.domain.asc.condition import passive_signature
from service.domain.asc.damage import apply_strikes
from service.domain.asc.events import (
    DetectionAttempted,
    LocksLost,
    LockTaken,
    PhaseChanged,
    SensorsCommitted,
    SensorsRevealed,
)
from service.domain.asc.state import Strike
from service.domain.core import SPECTATOR, UMPIRE, InvalidScenario, NotYourPiece
from service.domain.core.hexgrid import Hex
from tests.support.decider import then_violation

from .builders import ADV, DIS, R, damaged, duel, lock, of, phase, reveal, run, ship, state_of


def test_ASC_SEQ_1_six_phases_in_order_and_out_of_turn_commands_rejected() -> None:
    """ASC-SEQ-1: six phases in order and out of turn commands rejected."""
    state = state_of(duel(bravo={"hex": [0, 6]}))
    seen = [R.clock(state).phase]
    for _ in range(6):
        state, events = run(state, ForcePhase())
        seen.append(of(events, PhaseChanged)[-1].phase)
    assert seen == [
        "sensors",
        "detection",
        "disadvantaged_movement",
        "advantaged_movement",
        "fire",
        "damage_control",
        "sensors",
    ]
    assert R.clock(state).turn == 2
    mov = state_of(duel(), phase("disadvantaged_movement"))
    then_violation(R, mov, EndPhase(side="advantaged"), "ASC-SEQ-1", ADV)
    then_violation(R, state_of(duel()), Detect(vessel="alpha", sensor="pas", target="bogey-1"), "ASC-SEQ-1", ADV)
    then_violation(R, mov, ForcePhase(), "ASC-SEQ-1", ADV)  # only the umpire forces phases
    # one side ending the detection phase is not enough
    det = state_of(duel(), phase("detection"))
    det, events = run(det, EndPhase(side="advantaged"), ADV)
    assert R.clock(det).phase == "detection"
    then_violation(R, det, EndPhase(side="advantaged"), "ASC-SEQ-1", ADV)
    det, events = run(det, EndPhase(side="disadvantaged"), DIS)
    assert R.clock(det).phase == "disadvantaged_movement"


def test_ASC_SEQ_2_and_ASC_HID_2_commitments_sealed_then_revealed_together() -> None:
    """ASC-SEQ-2, ASC-HID-2: commitments sealed then revealed together."""
    state = state_of(duel(bravo={"hex": [0, 6]}))
    commit_a = CommitSensors(side="advantaged", vessels=(SensorSetting(vessel="alpha", active=True, screen=2),))
    state, events = run(state, commit_a, ADV)
    [sealed] = events
    assert isinstance(sealed, SensorsCommitted) and sealed.entries is not None
    for other in (DIS, SPECTATOR):
        red = R.redact(sealed, other, state)
        assert red is not None and red.entries is None
        text = json.dumps(R.view(state, other)) + R.explain(red)
        assert '"screen": 2' not in text and "active" not in R.explain(red)
    assert R.view(state, DIS)["pending_commitments"] == ["disadvantaged"]
    assert R.view(state, ADV)["my_commitment"][0]["screen"] == 2
    then_violation(R, state, commit_a, "ASC-SEQ-2", ADV)  # a commitment is final
    state, events = run(state, CommitSensors(side="disadvantaged"), DIS)
    reveal_ev = of(events, SensorsRevealed)[0]
    assert of(events, PhaseChanged)[0].phase == "detection"
    shown = R.redact(reveal_ev, DIS, state)
    assert [(e.vessel, e.active, e.screen) for e in shown.entries if e.vessel == "alpha"] == [("alpha", True, None)]
    assert state.status["alpha"].screen == 2 and state.status["alpha"].active
    # rejection paths
    fresh = state_of(duel())
    then_violation(
        R, fresh, CommitSensors(side="advantaged", vessels=(SensorSetting(vessel="alpha", screen=4),)), "ASC-SEQ-2", ADV
    )
    with pytest.raises(NotYourPiece):
        run(fresh, CommitSensors(side="disadvantaged"), ADV)
    no_active = state_of(duel(alpha={"sensors": [{"id": "pas", "type": "passive", "rating": 5}]}))
    active = CommitSensors(side="advantaged", vessels=(SensorSetting(vessel="alpha", active=True),))
    then_violation(R, no_active, active, "ASC-SEQ-2", ADV)


def test_ASC_DET_1_undetected_vessels_are_bogeys_hex_only() -> None:
    """ASC-DET-1: undetected vessels are bogeys hex only."""
    buoy = ship("buoy", "advantaged", hex=(2, 0), kind="buoy", warp_efficiency=0, turrets=[])
    state = state_of(duel(bravo={"hex": [0, 3]}, extra=[buoy]), phase("fire"))
    v = R.view(state, DIS)
    assert v["bogeys"] == [{"bogey": "bogey-1", "hex": [0, 0]}]  # the buoy has no stardrive: not shown
    assert [x["id"] for x in v["vessels"]] == ["bravo"]
    spec = R.view(state, SPECTATOR)
    assert spec["vessels"] == [] and len(spec["bogeys"]) == 2
    err = then_violation(R, state, Fire(vessel="bravo", weapon="las", target="bogey-1"), "ASC-FIRE-2", DIS)
    assert err.detail == "no detected target 'bogey-1'"


def test_ASC_DET_2_active_sensors_are_detected_by_everyone() -> None:
    """ASC-DET-2: active sensors are detected by everyone."""
    state = state_of(duel(bravo={"hex": [0, 4]}), reveal(("alpha", True, 0), ("bravo", False, 0)), phase("detection"))
    assert [x["id"] for x in R.view(state, DIS)["vessels"] if x["side"] == "advantaged"] == ["alpha"]
    assert R.view(state, SPECTATOR)["vessels"][0]["id"] == "alpha"
    state, events = run(state, LockOn(vessel="bravo", target="alpha"), DIS)
    assert state.locks["bravo"][0].target == "alpha"
    then_violation(R, state, LockOn(vessel="alpha", target="bravo"), "ASC-FIRE-2", ADV)  # bravo is quiet


def test_ASC_DET_2_a_radiating_vessel_is_not_rolled_for() -> None:
    """ASC-DET-2: a vessel radiating actively is detected automatically, so a detection attempt on it is
    refused (no roll, no "failed to detect" in the replay) and never offered; a lock is offered instead."""
    state = state_of(duel(bravo={"hex": [0, 3]}), reveal(("alpha", False, 0), ("bravo", True, 0)), phase("detection"))
    err = then_violation(R, state, Detect(vessel="alpha", sensor="pas", target="bravo"), "ASC-DET-2", ADV)
    assert "detected automatically" in err.detail
    offered = [o.command for o in R.options(state, ADV)]
    assert not [c for c in offered if isinstance(c, Detect)]
    assert LockOn(vessel="alpha", target="bravo") in offered
    quiet = state_of(duel(bravo={"hex": [0, 3]}), phase("detection"))  # the same ship, quiet: rolled for
    _, events = run(quiet, Detect(vessel="alpha", sensor="pas", target="bogey-1"), ADV, dice=[2])
    assert not events[0].success and R.explain(events[0]).startswith("alpha failed to detect bravo")


def test_ASC_SEQ_1_a_side_that_ended_the_phase_is_offered_nothing_and_refused() -> None:
    """ASC-SEQ-1: once a side has ended the detection or fire phase it may not lock, detect, fire or repair."""
    state = state_of(duel(bravo={"hex": [0, 3]}), reveal(("alpha", False, 0), ("bravo", True, 0)), phase("detection"))
    assert any(isinstance(o.command, LockOn) for o in R.options(state, ADV))
    state, _ = run(state, EndPhase(side="advantaged"), ADV)
    assert R.options(state, ADV) == [] and R.forms(state, ADV) == []
    err = then_violation(R, state, LockOn(vessel="alpha", target="bravo"), "ASC-SEQ-1", ADV)
    assert err.detail == "the advantaged side has ended the detection phase"
    then_violation(R, state, Detect(vessel="alpha", sensor="pas", target="bogey-1"), "ASC-SEQ-1", ADV)
    fire = state_of(duel(), lock("alpha", "bravo"), phase("fire"))
    fire, _ = run(fire, EndPhase(side="advantaged"), ADV)
    then_violation(R, fire, Fire(vessel="alpha", weapon="las", target="bravo"), "ASC-SEQ-1", ADV)
    then_violation(R, fire, LockOn(vessel="alpha", target="bravo"), "ASC-SEQ-1", ADV)


def test_ASC_DET_3_one_attempt_per_sensor_range_and_roll() -> None:
    """ASC-DET-3: one attempt per sensor range and roll."""
    setup = duel(bravo={"hex": [0, 3]}, alpha={"operators": 1})
    state = state_of(setup, phase("detection"))
    # d10 + skill 0 + passive signature 2 >= 10: a 7 fails, an 8 succeeds
    failed, events = run(state, Detect(vessel="alpha", sensor="pas", target="bogey-1"), ADV, dice=[7])
    [ev] = events
    assert not ev.success and ev.rolls[0].modifiers[1].value == 2 and "bravo" not in failed.locks.get("alpha", ())
    ok, events = run(state, Detect(vessel="alpha", sensor="pas", target="bogey-1"), ADV, dice=[8])
    assert events[0].success and ok.locks["alpha"][0].target == "bravo"
    then_violation(R, failed, Detect(vessel="alpha", sensor="pas", target="bogey-1"), "ASC-DET-3", ADV)
    then_violation(R, failed, Detect(vessel="alpha", sensor="act", target="bogey-1"), "ASC-DET-3", ADV)  # operators
    far = state_of(duel(bravo={"hex": [0, 5]}), phase("detection"))
    err = then_violation(R, far, Detect(vessel="alpha", sensor="pas", target="bogey-1"), "ASC-DET-3", ADV)
    assert "less than 5" in err.detail
    # active sensors only when committed
    then_violation(R, state, Detect(vessel="alpha", sensor="act", target="bogey-1"), "ASC-SEQ-2", ADV)
    # a failed attempt is known only to the searching side, without the target's signature (ASC-R-3)
    assert R.redact(events[0], DIS, ok) is not None
    fail_ev = of(
        run(state, Detect(vessel="alpha", sensor="pas", target="bogey-1"), ADV, dice=[1])[1], DetectionAttempted
    )[0]
    assert R.redact(fail_ev, DIS, failed) is None and R.redact(fail_ev, SPECTATOR, failed) is None
    mine = R.redact(fail_ev, ADV, failed)
    assert mine.target == "bogey-1" and all(m.rule != "ASC-DET-4" for m in mine.rolls[0].modifiers)


def test_ASC_R_2_hex_scan_finds_a_hidden_buoy() -> None:
    """ASC-R-2: hex scan finds a hidden buoy."""
    buoy = ship("buoy", "disadvantaged", hex=(0, 2), kind="buoy", warp_efficiency=0, turrets=[], passive_signature=3)
    state = state_of(duel(bravo={"hex": [0, 6]}, extra=[buoy]), phase("detection"))
    state2, events = run(state, Detect(vessel="alpha", sensor="pas", hex=Hex(0, 2)), ADV, dice=[7])
    assert events[0].success and events[0].target == "buoy"
    empty, events = run(state, Detect(vessel="alpha", sensor="pas", hex=Hex(1, 1)), ADV, dice=[9])
    assert not events[0].success and events[0].rolls[0].outcome == "nothing found"


def test_ASC_DET_4_passive_signature_order() -> None:
    """ASC-DET-4: passive signature order."""
    setup = duel(alpha={"passive_signature": "4(7)", "hull": 20})
    state = state_of(setup)
    spec, st = state.specs["alpha"], state.status["alpha"]
    from msgspec.structs import replace

    assert passive_signature(spec, st) == 4
    assert passive_signature(spec, replace(st, hull_damage=5)) == 8  # unmasked 7, +1
    assert passive_signature(spec, replace(st, hull_damage=10)) == 16  # x2
    assert passive_signature(spec, replace(st, hull_damage=10, all_stop=True)) == 8  # halved
    assert passive_signature(spec, replace(st, all_stop=True, screen=3)) == 5  # 4//2 + screen
    # in a detection roll the current signature (with screens) is the modifier
    det = state_of(
        duel(bravo={"hex": [0, 3], "passive_signature": "1(5)"}), reveal(("bravo", False, 3)), phase("detection")
    )
    _, events = run(det, Detect(vessel="alpha", sensor="pas", target="bogey-1"), ADV, dice=[6])
    assert [m.value for m in events[0].rolls[0].modifiers if m.rule == "ASC-DET-4"] == [4]
    assert events[0].success
    with pytest.raises(InvalidScenario):
        R.parse_setup(duel(alpha={"passive_signature": "4((7)"}))


def test_ASC_DET_5_locks_contact_and_loss() -> None:
    """ASC-DET-5: locks contact and loss."""
    charlie = ship("charlie", "advantaged", hex=(1, 0))
    delta = ship("delta", "advantaged", hex=(-3, 0))
    setup = duel(bravo={"hex": [0, 4], "facing": 3}, extra=[charlie, delta])
    state = state_of(setup, phase("detection"))
    state, events = run(state, Detect(vessel="alpha", sensor="pas", target="bogey-1"), ADV, dice=[9])
    assert R.view(state, ADV)["bogeys"] == [] and "bravo" in json.dumps(R.view(state, ADV))
    assert R.view(state, DIS)["detected_by_enemy"] == ["bravo"]
    state, _ = run(state, LockOn(vessel="charlie", target="bravo"), ADV)  # adjacent to alpha: in contact
    err = then_violation(R, state, LockOn(vessel="delta", target="bravo"), "ASC-DET-5", ADV)
    assert "contact" in err.detail
    then_violation(R, state, LockOn(vessel="alpha", target="bravo"), "ASC-DET-5", ADV)  # already locked
    # the best active sensor (rating 4) sets the lock range: bravo running to 7 hexes breaks both locks
    state = R.evolve(state, phase("disadvantaged_movement"))
    state, events = run(state, Move(vessel="bravo", path=("F", "F", "F")), DIS)
    [lost] = of(events, LocksLost)
    assert {(x.vessel, x.target) for x in lost.losses} == {("alpha", "bravo"), ("charlie", "bravo")}
    assert R.redact(lost, ADV, state).losses[0].target == "bogey-1"  # a bogey again
    assert R.view(state, ADV)["bogeys"] == [{"bogey": "bogey-1", "hex": [0, 7]}]


def test_ASC_DET_5_the_reported_rating_is_the_lock_range_and_the_schema_says_so() -> None:
    """ASC-DET-5 (ruling ASC-R-25): a detection report's ``rating`` is the range the lock is kept to (the
    best active sensor, 4, not the passive sensor that detected, 5); a failure reports no lock range."""
    state = state_of(duel(bravo={"hex": [0, 3]}), phase("detection"))
    ok, events = run(state, Detect(vessel="alpha", sensor="pas", target="bogey-1"), ADV, dice=[8])
    assert events[0].rating == 4 == ok.locks["alpha"][0].rating
    assert "(lock range 4 hexes)" in R.explain(events[0])
    _, events = run(state, Detect(vessel="alpha", sensor="pas", target="bogey-1"), ADV, dice=[7])
    assert events[0].rating == 0 and "lock range" not in R.explain(events[0])
    for event_type in (DetectionAttempted, LockTaken):
        schema = msgspec.json.schema(event_type)
        rating = schema["$defs"][event_type.__name__]["properties"]["rating"]
        assert rating["description"].startswith("The lock range in hexes (ASC-DET-5)")


def test_ASC_R_7_lock_kept_at_exactly_the_rating_and_passive_only_ships_keep_the_detecting_range() -> None:
    """ASC-R-7: lock kept at exactly the rating and passive only ships keep the detecting range."""
    passive_only = {"sensors": [{"id": "pas", "type": "passive", "rating": 5}]}
    state = state_of(duel(alpha=passive_only, bravo={"hex": [0, 4], "facing": 3}), phase("detection"))
    state, events = run(state, Detect(vessel="alpha", sensor="pas", target="bogey-1"), ADV, dice=[9])
    assert events[0].rating == 5
    state = R.evolve(state, phase("disadvantaged_movement"))
    kept, events = run(state, Move(vessel="bravo", path=("F",)), DIS)
    assert not of(events, LocksLost)  # distance 5 = rating
    _, events = run(state, Move(vessel="bravo", path=("F", "F")), DIS)
    assert of(events, LocksLost)


def test_ASC_DET_6_redundant_antenna_keeps_sensor_working() -> None:
    """ASC-DET-6: redundant antenna keeps sensor working."""
    setup = duel(
        bravo={"hex": [0, 3]},
        alpha={"sensors": [{"id": "pas", "type": "passive", "rating": 5, "redundant_antennas": 1}]},
    )
    state = state_of(setup)
    hit = (Strike(damage=1, location="sensor", part="pas"),)
    st1, notes = apply_strikes(state.specs["alpha"], state.status["alpha"], hit)
    assert "antenna" in notes[0] and "pas" not in st1.sensors_lost
    st2, notes = apply_strikes(state.specs["alpha"], st1, hit)
    assert "pas" in st2.sensors_lost
    one = state_of(setup, damaged(state, "alpha", antennas_lost={"pas": 1}), phase("detection"))
    _, events = run(one, Detect(vessel="alpha", sensor="pas", target="bogey-1"), ADV, dice=[9])
    assert events[0].success
    # the antenna gives no extra attempt
    used, _ = run(one, Detect(vessel="alpha", sensor="pas", target="bogey-1"), ADV, dice=[1])
    then_violation(R, used, Detect(vessel="alpha", sensor="pas", target="bogey-1"), "ASC-DET-3", ADV)
    wrecked = state_of(setup, damaged(state, "alpha", sensors_lost=("pas",)), phase("detection"))
    then_violation(R, wrecked, Detect(vessel="alpha", sensor="pas", target="bogey-1"), "ASC-DET-6", ADV)


def test_ASC_HID_1_views_and_errors_reveal_nothing_undetected() -> None:
    """ASC-HID-1: views and errors reveal nothing undetected."""
    state = state_of(duel(bravo={"hex": [0, 3], "name": "Secret Cruiser"}), phase("disadvantaged_movement"))
    for viewer in (ADV, SPECTATOR):
        text = json.dumps(R.view(state, viewer))
        assert "bravo" not in text and "Secret Cruiser" not in text
    assert "bravo" in json.dumps(R.view(state, UMPIRE))
    # commanding an enemy, an undetected or an unknown id: the same 403 and wording
    for probe in ("bravo", "nothing-here"):
        with pytest.raises(NotYourPiece) as info:
            run(state, Move(vessel=probe, path=("F",)), ADV)
        assert info.value.rule == "ASC-HID-1" and info.value.detail == "seat:advantaged cannot act for disadvantaged"
        assert info.value.code == "not-your-piece" and info.value.status == 403
    # a bogey's movement reaches the other side as a bogey moving (hex only)
    state, events = run(state, Move(vessel="bravo", path=("F",)), DIS)
    red = R.redact(events[0], ADV, state)
    assert red.vessel == "bogey-1" and red.facing is None and red.path is None and red.hex.r == 2
    assert "bravo" not in R.explain(red)
    assert R.redact(events[0], UMPIRE, state) == events[0]
    then_violation(R, state, Move(vessel="bravo", path=("F",)), "ASC-MOV-3", UMPIRE)
    _ = lock  # (imported for other tests)


def test_ASC_R_8_the_battle_ends_when_a_side_has_no_starship_or_at_the_turn_limit() -> None:
    """ASC-R-8: after the damage control phase the battle ends if a side has no starship left (the other
    wins), or at the scenario's turn limit, won by the side the scenario names for it (if any)."""
    from service.domain.asc.events import GameEnded, VesselDestroyed

    last = state_of(duel(turn_limit=2), phase("damage_control", turn=2))
    over, events = run(last, ForcePhase())
    assert events[-1] == GameEnded(winner=None, reason="turn limit 2 reached") and over.over
    assert R.draw(over, ADV).status.result == "turn limit 2 reached" and R.options(over, ADV) == []
    held = state_of(
        duel(turn_limit=2, turn_limit_winner="disadvantaged", side_names={"disadvantaged": "Convoy"}),
        phase("damage_control", turn=2),
    )
    _, events = run(held, ForcePhase())
    assert events[-1] == GameEnded(winner="disadvantaged", reason="turn limit 2 reached: the Convoy hold out")
    earlier = state_of(duel(turn_limit=2), phase("damage_control", turn=1))
    _, events = run(earlier, ForcePhase())
    assert not of(events, GameEnded) and events[-1] == PhaseChanged(turn=2, phase="sensors")
    sunk = state_of(duel(), VesselDestroyed(vessel="bravo", cause="test"), phase("damage_control"))
    _, events = run(sunk, ForcePhase())
    assert events[-1] == GameEnded(winner="advantaged", reason="the disadvantaged side has no starship left")
    with pytest.raises(InvalidScenario):
        R.parse_setup(duel(turn_limit_winner="nobody"))
