"""GSC2-MOV-6 in the seat status: a side that may tractor an enemy's paused move is told it may act.

The status (draw.status, each seat's must_act and why) and the options come from one predicate
(movement.tractor_shots), so a seat offered a tractor shot is never shown as merely waiting.
"""

from __future__ import annotations

from msgspec.structs import replace

from service.domain.core import seat
from service.domain.gsc2 import commands as C

from .helpers import BLUE, RED, R, apply, offered, place, scenario, ship, started, when

TRACTOR = {"id": "t1", "kind": "tractor_beam", "level": 1, "targeting": 5, "range": 12}


def _paused(blue_systems: list[dict] | None = None, blue_at: tuple[float, float] = (6, 8)):
    """Red's ship a has moved 2" and paused its move (done=False); blue's b is 10" away."""
    raw = scenario(
        ship("a", "red"),
        ship("b", "blue", x=blue_at[0], y=blue_at[1], systems=[TRACTOR] if blue_systems is None else blue_systems),
    )
    st = started(raw, [8, 2])  # red wins the roll-off
    st = apply(R, st, when(R, st, C.ChooseOrder(side="red", leader="red"), RED))
    st = apply(R, st, when(R, st, C.Move(ship="a", legs=(C.Leg(distance=2),), done=False), RED))
    assert st.moving == "a"
    return st


def _seat(st, side: str, viewer=None):
    """The seat's status as ``viewer`` sees it (default: the seat itself), from the drawing."""
    status = R.draw(st, viewer or seat(side)).status
    return next(s for s in status.seats if s.seat == side)


def _tractor_options(st, viewer) -> list[C.FireTractor]:
    return [c for c in offered(st, viewer) if isinstance(c, C.FireTractor)]


def test_gsc2_mov_6_a_side_that_may_tractor_a_paused_enemy_move_must_act() -> None:
    """GSC2-MOV-6: blue's b may interrupt a's paused move, so blue's status says it may act, and why."""
    st = _paused()
    assert _tractor_options(st, BLUE) == [C.FireTractor(ship="b", system="t1", target="a")]
    you = R.draw(st, BLUE).status.you
    assert you is not None and you.must_act
    assert "tractor beam t1" in you.why and "GSC2-MOV-6" in you.why and "A's move" in you.why
    # red (and anyone) sees the same of blue; red must still finish its move
    assert _seat(st, "blue", RED) == you
    red = _seat(st, "red")
    assert red.must_act and red.why.startswith("finish A's move")
    # the shot the status promises is one decide accepts
    when(R, st, C.FireTractor(ship="b", system="t1", target="a"), BLUE, [9])


def test_gsc2_mov_6_once_the_tractor_has_fired_the_side_waits_again() -> None:
    """GSC2-MOV-6, GSC2-R-3: one shot a turn; after a miss the mover goes on and blue only waits."""
    st = _paused()
    st = apply(R, st, when(R, st, C.FireTractor(ship="b", system="t1", target="a"), BLUE, [10]))  # a miss
    assert st.moving == "a" and _tractor_options(st, BLUE) == []
    blue = _seat(st, "blue")
    assert not blue.must_act and blue.why == "waiting for red to finish A's move"


def test_gsc2_mov_6_no_tractor_in_range_or_working_means_waiting() -> None:
    """GSC2-MOV-6, negative cases: out of range, damaged, or no tractor at all — blue is not asked to act,
    and its why no longer hints at a tractor it cannot fire."""
    cases = {
        "out of range": _paused(blue_at=(6, 20)),  # 18"+ away
        "no tractor": _paused(blue_systems=[]),
    }
    damaged = _paused()
    b = damaged.ships["b"]
    b = replace(b, sys={**b.sys, "t1": replace(b.sys["t1"], damaged=True)})  # GSC2-SYS-1: cannot fire
    cases["damaged"] = replace(damaged, ships={**damaged.ships, "b": b})
    for what, st in cases.items():
        assert _tractor_options(st, BLUE) == [], what
        blue = _seat(st, "blue")
        assert not blue.must_act, what
        assert "tractor" not in blue.why and blue.why == "waiting for red to finish A's move", what


def test_gsc2_mov_6_the_movers_own_tractor_is_named_in_its_status() -> None:
    """GSC2-MOV-6: the mover may interrupt its own move for its tractor; its status says so."""
    raw = scenario(ship("a", "red", systems=[TRACTOR]), ship("b", "blue", x=6, y=8))
    st = started(raw, [8, 2])
    st = apply(R, st, when(R, st, C.ChooseOrder(side="red", leader="red"), RED))
    st = apply(R, st, when(R, st, C.Move(ship="a", legs=(C.Leg(distance=2),), done=False), RED))
    red = _seat(st, "red")
    assert red.must_act and "or fire A's tractor beam t1" in red.why
    blue = _seat(st, "blue")
    assert not blue.must_act and "tractor" not in blue.why
    # a far target: the own tractor is not offered, and not named
    far = place(st, "b", 6, 30)
    assert _tractor_options(far, RED) == [] and "tractor" not in _seat(far, "red").why


def test_gsc2_mov_6_status_and_options_agree_on_every_move_of_a_turn() -> None:
    """Whenever a move is paused, the waiting side must_act exactly when it is offered a tractor shot."""
    raw = scenario(
        ship("a", "red"),
        ship("a2", "red", x=30),
        ship("b", "blue", x=6, y=8, systems=[TRACTOR]),
        ship("b2", "blue", x=30, y=8),
    )
    st = started(raw, [8, 2])
    st = apply(R, st, when(R, st, C.ChooseOrder(side="red", leader="red"), RED))
    seen = []
    for red_ship in ("a", "a2"):
        st = apply(R, st, when(R, st, C.Move(ship=red_ship, legs=(C.Leg(distance=2),), done=False), RED))
        shots = bool(_tractor_options(st, BLUE))
        seen.append(shots)
        assert _seat(st, "blue").must_act == shots
        st = apply(R, st, when(R, st, C.Move(ship=red_ship, legs=(C.Leg(distance=0),)), RED))
        assert st.moving is None
    assert _seat(st, "blue").why == "move 2 ship(s)"  # red's batch is over: blue answers it
    assert seen == [True, False]  # a2 at x=30 is out of b's 12" range
