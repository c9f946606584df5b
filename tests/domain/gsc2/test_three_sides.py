"""Three or more forces (issue 36): GSC2-R-21 alternation round the table, GSC2-R-22 missile initiative,
GSC2-R-23 enemies, the side out of the battle and victory, GSC2-R-24 boarding by several sides. Outcomes
computed by hand from the rulings in docs/rules/gsc2.md; dice scripted."""

from __future__ import annotations

import msgspec

from service.domain.core import seat
from service.domain.core.bot import RandomBot
from service.domain.gsc2 import commands as C
from service.domain.gsc2.bot import RulesBot
from service.domain.gsc2.movement import settle
from service.domain.gsc2.repairs import victory
from service.domain.gsc2.state import GameState
from service.domain.gsc2.status import seat_status
from service.domain.gsc2.values import Order
from tests.clients.botplay import play
from tests.support.decider import then_violation

from .helpers import BLUE, RED, UMPIRE, E, R, apply, at_phase, beam, given, moved, of, offered, ship, when

GREEN = seat("green")
SIDES = ["red", "blue", "green"]


def three(*ships: dict, **kw) -> dict:
    return {"name": "test", "sides": SIDES, "ships": list(ships), **kw}


def fleets(red: int, blue: int, green: int, **kw) -> dict:
    """Ships far apart (no contact, no edge), 8" speed: red along y=0, blue along y=30, green along y=60."""
    out = []
    for side, n, y in (("red", red, 0), ("blue", blue, 30), ("green", green, 60)):
        out += [ship(f"{side[0]}{i}", side, x=10 + 5 * i, y=y, **kw) for i in range(1, n + 1)]
    return three(*out, table={"width": 80, "height": 80})


def step(st: GameState, cmd, actor, dice=None) -> GameState:
    return apply(R, st, when(R, st, cmd, actor, dice))


def order(st: GameState) -> tuple:
    o = st.order
    return (o.stage, o.side, o.owed, o.count, o.leader)


# --- GSC2-R-21: movement ---------------------------------------------------------------------------------


def test_gsc2_r_21_the_sides_with_more_come_down_first_and_the_fewest_leads() -> None:
    """GSC2-R-21: 3 / 2 / 1 ships: red moves 2, blue 1 (no roll: green alone has the fewest and leads)."""
    st = given(R, fleets(3, 2, 1))
    evs = when(R, st, C.Start(), UMPIRE, [])
    assert not of(evs, E.RollOff)
    st = apply(R, st, evs)
    assert order(st) == ("catchup", "red", 2, 0, "green")
    then_violation(R, st, C.Move(ship="b1"), "GSC2-MOV-2", actor=BLUE)  # blue's catch-up comes after red's
    st = step(st, C.Move(ship="r1"), RED)
    st = step(st, C.Move(ship="r2"), RED)
    assert order(st) == ("catchup", "blue", 1, 0, "green")
    st = step(st, C.Move(ship="b1"), BLUE)
    assert order(st) == ("lead", "green", 0, 0, "green")  # level at one each: the fewest is second player
    # green moves its only ship: the batch of 1 goes round the table, red then blue (green's rotation)
    st = step(st, C.Move(ship="g1"), GREEN)
    assert order(st) == ("follow", "red", 1, 1, "green")  # count carries the batch to blue, still to answer
    st = step(st, C.Move(ship="r3"), RED)
    assert order(st) == ("follow", "blue", 1, 0, "green")
    st = step(st, C.Move(ship="b2"), BLUE)
    assert order(st)[0] == "done"


def test_gsc2_r_21_sides_tied_for_the_fewest_roll_off_and_name_one_of_them() -> None:
    """GSC2-R-21: 2 / 1 / 1: blue and green roll off (a tie re-rolled), red does not roll; the winner names
    blue or green as second player, never red; red then catches up before the leader's first batch."""
    st = given(R, fleets(2, 1, 1))
    evs = when(R, st, C.Start(), UMPIRE, [3, 3, 8, 2])
    [roll] = of(evs, E.RollOff)
    assert [r.purpose[-7:].strip("( )") for r in roll.rolls] == ["blue", "green", "blue", "green"]
    assert [r.outcome for r in roll.rolls] == ["tie", "tie", "win", "lose"] and roll.winner == "blue"
    st = apply(R, st, evs)
    assert order(st) == ("choose", "blue", 0, 0, None)
    assert offered(st, BLUE) == [C.ChooseOrder(side="blue", leader="blue"), C.ChooseOrder(side="blue", leader="green")]
    err = then_violation(R, st, C.ChooseOrder(side="blue", leader="red"), "GSC2-MOV-2", actor=BLUE)
    assert "blue, green" in err.detail
    st = step(st, C.ChooseOrder(side="blue", leader="green"), BLUE)
    assert order(st) == ("catchup", "red", 1, 0, "green")
    st = step(st, C.Move(ship="r1"), RED)
    assert order(st) == ("lead", "green", 0, 0, "green")


def test_gsc2_r_21_a_three_way_roll_off_rerolls_only_the_sides_tied_for_highest() -> None:
    """GSC2-R-21: 7, 7, 2: red and blue re-roll (green has lost), 5 against 9: blue wins."""
    st = given(R, fleets(1, 1, 1))
    evs = when(R, st, C.Start(), UMPIRE, [7, 7, 2, 5, 9])
    [roll], [chosen] = of(evs, E.RollOff), of(evs, E.OrderSet)
    assert [r.outcome for r in roll.rolls] == ["tie", "tie", "lose", "lose", "win"]
    assert roll.winner == "blue" and chosen.order == Order(stage="choose", side="blue")


def test_gsc2_r_21_each_batch_is_answered_in_turn_round_the_table() -> None:
    """GSC2-R-21: 2 / 2 / 2, blue second player: rotation blue, green, red; the batch goes round, then blue
    leads again; ``gsc2.pass`` names who must match."""
    st = apply(R, given(R, fleets(2, 2, 2)), when(R, given(R, fleets(2, 2, 2)), C.Start(), UMPIRE, [9, 1, 1]))
    st = step(st, C.ChooseOrder(side="red", leader="blue"), RED)
    assert order(st) == ("lead", "blue", 0, 0, "blue")
    st = step(st, C.Move(ship="b1"), BLUE)
    [pass_option] = [o for o in R.options(st, BLUE) if isinstance(o.command, C.Pass)]
    assert pass_option.label.endswith("green then red must match it")
    [ev] = when(R, st, C.Pass(side="blue"), BLUE)
    assert ev.why == "blue moved 1; green then red must match"
    st = apply(R, st, [ev])
    assert order(st) == ("follow", "green", 1, 1, "blue")
    then_violation(R, st, C.Move(ship="r1"), "GSC2-MOV-2", actor=RED)  # red answers after green
    st = step(st, C.Move(ship="g1"), GREEN)
    assert order(st) == ("follow", "red", 1, 0, "blue")
    st = step(st, C.Move(ship="r1"), RED)
    assert order(st) == ("lead", "blue", 0, 0, "blue")
    then_violation(R, st, C.Pass(side="blue"), "GSC2-MOV-2", actor=BLUE)  # at least one ship a batch


def test_gsc2_r_21_a_leader_with_no_ship_left_hands_the_lead_round_the_table() -> None:
    """GSC2-R-21 (GSC2-R-10 for two or more sides left): the next side round the table leads; one side
    left moves all it has."""
    st = apply(R, given(R, fleets(1, 2, 2)), when(R, given(R, fleets(1, 2, 2)), C.Start(), UMPIRE, []))
    st = moved(st, "r1", 0.0)  # red, the leader, has moved its only ship
    assert settle(st, Order(stage="lead", side="red", leader="red")) == Order(stage="lead", side="blue", leader="blue")
    st = moved(moved(st, "b1", 0.0), "b2", 0.0)
    assert settle(st, Order(stage="lead", side="red", leader="red")) == Order(
        stage="follow", side="green", owed=2, leader="red"
    )


# --- GSC2-R-22: missiles ---------------------------------------------------------------------------------


def _missile_three() -> GameState:
    rack = {"id": "m1", "missiles": 1, "damage": 2, "carried": 4, "targeting": 4}
    raw = three(
        ship("r", "red", x=30, y=0, missiles=[rack]),
        ship("b", "blue", x=30, y=20, heading=180),
        ship("g", "green", x=30.5, y=6, mds=1),
        table={"width": 60, "height": 60},
    )
    st = apply(R, given(R, raw), when(R, given(R, raw), C.Start(), UMPIRE, [9, 1, 1]))
    return apply(R, st, when(R, st, C.ChooseOrder(side="red", leader="red"), RED))


def test_gsc2_r_22_every_side_in_the_fight_rolls_for_missile_initiative() -> None:
    """GSC2-R-22: red, blue and green each roll d10; the winner names any of them to launch first."""
    st = _missile_three()
    evs = when(R, st, C.ForcePhase(), UMPIRE, [2, 9, 5])
    [roll] = of(evs, E.RollOff)
    assert roll.purpose == "missile initiative" and roll.winner == "blue" and len(roll.rolls) == 3
    st = apply(R, st, evs)
    assert [c.leader for c in offered(st, BLUE)] == ["red", "blue", "green"]
    st = step(st, C.ChooseOrder(side="blue", leader="red"), BLUE)
    assert order(st)[:2] == ("launch", "red")  # only red has a rack: blue and green are skipped


def test_gsc2_r_22_any_other_sides_mds_shoots_at_a_passing_salvo() -> None:
    """GSC2-R-22 (GSC2-R-7, GSC2-MSL-4): red's salvo at blue passes 0.5" from green's ship: green's MDS fires
    (d10 2 ≤ 6: the one missile is killed), and the attacks resolve with nothing left."""
    st = apply(R, _missile_three(), when(R, _missile_three(), C.ForcePhase(), UMPIRE, [9, 2, 5]))
    st = step(st, C.ChooseOrder(side="red", leader="red"), RED)
    st = step(st, C.Launch(ship="r", battery="m1", target="b"), RED)
    assert order(st)[:2] == ("move", "red")  # red's rack has fired; nobody else can launch
    evs = when(R, st, C.MoveMissiles(salvo="s1"), RED, [2])
    [flight] = of(evs, E.MissilesMoved)
    assert flight.mds_fired == {"g": 1} and flight.intercepted == 1 and flight.removed
    assert apply(R, st, evs).order.stage == "done"


# --- GSC2-R-23: enemies, out of the battle, victory -----------------------------------------------------------


def _gone(st: GameState, *ids: str, status: str = "destroyed") -> GameState:
    ships = {k: msgspec.structs.replace(s, status=status) if k in ids else s for k, s in st.ships.items()}
    return msgspec.structs.replace(st, ships=ships)


def test_gsc2_r_23_every_other_side_is_an_enemy() -> None:
    """GSC2-R-23: red's turret bears on blue and green alike; green is refused its own ship."""
    raw = three(
        ship("r", "red", x=30, y=30, beams=[beam()]),
        ship("b", "blue", x=30, y=36),
        ship("g", "green", x=36, y=30, beams=[beam()]),
        ship("g2", "green", x=40, y=40),
        table={"width": 60, "height": 60},
    )
    st = at_phase(apply(R, given(R, raw), when(R, given(R, raw), C.Start(), UMPIRE, [9, 1])), "beams")
    assert {c.target for c in offered(st, RED) if isinstance(c, C.Fire)} == {"b", "g", "g2"}
    then_violation(R, st, C.Fire(ship="g", battery="b1", target="g2"), "GSC2-BEAM-1", actor=GREEN)


def test_gsc2_r_23_a_side_out_of_the_battle_is_waited_for_by_no_phase() -> None:
    """GSC2-R-23: green has no ship left: no options, not awaited; red and blue end the phase alone."""
    st = _gone(
        at_phase(
            apply(R, given(R, fleets(1, 1, 1)), when(R, given(R, fleets(1, 1, 1)), C.Start(), UMPIRE, [9, 1, 1])),
            "beams",
        ),
        "g1",
    )
    assert st.in_battle() == ("red", "blue")
    assert R.options(st, GREEN) == [] and not seat_status(st, "green").must_act
    assert "out of the battle" in seat_status(st, "green").why
    st = step(st, C.EndPhase(side="red"), RED)
    assert "waiting for blue" in seat_status(st, "red").why and "green" not in seat_status(st, "red").why
    assert step(st, C.EndPhase(side="blue"), BLUE).phase == "boarding"


def test_gsc2_r_23_the_salvos_of_a_side_out_of_the_battle_leave_with_it() -> None:
    """GSC2-R-23: green's salvo in flight is removed at the next missile phase (nobody moves it)."""
    st = _missile_three()
    salvo = E.MissilesLaunched(
        ship="g", battery="x", target="r", salvo="s1", count=1, damage=1, targeting=4, pos=E.Point(30, 40)
    )
    st = _gone(R.evolve(st, salvo), "g", status="left")
    evs = when(R, st, C.ForcePhase(), UMPIRE, [9, 2])  # red and blue roll for the initiative: red's rack
    [gone] = [e for e in of(evs, E.MissilesMoved) if e.salvo == "s1"]
    assert gone.removed == "green is out of the battle" and "s1" not in apply(R, st, evs).salvos


def test_gsc2_r_23_the_last_side_standing_wins_and_the_most_hull_at_the_limit() -> None:
    """GSC2-R-23 (GSC2-WIN-1 for three sides): two sides standing fight on; one wins; none draws; at the
    turn limit the most surviving hull wins and a tie for the most draws."""
    st = apply(R, given(R, fleets(1, 1, 1)), when(R, given(R, fleets(1, 1, 1)), C.Start(), UMPIRE, [9, 1, 1]))
    assert victory(_gone(st, "g1")) is None
    won = victory(_gone(st, "g1", "b1"))
    assert won is not None and won.winner == "red" and won.reason == "no blue or green ship remains in the fight"
    drawn = victory(_gone(st, "r1", "b1", "g1"))
    assert drawn is not None and drawn.winner is None and "any side" in drawn.reason
    limit = msgspec.structs.replace(st, turn_limit=1)
    hulls = {"r1": 10, "b1": 10, "g1": 4}
    ships = {k: msgspec.structs.replace(s, hull=hulls[k]) for k, s in limit.ships.items()}
    tied = victory(msgspec.structs.replace(limit, ships=ships))
    assert tied is not None and tied.winner is None and tied.hull == {"red": 10, "blue": 10, "green": 4}
    ships["b1"] = msgspec.structs.replace(ships["b1"], hull=9)
    ahead = victory(msgspec.structs.replace(limit, ships=ships))
    assert ahead is not None and ahead.winner == "red"


# --- GSC2-R-24: boarding by several sides ----------------------------------------------------------------


def test_gsc2_r_24_boarding_sides_fight_the_defenders_in_turn_and_the_most_captures() -> None:
    """GSC2-R-24: red and green squads aboard blue's ship (1 crew): round the table from blue, green fights
    first (its assault 1 ≤ 5 kills the crew, the crew's 10 misses), then red finds no defenders and rolls
    nothing; one squad each aboard: the tie goes to green, first round the table."""
    raw = three(ship("r", "red"), ship("b", "blue", y=10, crew=1), ship("g", "green", y=20))
    st = at_phase(apply(R, given(R, raw), when(R, given(R, raw), C.Start(), UMPIRE, [9, 1, 1])), "boarding")
    for side, src in (("red", "r"), ("green", "g")):
        st = R.evolve(
            st,
            E.BoardingResolved(
                method="contact", side=side, ship=src, target="b", arrived=E.Troops(assault=1), failed=E.Troops()
            ),
        )
    for who in (RED, BLUE):
        st = step(st, C.EndPhase(side=who.seat), who)
    evs = when(R, st, C.EndPhase(side="green"), GREEN, [10, 1])
    fights = of(evs, E.TroopCombat)
    assert [list(f.boarders) for f in fights] == [["green"], ["red"]]
    assert fights[0].hits_by_boarders == 1 and fights[0].defenders.total == 0 and fights[1].rolls == ()
    assert of(evs, E.ShipCaptured) == [E.ShipCaptured(ship="b", by="green")]


# --- the sample ----------------------------------------------------------------------------------------------


def test_bots_play_the_three_way_sample_to_its_end() -> None:
    """Issue 36: rules bots and random bots on all three seats: a result, no stall, no refused option."""
    for bots in (
        {s: RulesBot() for s in SIDES},
        {s: RandomBot() for s in SIDES},
        {"red": RulesBot(), "blue": RandomBot(), "green": RulesBot()},
    ):
        for seed in (1, 2):
            game = play(R, "three-way", bots, seed=seed)
            assert game.over and not game.stalled and not game.refused_options, game.refused_options[:3]
            assert game.refused_compositions == 0 and game.state.result
