"""GSC2-R-20: an open table (linked campaign battles): no edge, and a ship leaves only by disengaging."""

from __future__ import annotations

from service.domain.core import InvalidScenario
from service.domain.gsc2 import commands as C
from service.domain.gsc2.movement import move_limits
from tests.support.decider import then_violation

from .helpers import BLUE, RED, E, R, apply, place, scenario, ship, started, when


def _open(red_speed: int = 8, blue_speed: int = 8, edge: bool = False, blue_at: tuple[float, float] = (90, 90)):
    raw = scenario(
        ship("a", "red", x=10, y=95, speed=red_speed),
        ship("b", "blue", x=blue_at[0], y=blue_at[1], speed=blue_speed),
        table={"width": 100, "height": 100, "edge": edge},
    )
    st = started(raw, [9, 1])  # red wins the roll-off and moves first
    return apply(R, st, when(R, st, C.ChooseOrder(side="red", leader="red"), RED))


def _offered(st, actor) -> list:
    return [o.command for o in R.options(st, actor)]


def test_gsc2_r_20_past_the_drawn_edge_a_ship_stays_in_the_battle() -> None:
    """GSC2-R-20: on an open table a move across the drawn edge goes its whole length and the ship stays active
    (on a table with an edge the same move ends at the edge: GSC2-R-18)."""
    st = _open()
    assert st.open_table and move_limits(st, st.ships["a"])["edge_ahead"] is None
    [mv, _] = when(R, st, C.Move(ship="a", legs=(C.Leg(distance=8),)), RED)
    assert not mv.left_table and mv.distance == 8 and mv.path[-1] == E.Point(10, 103)
    after = apply(R, st, [mv])
    assert after.ships["a"].status == "active" and after.active("red") == [after.ships["a"]]
    closed = _open(edge=True)
    [mv, _] = when(R, closed, C.Move(ship="a", legs=(C.Leg(distance=8),)), RED)
    assert mv.left_table and mv.distance == 5


def test_gsc2_r_20_a_clearly_faster_ship_out_of_range_disengages_without_dice() -> None:
    """GSC2-R-20 / FTC-ARR-11: beyond 36" of every enemy and 2" faster than the slowest pursuer: escapes."""
    st = _open(red_speed=10, blue_speed=8)
    assert C.Disengage(ship="a") in _offered(st, RED)
    [mv, order] = when(R, st, C.Disengage(ship="a"), RED)  # no dice scripted: none may be rolled
    assert mv.disengaged is True and mv.left_table and mv.rolls == ()
    after = apply(R, st, [mv, order])
    assert after.ships["a"].status == "left" and after.active("red") == []
    assert "disengages and leaves the battle" in R.explain(mv)
    assert [(fx.kind, fx.rule) for fx in R.draw(after, BLUE).effects] == [("left", "GSC2-R-20")]


def test_gsc2_r_20_close_speeds_roll_off_and_a_failed_attempt_is_the_move() -> None:
    """GSC2-R-20: speeds within 2": d6 each, +1 to the faster; a higher roll escapes, a tie or lower is caught and
    the ship stays where it is, its move spent."""
    st = _open(red_speed=8, blue_speed=9)  # the pursuit is 1" faster: +1 to it
    [mv, _] = when(R, st, C.Disengage(ship="a"), RED, [5, 3])  # 5 against 3 + 1
    assert mv.disengaged is True and [r.value for r in mv.rolls] == [5, 3]
    [mv, order] = when(R, st, C.Disengage(ship="a"), RED, [4, 3])  # 4 against 3 + 1: a tie is caught
    assert mv.disengaged is False and not mv.left_table and mv.path == (st.ships["a"].pos,)
    after = apply(R, st, [mv, order])
    assert after.ships["a"].status == "active" and after.ships["a"].move_state == "moved"
    assert "the pursuit keeps up" in R.explain(mv)
    then_violation(R, after, C.Disengage(ship="a"), "GSC2-MOV-2", actor=RED)  # one attempt a turn


def test_gsc2_r_20_refusals_edge_range_speed_and_a_begun_move() -> None:
    """GSC2-R-20: refused on a table with an edge (GSC2-R-18), within 36" of an enemy, when clearly slower than
    the pursuit, and once the ship has begun its move; options offer it in none of these cases."""
    closed = _open(edge=True)
    then_violation(R, closed, C.Disengage(ship="a"), "GSC2-R-18", actor=RED)
    near = _open(blue_at=(40, 80))  # 33.5" away
    v = then_violation(R, near, C.Disengage(ship="a"), "GSC2-R-20", actor=RED)
    assert "36" in v.detail
    just_out = place(near, "b", 46.5, 95)  # 36.5" away
    assert C.Disengage(ship="a") in _offered(just_out, RED)
    slow = _open(red_speed=6, blue_speed=8)
    v = then_violation(R, slow, C.Disengage(ship="a"), "GSC2-R-20", actor=RED)
    assert "pursuit continues" in v.detail
    st = _open()
    paused = apply(R, st, when(R, st, C.Move(ship="a", legs=(C.Leg(distance=2),), done=False), RED))
    then_violation(R, paused, C.Disengage(ship="a"), "GSC2-R-20", actor=RED)
    for s in (closed, near, slow, paused):
        assert C.Disengage(ship="a") not in _offered(s, RED)
    then_violation(R, st, C.Disengage(ship="a"), "GSC2-R-4", actor=BLUE)  # not blue's ship


def test_gsc2_r_20_the_table_flag_is_validated() -> None:
    """GSC2-R-20: ``table.edge`` is a boolean; ships still start on the drawn table."""
    import pytest

    with pytest.raises(InvalidScenario):
        R.parse_setup(
            scenario(ship("a", "red", x=120), ship("b", "blue"), table={"width": 100, "height": 100, "edge": False})
        )
