"""Turn sequence (GSC2-SEQ) and movement (GSC2-MOV)."""

from __future__ import annotations

import pytest

from service.domain.core import Command, NotYourPiece
from service.domain.core.errors import UnknownCommand, WrongPhase
from service.domain.gsc2 import commands as C
from service.domain.gsc2.values import Order
from tests.support.decider import then_violation

from .helpers import BLUE, RED, UMPIRE, E, R, apply, at_phase, beam, given, of, offered, scenario, ship, started, when


def duel(**kw):
    return scenario(ship("a", "red", x=10, y=0, beams=[beam()], **kw), ship("b", "blue", x=10, y=20, heading=180))


def test_gsc2_seq_1_phases_run_in_order_and_need_every_seat() -> None:
    """GSC2-SEQ-1."""
    st = started(duel())
    seen = [st.phase]
    st = apply(R, st, when(R, st, C.ChooseOrder(side="red", leader="red"), RED))
    for _ in range(5):
        for who in ("a", "b"):
            if st.phase == "movement":
                st = apply(R, st, when(R, st, C.Move(ship=who if st.order.side == "red" else "b"), UMPIRE))
        side_evs = when(R, st, C.EndPhase(side="red"), RED, [])
        assert [type(e) for e in side_evs] == [E.SideDone]  # one seat done: nothing resolves yet
        st = apply(R, st, side_evs)
        last = st.phase == "repairs"  # the next turn opens with a movement roll-off (equal fleets)
        st = apply(R, st, when(R, st, C.EndPhase(side="blue"), BLUE, [5, 1] if last else []))
        seen.append(st.phase)
    assert seen == ["movement", "missiles", "beams", "boarding", "repairs", "movement"]
    assert st.turn == 2


def test_gsc2_seq_1_the_umpire_may_force_the_phase_on_and_seats_may_not() -> None:
    """GSC2-SEQ-1."""
    st = started(duel())
    with pytest.raises(NotYourPiece):
        when(R, st, C.ForcePhase(), RED)
    evs = when(R, st, C.ForcePhase(), UMPIRE, [])  # no missile to launch: no initiative roll
    moves = of(evs, E.ShipMoved)
    assert {m.ship for m in moves} == {"a", "b"} and all(m.distance == 0 for m in moves)
    assert apply(R, st, evs).phase == "missiles"


def test_gsc2_seq_2_systems_only_in_their_phase() -> None:
    """GSC2-SEQ-2."""
    st = started(duel())
    then_violation(R, st, C.Fire(ship="a", battery="b1", target="b"), "GSC2-SEQ-2")
    then_violation(R, st, C.Repair(ship="a", system="drive"), "GSC2-SEQ-2")
    then_violation(R, st, C.Board(ship="a", target="b", method="teleport", assault=1), "GSC2-SEQ-2")
    beams = at_phase(st, "beams")
    then_violation(R, beams, C.Launch(ship="a", battery="m1", target="b"), "GSC2-SEQ-2")
    then_violation(R, beams, C.FireTractor(ship="a", system="t", target="b"), "GSC2-SEQ-2")
    then_violation(R, beams, C.Move(ship="a"), "GSC2-SEQ-1")


def test_gsc2_r_4_a_seat_commands_only_its_own_ships() -> None:
    """GSC2-R-4."""
    st = at_phase(started(duel()), "beams")
    err = then_violation(R, st, C.Fire(ship="b", battery="b1", target="a"), "GSC2-R-4", actor=RED)
    assert isinstance(err, NotYourPiece) and err.status == 403
    # whose piece is asked before which phase: another side's ship is refused as such in any phase
    moving = started(duel())
    then_violation(R, moving, C.Fire(ship="b", battery="b1", target="a"), "GSC2-R-4", actor=RED)
    then_violation(R, moving, C.EndPhase(side="blue"), "GSC2-R-4", actor=RED)
    then_violation(R, moving, C.Fire(ship="a", battery="b1", target="b"), "GSC2-SEQ-2", actor=RED)  # own ship


class _Bogus(Command, frozen=True, tag="gsc2.bogus"):
    ship: str = "a"


def test_the_core_skeleton_refuses_in_one_order_with_typed_codes() -> None:
    """UNKNOWN-COMMAND, GSC2-R-4, GSC2-UMP-1, GSC2-SEQ-1, GSC2-SEQ-2 (core.decider)."""
    st = started(duel())
    err = then_violation(R, st, _Bogus(), "UNKNOWN-COMMAND", actor=RED)
    assert isinstance(err, UnknownCommand) and err.code == "unknown-command"
    err = then_violation(R, st, C.ForcePhase(), "GSC2-UMP-1", actor=BLUE)
    assert err.code == "not-your-piece" and err.status == 403
    err = then_violation(R, st, C.Fire(ship="a", battery="b1", target="b"), "GSC2-SEQ-2", actor=RED)
    assert isinstance(err, WrongPhase) and err.code == "wrong-phase" and "beams" in err.detail
    err = then_violation(R, at_phase(st, "beams"), C.Pass(side="red"), "GSC2-SEQ-1", actor=RED)
    assert err.code == "wrong-phase"
    # not started: ending a phase names gsc2.start; whose piece is still asked first
    fresh = given(R, duel())
    err = then_violation(R, fresh, C.EndPhase(side="red"), "GSC2-SEQ-1", actor=RED)
    assert err.code == "rule" and "gsc2.start" in err.detail
    then_violation(R, fresh, C.EndPhase(side="blue"), "GSC2-R-4", actor=RED)


def test_gsc2_mov_1_terrain_moves_first_and_is_recorded() -> None:
    """GSC2-MOV-1."""
    raw = duel()
    raw["terrain"] = [{"id": "rock", "kind": "asteroid", "x": 5, "y": 5, "dx": 1, "dy": -0.5}]
    state = given(R, raw)
    evs = when(R, state, C.Start(), UMPIRE, [6, 2])
    drift = of(evs, E.TerrainDrifted)[0]
    assert drift.positions["rock"] == E.Point(6, 4.5)
    assert evs.index(drift) < evs.index(of(evs, E.OrderSet)[0])  # before any ship may move


def test_gsc2_mov_2_more_ships_move_first_then_batches_are_matched() -> None:
    """GSC2-MOV-2."""
    raw = scenario(
        ship("a1", "red"),
        ship("a2", "red", x=5),
        ship("a3", "red", x=9),
        ship("b1", "blue", y=30),
        ship("b2", "blue", x=5, y=30),
    )
    st = started(raw, [])
    assert (st.order.stage, st.order.side, st.order.owed) == ("catchup", "red", 1)
    err = then_violation(R, st, C.Move(ship="b1"), "GSC2-MOV-2", actor=BLUE)
    assert "red's move" in err.detail and "owes 1" in err.detail
    st = apply(R, st, when(R, st, C.Move(ship="a1"), RED))
    assert (st.order.stage, st.order.side) == ("lead", "blue")  # blue is the second player
    then_violation(R, st, C.Pass(side="blue"), "GSC2-MOV-2", actor=BLUE)  # must move ≥ 1 first
    st = apply(R, st, when(R, st, C.Move(ship="b1"), BLUE))
    st = apply(R, st, when(R, st, C.Move(ship="b2"), BLUE))
    # blue has none left: red must match 2 (it has 2 left)
    assert (st.order.stage, st.order.side, st.order.owed) == ("follow", "red", 2)
    st = apply(R, st, when(R, st, C.Move(ship="a2"), RED))
    st = apply(R, st, when(R, st, C.Move(ship="a3"), RED))
    assert st.order.stage == "done"
    assert C.EndPhase(side="red") in offered(st, RED)


def test_gsc2_mov_2_pass_ends_a_batch_and_the_other_matches() -> None:
    """GSC2-MOV-2."""
    raw = scenario(ship("a1", "red"), ship("a2", "red", x=5), ship("b1", "blue", y=30), ship("b2", "blue", x=5, y=30))
    st = started(raw, [4, 4, 9, 2])  # a tie is re-rolled; red wins
    ro = of(when(R, given(R, raw), C.Start(), UMPIRE, [4, 4, 9, 2]), E.RollOff)[0]
    assert [r.outcome for r in ro.rolls] == ["tie", "tie", "win", "lose"] and ro.winner == "red"
    then_violation(R, st, C.ChooseOrder(side="blue", leader="blue"), "GSC2-MOV-2", actor=BLUE)
    st = apply(R, st, when(R, st, C.ChooseOrder(side="red", leader="blue"), RED))
    assert (st.order.stage, st.order.side) == ("lead", "blue")
    st = apply(R, st, when(R, st, C.Move(ship="b1"), BLUE))
    st = apply(R, st, when(R, st, C.Pass(side="blue"), BLUE))
    assert (st.order.stage, st.order.side, st.order.owed) == ("follow", "red", 1)
    then_violation(R, st, C.Move(ship="b2"), "GSC2-MOV-2", actor=BLUE)


def _leg(turn=0, distance=0.0):
    return C.Leg(turn=turn, distance=distance)


def _solo(**kw):
    st = started(scenario(ship("a", "red", **kw), ship("b", "blue", x=40, y=40, speed=0)), [9, 1])
    return apply(R, st, when(R, st, C.ChooseOrder(side="red", leader="red"), RED))


def test_gsc2_mov_3_straight_segments_up_to_speed_and_45_degree_turns() -> None:
    """GSC2-MOV-3."""
    st = _solo()
    [ev, _] = when(R, st, C.Move(ship="a", legs=(_leg(distance=4), _leg(45, 4))), RED)
    assert ev.turns == 1 and ev.paid_turns == 0 and ev.heading == 45 and ev.distance == 8
    # turning before the turn distance costs 4" of movement
    [ev, _] = when(R, st, C.Move(ship="a", legs=(_leg(-45, 4),)), RED)
    assert ev.paid_turns == 1 and ev.heading == 315 and ev.move_left == 0
    then_violation(R, st, C.Move(ship="a", legs=(_leg(-45, 5),)), "GSC2-MOV-3", actor=RED)
    then_violation(R, st, C.Move(ship="a", legs=(_leg(distance=8.5),)), "GSC2-MOV-3", actor=RED)
    then_violation(R, st, C.Move(ship="a", legs=(_leg(90, 1),)), "GSC2-MOV-3", actor=RED)
    then_violation(R, st, C.Move(ship="a", legs=(_leg(distance=2), _leg(45, 0), _leg(45, 0))), "GSC2-MOV-3", actor=RED)


def test_gsc2_mov_3_a_refused_leg_is_numbered_from_1_as_the_page_numbers_it() -> None:
    """GSC2-MOV-3: the message names the leg as the page's legs editor does (issue 38: it said "leg 1" for
    the page's "Leg 2")."""
    st = _solo()
    v = then_violation(R, st, C.Move(ship="a", legs=(_leg(distance=7), _leg(distance=3))), "GSC2-MOV-3", actor=RED)
    assert v.detail.startswith("leg 2: ") and 'only 1"' in v.detail, v.detail
    v = then_violation(R, st, C.Move(ship="a", legs=(_leg(90, 1),)), "GSC2-MOV-3", actor=RED)
    assert v.detail.startswith("leg 1: "), v.detail


def test_gsc2_mov_4_a_slow_ship_may_turn_once_after_its_move() -> None:
    """GSC2-MOV-4."""
    st = _solo(speed=3, turn_distance=4)
    [ev, _] = when(R, st, C.Move(ship="a", legs=(_leg(distance=3), _leg(45))), RED)
    assert ev.turns == 1 and ev.paid_turns == 0 and ev.heading == 45
    then_violation(R, st, C.Move(ship="a", legs=(_leg(distance=3), _leg(45), _leg(45))), "GSC2-MOV-3", actor=RED)
    fast = _solo(speed=6, turn_distance=8)  # 6 < 8 too; but a fast ship (speed ≥ turn distance) cannot
    assert when(R, fast, C.Move(ship="a", legs=(_leg(distance=1), _leg(45))), RED)[0].paid_turns == 0
    normal = _solo(speed=8, turn_distance=6)  # speed ≥ turn distance: no free end-of-move turn
    assert when(R, normal, C.Move(ship="a", legs=(_leg(distance=3), _leg(45))), RED)[0].paid_turns == 1
    then_violation(R, normal, C.Move(ship="a", legs=(_leg(distance=5), _leg(45))), "GSC2-MOV-3", actor=RED)


def test_gsc2_mov_3_a_half_inch_leg_moves_the_ship_half_an_inch() -> None:
    """GSC2-MOV-3: legs may be fractions of an inch: 0.5" straight ahead (heading 0 is up the table) moves the
    ship from y to y + 0.5 and records 0.5" moved."""
    st = _solo()
    start = st.ships["a"].pos
    [mv, _] = when(R, st, C.Move(ship="a", legs=(_leg(distance=0.5),)), RED)
    assert mv.path[-1] == E.Point(start.x, start.y + 0.5) and mv.distance == 0.5


def test_gsc2_mov_3_option_labels_and_the_tractor_pause_only_with_a_working_tractor() -> None:
    """GSC2-MOV-3/6: the 0" option reads "stay put", a 1" run "1" ahead"; the move that pauses half way (to fire
    a tractor, GSC2-MOV-6) is offered only to a ship with a working tractor beam."""
    from service.domain.gsc2.options import _legs_words

    assert _legs_words(()) == "stay put" and _legs_words((_leg(distance=0),)) == "stay put"
    assert _legs_words((_leg(distance=1),)) == '1" ahead'
    plain = _solo(systems=[{"id": "c1", "kind": "cloak", "level": 1}])  # a working system, but no tractor
    assert not [o for o in R.options(plain, RED) if isinstance(o.command, C.Move) and not o.command.done]
    tractor = {"id": "t1", "kind": "tractor_beam", "level": 1, "targeting": 5, "range": 12}
    armed = _solo(systems=[tractor])
    [pause] = [o.command for o in R.options(armed, RED) if isinstance(o.command, C.Move) and not o.command.done]
    assert pause.legs == (_leg(distance=4.0),)  # half of speed 8


def test_gsc2_mov_3_a_paused_ship_is_offered_its_free_turn_after_the_rest_of_its_turn_distance() -> None:
    """GSC2-MOV-3: turn distance 4, paused after 1" (GSC2-MOV-6): the options turn free after 3" more (4 − 1),
    then go on with the 4" left (speed 8 − 1 − 3)."""
    st = _solo(turn_distance=4)
    st = apply(R, st, when(R, st, C.Move(ship="a", legs=(_leg(distance=1),), done=False), RED))
    legs = [o.command.legs for o in R.options(st, RED) if isinstance(o.command, C.Move)]
    assert (_leg(distance=3.0), _leg(45, 4.0)) in legs and (_leg(distance=3.0), _leg(-45, 4.0)) in legs


def test_gsc2_mov_5_distance_moved_is_recorded_for_to_hit() -> None:
    """GSC2-MOV-5."""
    st = _solo()
    st = apply(R, st, when(R, st, C.Move(ship="a", legs=(_leg(distance=4), _leg(45, 3))), RED))
    assert st.ships["a"].moved == 7 and st.ships["a"].move_state == "moved"


def _tractor_duel():
    tractor = {"id": "t1", "kind": "tractor_beam", "level": 1, "targeting": 5, "range": 12}
    raw = scenario(ship("a", "red", systems=[tractor]), ship("b", "blue", x=6, y=8, systems=[tractor]))
    return started(raw, [8, 2])  # red wins the roll-off


def test_gsc2_mov_6_interrupt_own_move_for_a_tractor_beam() -> None:
    """GSC2-MOV-6."""
    st = _tractor_duel()
    st = apply(R, st, when(R, st, C.ChooseOrder(side="red", leader="red"), RED))
    then_violation(R, st, C.FireTractor(ship="a", system="t1", target="b"), "GSC2-MOV-6", actor=RED)
    st = apply(R, st, when(R, st, C.Move(ship="a", legs=(_leg(distance=2),), done=False), RED))
    assert st.moving == "a" and st.ships["a"].move_left == 6
    [ev] = when(R, st, C.FireTractor(ship="a", system="t1", target="b"), RED, [7])
    # targeting 5 + target did not move 2, no range modifier: needs 7
    assert ev.hit and ev.rolls[0].target == 7 and all(m.rule != "GSC2-BEAM-4" for m in ev.rolls[0].modifiers)
    st = apply(R, st, [ev])
    st = apply(R, st, when(R, st, C.Move(ship="a", legs=(_leg(distance=6),)), RED))
    assert st.ships["a"].moved == 8
    # the held target may only make a 0" move this turn (GSC2-R-3)
    then_violation(R, st, C.Move(ship="b", legs=(_leg(distance=1),)), "GSC2-MOV-3", actor=BLUE)
    assert when(R, st, C.Move(ship="b"), BLUE)[0].distance == 0


def test_gsc2_mov_6_an_enemy_tractor_hit_ends_the_move_where_it_stands() -> None:
    """GSC2-MOV-6."""
    st = _tractor_duel()
    st = apply(R, st, when(R, st, C.ChooseOrder(side="red", leader="red"), RED))
    st = apply(R, st, when(R, st, C.Move(ship="a", legs=(_leg(distance=3),), done=False), RED))
    evs = when(R, st, C.FireTractor(ship="b", system="t1", target="a"), BLUE, [4])
    assert evs[0].ended_move and isinstance(evs[1], E.OrderSet)
    st = apply(R, st, evs)
    assert st.moving is None and st.ships["a"].move_state == "moved" and st.ships["a"].moved == 3
    then_violation(R, st, C.FireTractor(ship="b", system="t1", target="a"), "GSC2-MOV-6", actor=BLUE)


def test_gsc2_mov_7_moving_into_contact_with_an_immobilized_enemy() -> None:
    """GSC2-MOV-7."""
    raw = scenario(
        ship("a", "red"),
        ship("dead", "blue", x=0, y=8, speed=0),
        ship("live", "blue", x=20, y=8),
        ship("a2", "red", x=20),
    )
    st = started(raw, [9, 1])
    st = apply(R, st, when(R, st, C.ChooseOrder(side="red", leader="red"), RED))
    [ev, _] = when(R, st, C.Move(ship="a", legs=(_leg(distance=7.5),)), RED)
    assert ev.contacts == ("dead",)  # 0.5" between centres is contact
    [ev, _] = when(R, st, C.Move(ship="a", legs=(_leg(distance=7.4),)), RED)
    assert ev.contacts == ()
    [ev, _] = when(R, st, C.Move(ship="a2", legs=(_leg(distance=8),)), RED)
    assert ev.contacts == ()  # "live" can still move: no direct contact


def test_options_give_concrete_moves_and_view_gives_limits() -> None:
    st = _solo(speed=10, turn_distance=4)
    opts = [o for o in offered(st, RED) if isinstance(o, C.Move)]
    assert C.Move(ship="a", legs=(_leg(distance=10),)) in opts
    assert C.Move(ship="a", legs=(_leg(distance=4), _leg(45, 6))) in opts
    assert C.Move(ship="a", legs=(_leg(-45, 6),)) in opts  # paid turn
    for o in opts:
        when(R, st, o, RED)
    assert offered(st, BLUE) == [] and R.forms(st, BLUE) == []  # red's move: blue has nothing to do
    why = R.draw(st, BLUE).status.you
    assert why is not None and not why.must_act and why.why.startswith("waiting for red to move")
    limits = next(s for s in R.view(st, RED)["ships"] if s["id"] == "a")["move_limits"]
    assert limits["max_distance_left"] == 10 and limits["free_turn_after"] == 4


def test_order_set_is_reported_in_the_view() -> None:
    st = _solo()
    v = R.view(st, BLUE)
    assert v["to_act"] == "red" and v["order"]["stage"] in ("catchup", "lead", "follow")
    assert isinstance(st.order, Order)
