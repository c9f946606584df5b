"""ASC-CRAFT-1..2 and rulings ASC-R-28..34: small craft launched from a hangar as vessels of their own,
controlled, recovered, and never shown to an enemy who has not seen them. Outcomes worked by hand.

The carrier ``alpha`` (advantaged, hex 0,0 facing N, two hangars, three small craft, a remote
communicator; sensors pas 5 and act 4, so its control range is 5) carries the fighters ``f1``, ``f2``
(warp efficiency 3.0: MA 6) and the drone ``d1`` (controlled from alpha). ``bravo`` waits at 0,6.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from service.domain.asc.commands import ForcePhase, Launch, LockOn, Move, Recover
from service.domain.asc.condition import control_range, controls, in_contact
from service.domain.asc.events import (
    GameEnded,
    Launched,
    LocksLost,
    Recovered,
    VesselDestroyed,
)
from service.domain.asc.smallcraft import grounded
from service.domain.core import SPECTATOR, InvalidScenario, NotYourPiece, WrongPhase
from service.domain.core.hexgrid import Hex
from tests.support.decider import then_violation

from .builders import ADV, DIS, R, damaged, duel, lock, of, phase, run, ship, state_of

CARRIER = {"hangars": 2, "small_craft": 3, "remote_communicators": 1, "carrier": True}


def craft(vid: str, **kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"warp_efficiency": 3.0, "manoeuvre": "A", "carried_by": "alpha", "hull": 2}
    return ship(vid, "advantaged", **{**base, **kw})


def carrier(alpha: dict[str, Any] | None = None, bravo: dict[str, Any] | None = None) -> dict[str, Any]:
    drone = craft("d1", kind="drone", warp_efficiency=2.0, controller="alpha", turrets=[])
    return duel(
        alpha={**CARRIER, **(alpha or {})},
        bravo={"hex": [0, 6], **(bravo or {})},
        extra=[craft("f1"), craft("f2"), drone],
    )


ORIGIN = Hex(0, 0)


def out(vid: str, where: Hex = ORIGIN, facing: int = 0) -> Launched:
    """A craft already launched (to put it somewhere on the map)."""
    return Launched(vessel="alpha", craft=vid, hex=where, facing=facing)


def test_ASC_CRAFT_1_a_fighter_launches_into_its_carriers_hex_and_flies_its_own_allowance() -> None:
    """ASC-CRAFT-1: aboard, a craft takes no part; launched in its side's movement phase it appears in the
    carrier's hex with the carrier's facing, then moves its own MA (3.0 x 2 = 6) like any starship."""
    state = state_of(carrier(alpha={"hex": [1, 0], "facing": 2}), phase("advantaged_movement"))
    assert state.status["f1"].aboard == "alpha" and state.status["f1"].hex == Hex(1, 0)
    assert "f1" not in [o.command.vessel for o in R.options(state, ADV) if isinstance(o.command, Move)]
    then_violation(R, state, Move(vessel="f1", path=("F",)), "ASC-CRAFT-1", ADV)  # aboard: launch it first
    launches = [o.command for o in R.options(state, ADV) if isinstance(o.command, Launch)]
    assert launches == [Launch(vessel="alpha", craft=c) for c in ("d1", "f1", "f2")]
    state, events = run(state, Launch(vessel="alpha", craft="f1"), ADV)
    assert events == [Launched(vessel="alpha", craft="f1", hex=Hex(1, 0), facing=2)]
    assert state.status["f1"].aboard is None and state.status["f1"].facing == 2
    then_violation(R, state, Move(vessel="f1", path=("F",) * 7), "ASC-MOV-2", ADV)  # 7 > MA 6
    moved, _ = run(state, Move(vessel="f1", path=("F",) * 6), ADV)
    assert moved.status["f1"].hex == Hex(7, 0)  # six hexes south-east of 1,0
    assert "launched from alpha's hangar into hex 1,0 facing SE" in R.explain(events[0])
    # rejections
    then_violation(R, state, Launch(vessel="alpha", craft="f1"), "ASC-CRAFT-1", ADV)  # not aboard any more
    err = then_violation(R, state_of(carrier(), phase("fire")), Launch(vessel="alpha", craft="f1"), "ASC-CRAFT-1", ADV)
    assert isinstance(err, WrongPhase)
    other = state_of(carrier(), phase("disadvantaged_movement"))
    err = then_violation(R, other, Launch(vessel="alpha", craft="f1"), "ASC-CRAFT-1", ADV)
    assert not isinstance(err, WrongPhase) and "own movement phase" in err.detail
    hit = state_of(carrier(), phase("advantaged_movement"))
    hit = R.evolve(hit, damaged(hit, "alpha", hangars_out=2))
    then_violation(R, hit, Launch(vessel="alpha", craft="f1"), "ASC-DMG-4", ADV)  # no launches until repaired
    assert not [o for o in R.options(hit, ADV) if isinstance(o.command, Launch)]


def test_ASC_R_28_one_launch_or_recovery_per_working_hangar_per_movement_phase() -> None:
    """Ruling ASC-R-28: two working hangars, two launches this phase; a third waits for the next movement
    phase. With one hangar hit (one of two working), one."""
    state = state_of(carrier(), phase("advantaged_movement"))
    state, _ = run(state, Launch(vessel="alpha", craft="f1"), ADV)
    state, _ = run(state, Launch(vessel="alpha", craft="f2"), ADV)
    then_violation(R, state, Launch(vessel="alpha", craft="d1"), "ASC-R-28", ADV)
    assert not [o for o in R.options(state, ADV) if isinstance(o.command, Launch)]
    then_violation(R, state, Recover(vessel="f1"), "ASC-R-28", ADV)  # recoveries share the hangars
    later = R.evolve(state, phase("advantaged_movement", turn=2))
    later, _ = run(later, Launch(vessel="alpha", craft="d1"), ADV)
    assert later.hangar_uses == ("alpha",)
    one = state_of(carrier(), phase("advantaged_movement"))
    one = R.evolve(one, damaged(one, "alpha", hangars_out=1))
    one, _ = run(one, Launch(vessel="alpha", craft="f1"), ADV)
    then_violation(R, one, Launch(vessel="alpha", craft="f2"), "ASC-R-28", ADV)


def test_ASC_R_31_a_hangar_hit_grounds_the_craft_aboard_last_in_id_order() -> None:
    """Ruling ASC-R-31 (ASC-DMG-4, one small craft unflyable per hangar hit): small craft 3 on the sheet, 2
    now: of d1, f1, f2 aboard the last, f2, is grounded; d1 and f1 fly."""
    state = state_of(carrier(), phase("advantaged_movement"))
    state = R.evolve(state, damaged(state, "alpha", small_craft=2))
    assert grounded(state, "alpha") == ["f2"]
    then_violation(R, state, Launch(vessel="alpha", craft="f2"), "ASC-R-31", ADV)
    state, _ = run(state, Launch(vessel="alpha", craft="d1"), ADV)
    assert grounded(state, "alpha") == ["f2"]
    state, _ = run(state, Launch(vessel="alpha", craft="f1"), ADV)
    none_hit = state_of(carrier())
    assert grounded(none_hit, "alpha") == []


def test_ASC_CRAFT_2_and_ASC_R_29_a_drone_moves_only_under_control_within_range() -> None:
    """ASC-CRAFT-2 with ruling ASC-R-29: a drone is controlled from its carrier through a working remote
    communicator, computer and TAC, within the carrier's best working sensor rating (5). At 5 hexes it
    turns; at 6 it is out of control and may not move (staying put is no move); with the passive sensor
    lost (range 4) or the communicator gone, 5 hexes is out of control too."""
    near = state_of(carrier(), out("d1", Hex(0, -5)), phase("advantaged_movement"))
    assert control_range(near.specs["alpha"], near.status["alpha"]) == 5 and controls(near, "alpha", "d1")
    run(near, Move(vessel="d1", path=("R",)), ADV)
    far = state_of(carrier(), out("d1", Hex(0, -6)), phase("advantaged_movement"))
    assert not controls(far, "alpha", "d1")
    err = then_violation(R, far, Move(vessel="d1", path=("R",)), "ASC-CRAFT-2", ADV)
    assert "not under control" in err.detail
    run(far, Move(vessel="d1"), ADV)  # staying in its hex is no move
    for cut in ({"sensors_lost": ("pas",)}, {"remote_comms_lost": 1}, {"computer_out": True}, {"tac_out": True}):
        state = R.evolve(near, damaged(near, "alpha", **cut))
        assert not controls(state, "alpha", "d1"), cut
        then_violation(R, state, Move(vessel="d1", path=("R",)), "ASC-CRAFT-2", ADV)
    # aboard, a drone is controlled by no one (and cannot act at all)
    assert not controls(state_of(carrier()), "alpha", "d1")


def test_ASC_R_30_a_craft_in_its_carriers_hex_goes_back_aboard() -> None:
    """Ruling ASC-R-30: in its side's movement phase a craft in its carrier's hex is recovered: it goes
    aboard (one hangar use), leaves the map, and every lock on it or held by it is lost."""
    state = state_of(
        carrier(bravo={"hex": [0, 1]}),
        out("f1"),
        lock("bravo", "f1"),
        lock("f1", "bravo"),
        phase("advantaged_movement"),
    )
    assert [o.command for o in R.options(state, ADV) if isinstance(o.command, Recover)] == [Recover(vessel="f1")]
    after, events = run(state, Recover(vessel="f1"), ADV)
    assert events[0] == Recovered(vessel="alpha", craft="f1")
    # bravo had detected f1, but aboard its identity is a secret again: bravo sees its launch token go aboard
    assert R.redact(events[0], DIS, after) == Recovered(vessel="bogey-1", craft="bogey-2")
    (lost,) = of(events, LocksLost)
    assert {(x.vessel, x.target) for x in lost.losses} == {("bravo", "f1"), ("f1", "bravo")}
    assert after.status["f1"].aboard == "alpha" and "f1" in after.moved and after.hangar_uses == ("alpha",)
    assert R.explain(events[0]) == "f1 went back aboard alpha (ASC-R-30)."
    # rejections
    away = state_of(carrier(), out("f1", Hex(0, -1)), phase("advantaged_movement"))
    then_violation(R, away, Recover(vessel="f1"), "ASC-R-30", ADV)  # one hex away
    then_violation(R, away, Recover(vessel="alpha"), "ASC-R-30", ADV)  # not a small craft
    err = then_violation(R, state_of(carrier(), out("f1"), phase("fire")), Recover(vessel="f1"), "ASC-R-30", ADV)
    assert isinstance(err, WrongPhase)
    hit = R.evolve(state, damaged(state, "alpha", hangars_out=2))
    then_violation(R, hit, Recover(vessel="f1"), "ASC-DMG-4", ADV)
    drone = state_of(carrier(), out("d1"), phase("advantaged_movement"))
    cut = R.evolve(drone, damaged(drone, "alpha", remote_comms_lost=1))
    then_violation(R, cut, Recover(vessel="d1"), "ASC-CRAFT-2", ADV)
    run(drone, Recover(vessel="d1"), ADV)


def test_ASC_R_32_craft_aboard_die_with_their_carrier_and_fighters_do_not_hold_the_field() -> None:
    """Ruling ASC-R-32: alpha (hull 20, 19 damage, one continuing-damage source) collapses at the end of the
    damage control phase; d1 and f2 aboard are lost with it, seen only by their own side; f1, launched,
    survives, but a side with only small craft left has no starship: the disadvantaged side wins."""
    state = state_of(carrier(), out("f1", Hex(0, -2)), phase("damage_control"))
    state = R.evolve(state, damaged(state, "alpha", hull_damage=19, continuing=(1,)))
    state, events = run(state, ForcePhase())
    destroyed = of(events, VesselDestroyed)
    assert [(e.vessel, e.cause) for e in destroyed] == [
        ("alpha", "continuing damage"),
        ("d1", "lost aboard alpha"),
        ("f2", "lost aboard alpha"),
    ]
    assert destroyed[1].seen_by == ("advantaged",)
    assert R.redact(destroyed[1], DIS, state) is None and R.redact(destroyed[1], SPECTATOR, state) is None
    assert of(events, GameEnded) == [
        GameEnded(winner="disadvantaged", reason="the advantaged side has no starship left")
    ]
    assert not state.status["f1"].destroyed


def test_ASC_R_33_an_unseen_launch_is_a_new_bogey_and_a_recovered_craft_vanishes() -> None:
    """Ruling ASC-R-33 (ASC-HID-1): craft aboard are shown to no enemy. An unseen launch reaches the enemy
    as a new bogey (its next token number: bogey-2 after the carrier's bogey-1) in the carrier's hex, no
    facing; a recovery as that bogey going aboard the carrier's bogey; a relaunch gets a fresh token."""
    state = state_of(carrier(), phase("advantaged_movement"))
    for viewer in (DIS, SPECTATOR):
        text = json.dumps(R.view(state, viewer)) + json.dumps(str(R.draw(state, viewer)))
        assert not any(x in text for x in ('"f1"', '"f2"', '"d1"', "The F1", "The F2", "The D1"))
    assert [b["bogey"] for b in R.view(state, DIS)["bogeys"]] == ["bogey-1"]
    state, events = run(state, Launch(vessel="alpha", craft="f1"), ADV)
    seen = R.redact(events[0], DIS, state)
    assert seen == Launched(vessel="bogey-1", craft="bogey-2", hex=Hex(0, 0), facing=None)
    assert R.redact(events[0], SPECTATOR, state) == Launched(vessel="bogey-1", craft="bogey-3", hex=Hex(0, 0))
    assert R.explain(seen) == "bogey-2 launched from bogey-1's hangar into hex 0,0 (ASC-CRAFT-1)."
    assert [b["bogey"] for b in R.view(state, DIS)["bogeys"]] == ["bogey-1", "bogey-2"]
    state, events = run(state, Recover(vessel="f1"), ADV)
    assert R.redact(events[0], DIS, state) == Recovered(vessel="bogey-1", craft="bogey-2")
    assert [b["bogey"] for b in R.view(state, DIS)["bogeys"]] == ["bogey-1"]
    again = R.evolve(state, phase("advantaged_movement", turn=2))
    again, events = run(again, Launch(vessel="alpha", craft="f1"), ADV)
    assert R.redact(events[0], DIS, again).craft == "bogey-3"
    # the owner sees its craft aboard in its view, none drawn on the map
    mine = {v["id"]: v for v in R.view(state, ADV)["vessels"]}
    assert mine["f2"]["status"]["aboard"] == "alpha" and "aboard" not in mine["alpha"]["status"]
    assert "f2" not in {p.id for p in R.draw(state, ADV).pieces}
    assert "3 small craft aboard" in next(p.detail for p in R.draw(state, ADV).pieces if p.id == "alpha")


def test_ASC_HID_1_an_enemy_craft_aboard_is_refused_like_an_unknown_id() -> None:
    """ASC-HID-1: the disadvantaged seat naming the advantaged carrier's craft, aboard or not, gets the same
    refusal as for an id that names nothing."""
    state = state_of(carrier(), phase("disadvantaged_movement"))
    refusals = []
    for cmd in (
        Move(vessel="f2", path=("F",)),
        Move(vessel="zz", path=("F",)),
        Recover(vessel="f2"),
        Recover(vessel="zz"),
        Launch(vessel="alpha", craft="f1"),
        Launch(vessel="zz", craft="f1"),
    ):
        with pytest.raises(NotYourPiece) as info:
            R.decide(state, cmd, DIS, None)  # type: ignore[arg-type]
        refusals.append((info.value.rule, info.value.status, info.value.detail))
    assert len(set(refusals)) == 1
    # naming another side's craft as the one to launch: the same 403 as a craft that does not exist
    both = duel(alpha=CARRIER, bravo={**CARRIER, "hex": [0, 6]}, extra=[craft("f1")])
    mine = state_of(both, phase("disadvantaged_movement"))
    details = []
    for probe in ("f1", "zz"):
        with pytest.raises(NotYourPiece) as info:
            R.decide(mine, Launch(vessel="bravo", craft=probe), DIS, None)  # type: ignore[arg-type]
        details.append(info.value.detail.replace(probe, "?"))
    assert details[0] == details[1]


def test_ASC_R_34_a_fighter_keeps_contact_with_its_carrier_through_flight_control() -> None:
    """Ruling ASC-R-34 (ASC-DET-5's contact): f1 two hexes from alpha (beyond adjacency) is in contact through
    the carrier's flight control within range 5, so it may lock on bravo, which alpha detected; with the
    fighter-control compartment (or the TAC) destroyed it is not."""
    state = state_of(carrier(bravo={"hex": [0, 3]}), out("f1", Hex(0, 2)), lock("alpha", "bravo"), phase("detection"))
    assert in_contact(state, "f1", "alpha")
    _, events = run(state, LockOn(vessel="f1", target="bravo"), ADV)
    assert events[0].vessel == "f1" and events[0].target == "bravo"
    for cut in ({"fighter_control_out": True}, {"tac_out": True}):
        cut_off = R.evolve(state, damaged(state, "alpha", **cut))
        assert not in_contact(cut_off, "f1", "alpha")
        then_violation(R, cut_off, LockOn(vessel="f1", target="bravo"), "ASC-DET-5", ADV)
    far = state_of(carrier(bravo={"hex": [0, 7]}), out("f1", Hex(0, 6)), lock("alpha", "bravo"), phase("detection"))
    assert not in_contact(far, "f1", "alpha")  # 6 hexes: beyond the control range of 5


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"f1": {"carried_by": "nobody"}}, "vessels[2].carried_by"),
        ({"f1": {"carried_by": "bravo"}}, "vessels[2].carried_by"),
        ({"alpha": {"hangars": 0}}, "vessels[2].carried_by"),
        ({"alpha": {"small_craft": 2}}, "vessels[4].carried_by"),
        ({"d1": {"controller": None}}, "vessels[4].controller"),
        ({"f1": {"warp_efficiency": 0}}, "vessels[2].carried_by"),
    ],
)
def test_ASC_CRAFT_1_scenario_checks_name_the_field(change: dict[str, dict[str, Any]], path: str) -> None:
    """ASC-CRAFT-1: small craft start aboard a carrier of their side that has a hangar and room for them;
    they are fighters or drones with a stardrive, a carried drone controlled from its carrier."""
    raw = carrier()
    for v in raw["vessels"]:
        v.update(change.get(v["id"], {}))
    with pytest.raises(InvalidScenario) as info:
        R.parse_setup(raw)
    assert info.value.path == path
