"""The service's own rulings (docs/rulings-gsc2.md) and the API-facing surface: options, view, explain."""

from __future__ import annotations

import msgspec

from service.domain.core import SPECTATOR, Modifier, Roll
from service.domain.gsc2 import RULESET
from service.domain.gsc2 import commands as C
from service.domain.gsc2.damage import damage_system
from service.domain.gsc2.repairs import repaired
from service.domain.gsc2.values import Sys
from tests.support.decider import then_violation

from .helpers import (
    BLUE,
    RED,
    UMPIRE,
    E,
    R,
    apply,
    at_phase,
    beam,
    given,
    moved,
    of,
    offered,
    scenario,
    ship,
    started,
    when,
)


def test_ruleset_contract_attributes() -> None:
    assert (RULESET.name, RULESET.version) == ("gsc2", "1.0")
    assert RULESET.scenario_package == "service.domain.gsc2.scenarios"
    for t in (*RULESET.command_types, *RULESET.event_types):
        assert t.__struct_config__.tag.startswith("gsc2."), t
        assert t.__struct_config__.tag != t.__name__


def test_commands_decode_from_api_json_and_reject_unknown_fields() -> None:
    union = __import__("typing").Union[tuple(RULESET.command_types)]
    cmd = msgspec.json.decode(
        b'{"type":"gsc2.move","ship":"hood","legs":[{"distance":4},{"turn":45,"distance":2}]}', type=union
    )
    assert cmd == C.Move(ship="hood", legs=(C.Leg(distance=4), C.Leg(turn=45, distance=2)))
    try:
        msgspec.json.decode(b'{"type":"gsc2.fire","ship":"a","battery":"b","target":"c","x":1}', type=union)
    except msgspec.ValidationError:
        pass
    else:
        raise AssertionError("unknown field accepted")


def test_gsc2_r_2_start_begins_turn_one() -> None:
    """GSC2-R-2."""
    raw = scenario(ship("a", "red"), ship("b", "blue", y=10))
    st = given(R, raw)
    assert offered(st, RED) == [C.Start()] and R.clock(st).phase == "movement"
    then_violation(R, st, C.EndPhase(side="red"), "GSC2-SEQ-1", actor=RED)
    evs = when(R, st, C.Start(), RED, [2, 9])
    assert [type(e) for e in evs][:2] == [E.TurnStarted, E.PhaseStarted]
    st = apply(R, st, evs)
    assert R.clock(st).turn == 1 and st.order.side == "blue"
    then_violation(R, st, C.Start(), "GSC2-SEQ-1")


def test_gsc2_r_3_and_r_10_are_covered_by_tractor_and_alternation_tests() -> None:
    """GSC2-R-3, GSC2-R-10."""
    # GSC2-R-3: see test_gsc2_mov_6_*; GSC2-R-10: a side with nothing left lets the other finish
    raw = scenario(ship("a1", "red"), ship("a2", "red", x=5), ship("b1", "blue", y=30))
    st = started(raw, [])
    st = apply(R, st, when(R, st, C.Move(ship="a1"), RED))
    st = apply(R, st, when(R, st, C.Move(ship="b1"), BLUE))
    assert (st.order.stage, st.order.side, st.order.owed) == ("follow", "red", 1)


def test_gsc2_r_5_turning_in_place_is_not_standing_still() -> None:
    """GSC2-R-5."""
    raw = scenario(ship("a", "red", beams=[beam()]), ship("b", "blue", y=10))
    st = at_phase(moved(started(raw, [9, 1]), "b", 0, turns=1), "beams")
    [ev] = when(R, st, C.Fire(ship="a", battery="b1", target="b"), RED, [1])
    assert {m.why: m.value for m in ev.rolls[0].modifiers}['target moved 0" (≤ 4")'] == 1


def test_gsc2_r_5_a_speed_0_ship_makes_one_end_of_move_turn() -> None:
    """GSC2-R-5 with GSC2-MOV-4's ruling: speed 0 is below the turn distance, so one 45° turn at the end of the
    (0") move is allowed and offered; a second turn, or a turn followed by movement, is refused (GSC2-MOV-3)."""
    slow = started(scenario(ship("a", "red", speed=0), ship("b", "blue", y=10)), [9, 1])
    slow = apply(R, slow, when(R, slow, C.ChooseOrder(side="red", leader="red"), RED))
    offered_legs = [o.command.legs for o in R.options(slow, RED) if isinstance(o.command, C.Move)]
    assert (C.Leg(turn=45),) in offered_legs and (C.Leg(turn=-45),) in offered_legs
    then_violation(R, slow, C.Move(ship="a", legs=(C.Leg(turn=45), C.Leg(turn=45))), "GSC2-MOV-3", actor=RED)
    then_violation(R, slow, C.Move(ship="a", legs=(C.Leg(turn=45, distance=1),)), "GSC2-MOV-3", actor=RED)
    ev = when(R, slow, C.Move(ship="a", legs=(C.Leg(turn=45),)), RED)[0]
    assert (ev.turns, ev.paid_turns, ev.distance, ev.heading) == (1, 0, 0, 45)
    turned = apply(R, slow, [ev])
    assert turned.ships["a"].immobilized and turned.ships["a"].heading == 45


def test_gsc2_r_6_and_r_8_internal_defense_and_thrusters_below_zero() -> None:
    """GSC2-R-6, GSC2-R-8."""
    ids, rule = damage_system(Sys(kind="internal_defense", level=1, max=1), 5, 3)
    assert rule == "GSC2-SYS-4" and ids.level == 0
    thr, _ = damage_system(Sys(kind="thrusters", level=0, max=1), 5, 1)
    assert thr.destroyed and not thr.repairable


def test_gsc2_r_7_mds_fire_automatically_after_tracking() -> None:
    """GSC2-R-7."""
    from .test_missiles import missile_state

    rock = {"id": "rock", "kind": "asteroid", "x": 0, "y": 5, "radius": 1}
    st = missile_state(by=10, terrain=[rock], b_kw={"mds": 3})
    st = apply(R, st, when(R, st, C.Launch(ship="a", battery="m1", target="b"), RED))
    [mv, *_] = when(R, st, C.MoveMissiles(salvo="s1"), RED, [6, 1, 1])  # tracking: lost, kept; then MDS
    assert [r.rule for r in mv.rolls] == ["GSC2-MSL-5", "GSC2-MSL-5", "GSC2-MSL-4"]
    assert mv.mds_fired == {"b": 1}  # only one missile left to shoot at
    assert mv.lost_tracking == 1 and mv.intercepted == 1 and mv.removed


def test_gsc2_r_9_no_missiles_no_initiative() -> None:
    """GSC2-R-9."""
    raw = scenario(ship("a", "red"), ship("b", "blue", y=10))
    st = started(raw, [9, 1])
    evs = when(R, st, C.ForcePhase(), UMPIRE, [])
    assert not of(evs, E.RollOff) and of(evs, E.OrderSet)[-1].order.stage == "done"


def test_gsc2_r_11_pod_used_up_and_teleport_miss_stays_home() -> None:
    """GSC2-R-11."""
    from .test_boarding_repairs import _board

    st = _board(contact=False)
    st = apply(R, st, when(R, st, C.LaunchPod(ship="a", squad="assault"), RED))
    assert st.ships["a"].pods == 0 and st.ships["a"].sys["assault_squads"].level == 1
    st = apply(R, st, when(R, st, C.MovePod(pod="p1", ram="b"), RED))
    st = apply(R, st, when(R, st, C.EndPhase(side="red"), RED))
    st = apply(R, st, when(R, st, C.EndPhase(side="blue"), BLUE, [10]))
    assert "p1" in st.pods and st.pods["p1"].pos == st.ships["b"].pos


def test_gsc2_r_12_r_13_r_14_saboteurs_troops_and_repairs() -> None:
    """GSC2-R-12, GSC2-R-13, GSC2-R-14."""
    # GSC2-R-12: see test_gsc2_brd_5_own_casualty_order_and_saboteurs_roll_last
    assert repaired(Sys(kind="drive", level=3, max=7, hits=1), 3).level == 7  # GSC2-R-14
    assert repaired(Sys(kind="thrusters", level=1, max=1, hits=1), 10).hits == 0
    from .test_boarding_repairs import _board

    st = _board(contact=True)
    st = apply(R, st, when(R, st, C.Board(ship="a", target="b", method="contact", assault=2), RED))
    assert not st.ships["a"].sys["assault_squads"].repairable  # GSC2-R-13


def test_gsc2_r_15_victory_only_at_the_end_of_repairs() -> None:
    """GSC2-R-15."""
    raw = scenario(ship("a", "red", beams=[beam(damage=20)]), ship("b", "blue", y=10))
    st = at_phase(started(raw, [9, 1]), "beams")
    st = apply(R, st, when(R, st, C.Fire(ship="a", battery="b1", target="b"), RED, [1]))
    st = apply(R, st, when(R, st, C.ForcePhase(), UMPIRE, [1, 1]))
    assert st.ships["b"].status == "destroyed" and not R.is_over(st) and st.phase == "boarding"


def test_gsc2_r_16_and_r_17_contact_per_leg_and_beams_at_any_range() -> None:
    """GSC2-R-16, GSC2-R-17."""
    raw = scenario(ship("a", "red", beams=[beam()]), ship("b", "blue", x=0, y=4, speed=0))
    st = started(raw, [9, 1])
    st = apply(R, st, when(R, st, C.ChooseOrder(side="red", leader="red"), RED))
    [mv, order] = when(R, st, C.Move(ship="a", legs=(C.Leg(distance=4), C.Leg(distance=4))), RED)
    assert mv.contacts == ("b",)  # touched at the end of the first leg
    [mark] = R.draw(apply(R, st, [mv, order]), RED).markers  # the page marks the contact for boarding
    assert (mark.kind, mark.piece, mark.label) == ("contact", "b", "A is in contact with B")
    far = at_phase(
        started(
            scenario(ship("a", "red", beams=[beam()]), ship("b", "blue", y=60), table={"width": 72, "height": 72}),
            [9, 1],
        ),
        "beams",
    )
    [ev] = when(R, far, C.Fire(ship="a", battery="b1", target="b"), RED, [1])
    assert ev.needed <= 0 and not ev.hit


def test_options_for_fire_and_spectators() -> None:
    raw = scenario(
        ship("a", "red", y=10, beams=[beam(arc="F"), beam(id="b2", arc="A")]),
        ship("b", "blue", y=20),
        ship("c", "blue", y=0),
    )
    st = at_phase(started(raw, []), "beams")
    fires = [o for o in offered(st, RED) if isinstance(o, C.Fire)]
    assert set(fires) == {C.Fire(ship="a", battery="b1", target="b"), C.Fire(ship="a", battery="b2", target="c")}
    assert offered(st, SPECTATOR) == [] and offered(st, UMPIRE) == [C.ForcePhase()]


def test_view_is_json_and_draws_the_table() -> None:
    raw = R.scenarios()["fleet-action"]
    st = started(raw, [9, 1])
    v = R.view(st, SPECTATOR)
    msgspec.json.encode(v)
    assert v["table"] == {"width": 72, "height": 48, "units": "inches"}
    assert len(v["ships"]) == 6 and {"x", "y", "heading", "data_sheet", "systems", "moved"} <= set(v["ships"][0])
    assert len(v["terrain"]) == 4 and v["phase"] == "movement" and v["to_act"] in ("red", "blue")
    assert R.redact(E.SideDone(side="red", phase="movement"), SPECTATOR, st) is not None


def test_every_event_explains_itself_in_one_sentence() -> None:
    from .test_property import play

    state, _ = play(R.scenarios()["fleet-action"], 3, max_turns=3)
    assert state.turn >= 1
    text = R.explain(
        E.BeamFired(
            ship="hood",
            battery="hb1",
            target="bismarck",
            distance=30,
            weapons=3,
            damage=3,
            klass="heavy",
            hit=True,
            needed=6,
            ship_name="Hood",
            battery_name="heavy beam battery",
            target_name="Bismarck",
            rolls=(
                Roll(
                    0,
                    "d10",
                    4,
                    "to-hit",
                    "GSC2-HIT-1",
                    6,
                    (
                        Modifier("GSC2-HIT-1", "target aspect", 2),
                        Modifier("GSC2-HIT-2", "target deflectors level 1", -1),
                    ),
                    "hit",
                ),
            ),
        )
    )
    assert text == (
        "Hood's heavy beam battery (3 weapons) fires at Bismarck, 30\": needs ≤ 6 (base 5, target "
        "aspect +2, target deflectors level 1 −1), rolled 4: hit."
    )


def test_explanations_and_effects_agree_with_the_state_they_describe() -> None:
    """Issue 15: fire and damage sentences, and the drawing's effects, say what the folded state holds."""
    from service.testing.randomplay import play as random_play

    checked = 0
    for seed in range(3):
        game = random_play(R, R.scenarios()["fleet-action"], seed=seed, max_steps=400)
        for step in game.steps:
            state = step.state_before
            for ev in step.events:
                state = R.evolve(state, ev)
                text = R.explain(ev)
                if isinstance(ev, E.BeamFired):
                    roll = ev.rolls[0]
                    assert f"needs ≤ {ev.needed}" in text and f"rolled {roll.value}: {roll.outcome}" in text
                    assert (roll.outcome == "hit") == ev.hit and roll.target == ev.needed
                    checked += 1
                if isinstance(ev, E.DamageApplied):
                    ship = state.ships[ev.target]
                    assert f"hull loses {ev.hull_damage} to {ship.hull}" in text
                    assert ("destroyed" in text) == (ship.status == "destroyed")
                    [fx] = [
                        m
                        for m in state.marks
                        if m.n == state.mark_n - sum(1 for h in ev.hits if h.system) - int(ev.destroyed)
                    ]
                    assert fx.kind == "damage" and fx.amount == ev.hull_damage and fx.target == ev.target
                    checked += 1
    assert checked > 20
