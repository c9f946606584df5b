"""Boundary tests that kill mutation survivors (docs/mutation-testing.md): each names its rule."""

from __future__ import annotations

from service.domain.asc.commands import AllStop, Detect, Fire, ForcePhase, Move
from service.domain.asc.events import ShotResolved
from service.domain.core.hexgrid import Hex
from tests.support.decider import then_violation

from .builders import ADV, R, duel, lock, of, phase, reveal, run, ship, state_of

TWO_PASSIVE = [
    {"id": "pas-a", "type": "passive", "rating": 5},
    {"id": "pas-b", "type": "passive", "rating": 5},
    {"id": "act", "type": "active", "rating": 4},
]


def test_ASC_DET_3_detection_options_name_a_sensor_only_where_two_are_alike() -> None:
    """ASC-DET-3: one attempt per sensor. The option names the sensor by its kind, and by its id only where
    the vessel has two sensors of that kind (two passive: ids shown; one active: not)."""
    state = state_of(duel(alpha={"sensors": TWO_PASSIVE}, bravo={"hex": [0, 3]}), phase("detection"))
    labels = {o.command.sensor: o.label for o in R.options(state, ADV) if isinstance(o.command, Detect)}
    assert set(labels) == {"pas-a", "pas-b"}  # the active sensor was not committed: no active attempt offered
    assert "with its passive sensor pas-a (" in labels["pas-a"]
    assert "with its passive sensor pas-b (" in labels["pas-b"]
    one = state_of(duel(bravo={"hex": [0, 3]}), phase("detection"))
    (only,) = [o.label for o in R.options(one, ADV) if isinstance(o.command, Detect)]
    assert "with its passive sensor (3 hexes away" in only


def test_ASC_SEQ_2_the_commit_form_offers_no_screen_to_a_vessel_without_one() -> None:
    """ASC-SEQ-2 / ASC-SCR-1: the sealed commit offers a screen setting 0..its rating, and nothing to a
    vessel with no screens and no active sensor (screens 0: no field; screens 1: down or 1)."""
    passive_only = [{"id": "pas", "type": "passive", "rating": 5}]
    bare = state_of(duel(alpha={"screens": 0, "sensors": passive_only}))
    (form,) = R.forms(bare, ADV)
    assert [p.piece for p in form.pieces] == []
    one = state_of(duel(alpha={"screens": 1, "sensors": passive_only}))
    (form,) = R.forms(one, ADV)
    (piece,) = form.pieces
    (field,) = piece.fields
    assert field.key == "screen" and [v.value for v in field.values] == [0, 1]


def test_ASC_HID_1_a_failed_scan_of_a_hidden_buoy_reads_as_nothing_found() -> None:
    """ASC-HID-1 with ruling ASC-R-2: the scanning side's failed hex scan of a hidden (never a bogey) buoy
    shows "nothing found" with no signature modifier, exactly like a scan of an empty hex; the umpire sees
    "not detected" and the buoy."""
    buoy = ship("buoy", "disadvantaged", hex=(0, 2), kind="buoy", warp_efficiency=0, turrets=[], passive_signature=3)
    state = state_of(duel(bravo={"hex": [0, 6]}, extra=[buoy]), phase("detection"))
    _, events = run(state, Detect(vessel="alpha", sensor="pas", hex=Hex(0, 2)), ADV, dice=[2])
    (ev,) = events
    assert ev.target == "buoy" and not ev.success and ev.rolls[0].outcome == "not detected"
    mine = R.redact(ev, ADV, state)
    assert mine.target is None and mine.hex == Hex(0, 2)
    (roll,) = mine.rolls
    assert roll.outcome == "nothing found" and all(m.rule != "ASC-DET-4" for m in roll.modifiers)
    _, empty = run(state, Detect(vessel="alpha", sensor="pas", hex=Hex(1, 1)), ADV, dice=[2])
    assert R.redact(empty[0], ADV, state).rolls[0].outcome == roll.outcome


def test_ASC_MOV_4_all_stop_holds_through_the_other_sides_movement_phase() -> None:
    """ASC-MOV-4 (ruling ASC-R-13): All Stop lasts until its own side's next movement phase; the other
    side's movement phase in between (and the fire phase, where it means direct strikes) leaves it on."""
    state = state_of(duel(), phase("advantaged_movement"))
    state, _ = run(state, AllStop(vessel="alpha", facing=3), ADV)
    nxt = R.evolve(state, phase("disadvantaged_movement", 2))
    assert nxt.status["alpha"].all_stop
    assert not R.evolve(nxt, phase("advantaged_movement", 2)).status["alpha"].all_stop


def test_ASC_SCR_1_a_screen_of_one_blocks_a_strike_on_a_one() -> None:
    """ASC-SCR-1: a screen rated 1 still rolls: a d10 of 1 blocks the strike and drops the screen to 0."""
    state = state_of(duel(), lock("alpha", "bravo"), reveal(("bravo", False, 1)), phase("fire"))
    assert state.status["bravo"].screen == 1
    state, events = run(state, Fire(vessel="alpha", weapon="las", target="bravo"))
    state, events = run(state, ForcePhase(), dice=[7, 1])  # to hit 7: hit; screen d10 1: blocked
    (shot,) = of(events, ShotResolved)
    assert shot.outcome == "hit" and [s.blocked for s in shot.strikes] == [True] and shot.screen_after == 0


def test_ASC_MOV_2_a_move_may_turn_to_face_north() -> None:
    """ASC-MOV-2: a move may end by turning to any facing 0..5, north (0) included: three hexsides from
    south at 1 point each (class C) is exactly the MA of 3."""
    state = state_of(duel(alpha={"facing": 3}), phase("advantaged_movement"))
    state, events = run(state, Move(vessel="alpha", facing=0), ADV)
    assert state.status["alpha"].facing == 0 and events[0].path == ("R", "R", "R")
    then_violation(R, state_of(duel(), phase("advantaged_movement")), Move(vessel="alpha", facing=6), "ASC-MOV-2", ADV)
