"""GSC2-R-18: a ship sailing off the table leaves play there (and counts as lost for victory)."""

from __future__ import annotations

import pytest

from service.domain.core import InvalidScenario
from service.domain.gsc2 import commands as C
from service.domain.gsc2.values import Order
from tests.support.decider import then_violation

from .helpers import BLUE, RED, E, R, apply, at_phase, scenario, ship, started, when


def _edge(y: float = 195.0, heading: float = 0.0, **kw) -> object:
    """The issue's case: a 200" table, a ship at y 195 heading up the table at 12"."""
    raw = scenario(
        ship("a", "red", x=10, y=y, heading=heading, speed=12, **kw),
        ship("b", "blue", x=100, y=100),
        table={"width": 200, "height": 200},
    )
    st = started(raw, [9, 1])  # red wins the roll-off
    return apply(R, st, when(R, st, C.ChooseOrder(side="red", leader="red"), RED))


def test_gsc2_r_18_a_move_crossing_the_edge_ends_there_and_the_ship_leaves_play() -> None:
    """GSC2-R-18."""
    st = _edge()
    [mv, order] = when(R, st, C.Move(ship="a", legs=(C.Leg(distance=12),)), RED)
    assert mv.left_table and mv.finished and mv.path[-1] == E.Point(10, 200) and mv.distance == 5
    after = apply(R, st, [mv, order])
    assert after.ships["a"].status == "left" and not after.ships["a"].active and after.active("red") == []
    assert "leaves play (GSC2-R-18)" in R.explain(mv)
    [fx] = R.draw(after, BLUE).effects
    assert (fx.kind, fx.target, fx.rule) == ("left", "a", "GSC2-R-18")
    assert next(p for p in R.draw(after, BLUE).pieces if p.id == "a").status == "left"
    then_violation(R, after, C.Move(ship="a"), "GSC2-MOV-3", actor=RED)  # gone: it commands nothing


def test_gsc2_r_18_a_move_ending_on_the_edge_stays_and_later_legs_are_lost() -> None:
    """GSC2-R-18."""
    st = _edge()
    [mv, _] = when(R, st, C.Move(ship="a", legs=(C.Leg(distance=5),)), RED)
    assert not mv.left_table and mv.path[-1] == E.Point(10, 200)
    # diagonally out of the right edge: a 45° turn after 4" (the free turn), then the rest is cut at x = 200
    st = _edge(y=100, heading=90)
    st = R.evolve(st, E.OrderSet(order=Order(stage="lead", side="red", leader="red")))
    st = R.evolve(
        st,
        E.ShipMoved(
            ship="a",
            path=(E.Point(10, 100), E.Point(195, 100)),
            heading=90,
            distance=0,
            moved=0,
            turns=0,
            paid_turns=0,
            since_turn=0,
            move_left=12,
            finished=False,
        ),
    )
    [mv, _] = when(R, st, C.Move(ship="a", legs=(C.Leg(distance=4), C.Leg(turn=-45, distance=8))), RED)
    assert mv.left_table and mv.path[-1].x == 200 and len(mv.path) == 3  # the second leg was cut short
    assert mv.distance == pytest.approx(4 + 2**0.5)  # 1" of x at 45° is √2" along the heading


def test_gsc2_r_18_a_paused_move_that_leaves_is_finished() -> None:
    """GSC2-R-18 with GSC2-MOV-6's pause: nothing is left to resume."""
    st = _edge()
    [mv, order] = when(R, st, C.Move(ship="a", legs=(C.Leg(distance=12),), done=False), RED)
    assert mv.left_table and mv.finished and mv.move_left == 0
    after = apply(R, st, [mv, order])
    assert after.moving is None and isinstance(order, E.OrderSet) and order.order.side == "blue"


def test_gsc2_r_18_a_side_whose_last_ship_left_loses_at_the_end_of_the_turn() -> None:
    """GSC2-R-18 with GSC2-WIN-1: a ship gone off the table no longer remains."""
    st = _edge()
    st = apply(R, st, when(R, st, C.Move(ship="a", legs=(C.Leg(distance=12),)), RED))
    st = at_phase(st, "repairs")
    st = apply(R, st, when(R, st, C.EndPhase(side="red"), RED))
    [over] = when(R, st, C.EndPhase(side="blue"), BLUE)[-1:]
    assert isinstance(over, E.GameOver) and over.winner == "blue" and over.hull == {"red": 0, "blue": 10}


def test_gsc2_r_18_gone_ships_add_no_hull_at_the_turn_limit_and_salvos_at_them_are_removed() -> None:
    """GSC2-R-18, GSC2-WIN-1 (turn limit), GSC2-MSL-3."""
    raw = scenario(
        ship("a", "red", x=10, y=46, hull=20),
        ship("a2", "red", x=30, y=10, hull=2),
        ship("b", "blue", x=10, y=30, hull=5, missiles=[{"id": "m1", "missiles": 1, "damage": 1, "carried": 2}]),
        turn_limit=1,
    )
    st = started(raw, [])  # 2 against 1: blue moves last, no roll-off
    st = at_phase(st, "missiles", Order(stage="launch", side="blue", leader="blue"))
    st = apply(R, st, when(R, st, C.Launch(ship="b", battery="m1", target="a"), BLUE))
    [plan] = R.draw(st, RED).tracks  # the page dashes the salvo's line to its target
    assert (plan.kind, plan.piece, plan.label) == ("plan", "s1", 'salvo s1 homing on A, 16" away')
    st = R.evolve(
        st,
        E.ShipMoved(
            ship="a",
            path=(E.Point(10, 46), E.Point(10, 48)),
            heading=0,
            distance=2,
            moved=2,
            turns=0,
            paid_turns=0,
            since_turn=2,
            move_left=0,
            finished=True,
            left_table=True,
        ),
    )
    [mv, *_] = when(R, st, C.MoveMissiles(salvo="s1"), BLUE)
    assert mv.removed == "target a has left the table" and not mv.rolls
    st = at_phase(st, "repairs")
    st = apply(R, st, when(R, st, C.EndPhase(side="red"), RED))
    [over] = when(R, st, C.EndPhase(side="blue"), BLUE)[-1:]
    assert over.winner == "blue" and over.hull == {"red": 2, "blue": 5}  # a's 20 hull left with it


def test_gsc2_r_18_the_page_sees_the_edge_and_canned_moves_say_they_leave() -> None:
    """GSC2-R-18 in the move limits (the page's ruler) and the option labels."""
    st = _edge()
    [form] = R.forms(st, RED)
    limits = form.pieces[0].fields[0].limits
    assert limits["edge_ahead"] == 5 and limits["table"] == {"width": 200, "height": 200}
    assert limits["off_table"].startswith("GSC2-R-18")
    full = next(o for o in R.options(st, RED) if o.command == C.Move(ship="a", legs=(C.Leg(distance=12),)))
    assert full.label == 'A: 12" ahead — leaves the table'


def test_gsc2_r_18_ships_start_on_the_table_and_pods_stay_over_it() -> None:
    """GSC2-R-18."""
    with pytest.raises(InvalidScenario) as info:
        R.parse_setup(scenario(ship("a", "red", x=80), ship("b", "blue")))
    assert info.value.path == "ships[0].x"
    with pytest.raises(InvalidScenario) as info:
        R.parse_setup(scenario(ship("s1", "red"), ship("b", "blue")))
    assert info.value.path == "ships[0].id"  # would clash with the first salvo's id on the table
    raw = scenario(ship("a", "red", x=2, y=2, assault_pods=1, assault_squads=1), ship("b", "blue", x=2, y=20))
    st = at_phase(started(raw, [9, 1]), "boarding")
    st = apply(R, st, when(R, st, C.LaunchPod(ship="a"), RED))
    then_violation(R, st, C.MovePod(pod="p1", x=-2, y=2), "GSC2-R-18", actor=RED)
    [ev] = when(R, st, C.MovePod(pod="p1", x=0, y=2), RED)
    assert ev.pos == E.Point(0, 2)
