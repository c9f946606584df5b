"""Missiles (GSC2-MSL)."""

from __future__ import annotations

from service.domain.gsc2 import commands as C
from service.domain.gsc2.values import Order
from tests.support.decider import then_violation

from .helpers import BLUE, RED, UMPIRE, E, R, apply, at_phase, of, scenario, ship, started, when

RACK = {"id": "m1", "missiles": 2, "damage": 2, "carried": 6}


def missile_state(by=20.0, terrain=(), b_kw=None, red_kw=None):
    raw = scenario(
        ship("a", "red", **{"missiles": [RACK], **(red_kw or {})}),
        ship("b", "blue", x=0, y=by, **(b_kw or {})),
        terrain=list(terrain),
    )
    st = started(raw, [9, 1])
    return at_phase(st, "missiles", Order(stage="launch", side="red", leader="red"))


def test_gsc2_msl_1_one_turn_reload() -> None:
    """GSC2-MSL-1."""
    st = missile_state()
    st = apply(R, st, when(R, st, C.Launch(ship="a", battery="m1", target="b"), RED))
    assert st.ships["a"].missiles_left["m1"] == 4
    for turn in (2, 3):
        st = R.evolve(st, E.TurnStarted(turn=turn, shield_pools={}))
        st = at_phase(st, "missiles", Order(stage="launch", side="red", leader="red"))
        cmd = C.Launch(ship="a", battery="m1", target="b")
        if turn == 2:
            err = then_violation(R, st, cmd, "GSC2-MSL-1", actor=RED)
            assert "reloading" in err.detail
        else:
            assert when(R, st, cmd, RED)


def test_gsc2_msl_2_initiative_then_alternate_launches_and_moves() -> None:
    """GSC2-MSL-2."""
    raw = scenario(ship("a", "red", missiles=[RACK]), ship("b", "blue", y=30, missiles=[RACK]))
    st = at_phase(started(raw, [9, 1]), "movement")
    st = apply(R, st, when(R, st, C.ForcePhase(), UMPIRE, [3, 4]))  # missile initiative: blue 4 beats red 3
    assert st.phase == "missiles" and st.order.stage == "choose" and st.order.side == "blue"
    then_violation(R, st, C.ChooseOrder(side="red", leader="red"), "GSC2-MSL-2", actor=RED)
    st = apply(R, st, when(R, st, C.ChooseOrder(side="blue", leader="red"), BLUE))
    then_violation(R, st, C.Launch(ship="b", battery="m1", target="a"), "GSC2-MSL-2", actor=BLUE)
    st = apply(R, st, when(R, st, C.Launch(ship="a", battery="m1", target="b"), RED))
    assert st.order.side == "blue"
    st = apply(R, st, when(R, st, C.Launch(ship="b", battery="m1", target="a"), BLUE))
    assert (st.order.stage, st.order.side) == ("move", "red")  # nothing else can launch
    st = apply(R, st, when(R, st, C.MoveMissiles(salvo="s1"), RED))
    then_violation(R, st, C.MoveMissiles(salvo="s1"), "GSC2-MSL-2", actor=RED)
    evs = when(R, st, C.MoveMissiles(salvo="s2"), BLUE)
    assert of(evs, E.OrderSet)[-1].order.stage == "done"  # 30" apart: nobody arrived, no attack


def test_gsc2_msl_3_twelve_inches_a_turn_straight_at_the_target() -> None:
    """GSC2-MSL-3."""
    st = missile_state(by=20)
    st = apply(R, st, when(R, st, C.Launch(ship="a", battery="m1", target="b"), RED))
    [mv, *_] = when(R, st, C.MoveMissiles(salvo="s1"), RED)
    assert mv.end == E.Point(0, 12) and not mv.arrived
    st = missile_state(by=12)
    st = apply(R, st, when(R, st, C.Launch(ship="a", battery="m1", target="b"), RED))
    evs = when(R, st, C.MoveMissiles(salvo="s1"), RED, [1, 1, 1, 1])
    assert evs[0].arrived and of(evs, E.MissileAttack)
    # a salvo whose target is gone is removed
    st2 = R.evolve(
        st, E.DamageApplied(target="b", hits=(), absorbed=0, hull_damage=10, hull=0, systems={}, destroyed=True)
    )
    [mv, *_] = when(R, st2, C.MoveMissiles(salvo="s1"), RED, [])
    assert mv.removed and "destroyed" in mv.removed


def test_gsc2_msl_3_rejections_no_target_no_salvo_and_one_move_a_turn() -> None:
    """GSC2-MSL-3: a salvo homes on an enemy ship, exists to be moved, and moves once a turn."""
    st = missile_state(by=30, red_kw={"missiles": [RACK, {**RACK, "id": "m2"}]})
    err = then_violation(R, st, C.Launch(ship="a", battery="m1", target="a"), "GSC2-MSL-3", actor=RED)
    assert "no enemy ship 'a'" in err.detail  # not at its own side
    then_violation(R, st, C.Launch(ship="a", battery="m1", target="ghost"), "GSC2-MSL-3", actor=RED)
    st = apply(R, st, when(R, st, C.Launch(ship="a", battery="m1", target="b"), RED))
    st = apply(R, st, when(R, st, C.Launch(ship="a", battery="m2", target="b"), RED))
    assert st.order.stage == "move" and st.order.side == "red"  # blue has nothing to launch or move
    err = then_violation(R, st, C.MoveMissiles(salvo="s9"), "GSC2-MSL-3", actor=RED)
    assert err.detail == "no missiles 's9' in flight"
    st = apply(R, st, when(R, st, C.MoveMissiles(salvo="s1"), RED))
    assert st.order.side == "red" and st.salvos["s1"].moved  # s2 still to move: red again
    err = then_violation(R, st, C.MoveMissiles(salvo="s1"), "GSC2-MSL-3", actor=RED)
    assert err.detail == "s1 has already moved this turn"


def test_gsc2_msl_3_a_salvo_exactly_12_inches_away_is_labelled_as_reaching_its_target() -> None:
    """GSC2-MSL-3: missiles move 12"; a target exactly 12" away is reached (the option says so), 12.5" is not."""
    for by, fate in ((12.0, "reaches it and attacks"), (12.5, "stays in flight")):
        st = missile_state(by=by)
        st = apply(R, st, when(R, st, C.Launch(ship="a", battery="m1", target="b"), RED))
        st = R.evolve(st, E.OrderSet(order=Order(stage="move", side="red", leader="red")))
        [opt] = [o for o in R.options(st, RED) if isinstance(o.command, C.MoveMissiles)]
        assert opt.label.endswith(fate), opt.label


def test_gsc2_msl_4_mds_within_one_inch_needs_a_6_once_per_turn() -> None:
    """GSC2-MSL-4."""
    st = missile_state(by=30, b_kw={"mds": 1})
    st = apply(R, st, when(R, st, C.Launch(ship="a", battery="m1", target="b"), RED))
    raw_bystander = R.evolve(st, E.OrderSet(order=Order(stage="move", side="red", leader="red")))
    # place b's MDS on the path: the target itself 10" away, so the salvo reaches it
    near = R.evolve(
        raw_bystander,
        E.ShipMoved(
            ship="b",
            path=(E.Point(0, 30), E.Point(0.9, 10)),
            heading=0,
            distance=20,
            moved=20,
            turns=0,
            paid_turns=0,
            since_turn=0,
            move_left=0,
            finished=True,
        ),
    )
    [mv, *_] = when(R, near, C.MoveMissiles(salvo="s1"), RED, [6, 1, 1])
    assert mv.mds_fired == {"b": 1} and mv.intercepted == 1 and mv.remaining == 1
    assert mv.rolls[0].rule == "GSC2-MSL-4" and mv.rolls[0].target == 6
    [mv, *_] = when(R, near, C.MoveMissiles(salvo="s1"), RED, [7, 1, 1, 1, 1])
    assert mv.intercepted == 0 and mv.remaining == 2
    used = R.evolve(
        near,
        E.MissilesMoved(
            salvo="zz",
            start=E.Point(0, 0),
            end=E.Point(0, 0),
            remaining=0,
            arrived=False,
            removed="x",
            mds_fired={"b": 1},
        ),
    )
    [mv, *_] = when(R, used, C.MoveMissiles(salvo="s1"), RED, [1, 1, 1, 1])
    assert mv.mds_fired == {}


def test_gsc2_msl_5_tracking_over_asteroids_and_dust() -> None:
    """GSC2-MSL-5."""
    rock = {"id": "dust", "kind": "dust", "x": 0, "y": 6, "radius": 2}
    st = missile_state(by=30, terrain=[rock])
    st = apply(R, st, when(R, st, C.Launch(ship="a", battery="m1", target="b"), RED))
    [mv, *_] = when(R, st, C.MoveMissiles(salvo="s1"), RED, [5, 6])
    assert [r.outcome for r in mv.rolls] == ["tracking", "lost"] and mv.remaining == 1
    assert mv.rolls[0].rule == "GSC2-MSL-5" and mv.terrain == ("dust",)
    [mv, *_] = when(R, st, C.MoveMissiles(salvo="s1"), RED, [9, 9])
    assert mv.removed  # every missile lost: the salvo is removed


def test_gsc2_msl_6_targeting_4_no_range_simultaneous_damage() -> None:
    """GSC2-MSL-6."""
    st = missile_state(by=10, b_kw={"aspect": 1})
    st = apply(R, st, when(R, st, C.Launch(ship="a", battery="m1", target="b"), RED))
    evs = when(R, st, C.MoveMissiles(salvo="s1"), RED, [7, 8, 1])  # two attacks, one armor save (made)
    [atk] = of(evs, E.MissileAttack)
    r = atk.rolls[0]
    assert r.rule == "GSC2-MSL-6" and r.target == 4 + 1 + 2 and atk.hits == 1
    assert all(m.rule != "GSC2-BEAM-4" for m in r.modifiers)
    [dmg] = of(evs, E.DamageApplied)
    assert evs.index(dmg) > evs.index(atk) and dmg.hull_damage == 2


def test_gsc2_msl_4_each_ship_s_mds_kills_only_its_own_missiles() -> None:
    """GSC2-MSL-4, GSC2-R-7: two defenders on the path each take down what they hit, no more: four missiles,
    the first ship's two MDS kill one (three fly on), the second ship's two kill two (one reaches the target)."""
    raw = scenario(
        ship("a", "red", missiles=[{"id": "m1", "missiles": 4, "damage": 2, "carried": 8}]),
        ship("b", "blue", x=0, y=10, mds=2),
        ship("c", "blue", x=0.5, y=5, mds=2),
    )
    st = at_phase(started(raw, []), "missiles", Order(stage="launch", side="red", leader="red"))
    st = apply(R, st, when(R, st, C.Launch(ship="a", battery="m1", target="b"), RED))
    st = R.evolve(st, E.OrderSet(order=Order(stage="move", side="red", leader="red")))
    # c is nearer the launch point: its two MDS roll first (6 kills, 7 misses), then b's (6, 6: two kills);
    # the one missile left attacks b (a 10 misses)
    [mv, *_] = when(R, st, C.MoveMissiles(salvo="s1"), RED, [6, 7, 6, 6, 10])
    assert mv.mds_fired == {"c": 2, "b": 2}
    assert mv.intercepted == 3 and mv.remaining == 1
