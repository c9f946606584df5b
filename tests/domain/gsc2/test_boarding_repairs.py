"""Boarding (GSC2-BRD), repairs (GSC2-REP), victory (GSC2-WIN) and umpire rulings (GSC2-UMP)."""

from __future__ import annotations

import pytest

from service.domain.core import NotYourPiece, RuleViolation
from service.domain.core.guards import GAME_OVER, guarded_decide
from service.domain.gsc2 import commands as C
from service.domain.gsc2.values import Sys
from tests.support.decider import ScriptedDice, then_violation

from .helpers import BLUE, RED, UMPIRE, E, R, apply, at_phase, of, offered, scenario, ship, started, when


def _board(contact=True, b_kw=None, **a_kw):
    kw = {"assault_squads": 2, "heavy_assault_squads": 1, "transporters": 2, "assault_pods": 1, **a_kw}
    raw = scenario(ship("a", "red", **kw), ship("b", "blue", y=5, **{"speed": 0, "crew": 2, **(b_kw or {})}))
    st = started(raw, [9, 1])
    st = apply(R, st, when(R, st, C.ChooseOrder(side="red", leader="red"), RED))
    st = apply(R, st, when(R, st, C.Move(ship="a", legs=(C.Leg(distance=5 if contact else 3),)), RED))
    return at_phase(st, "boarding")


def test_gsc2_brd_2_direct_contact_only_after_contact_in_movement() -> None:
    """GSC2-BRD-2."""
    st = _board(contact=True)
    assert st.ships["a"].contacts == ("b",)
    evs = when(R, st, C.Board(ship="a", target="b", method="contact", assault=2, heavy=1), RED)
    assert evs[0].order.method == "contact" and evs[0].troops_left["assault_squads"].level == 0
    far = _board(contact=False)
    then_violation(R, far, C.Board(ship="a", target="b", method="contact", assault=1), "GSC2-BRD-2", actor=RED)


def test_gsc2_brd_4_teleporters_range_8_targeting_5_one_squad_each() -> None:
    """GSC2-BRD-4."""
    st = _board(contact=False)
    then_violation(R, st, C.Board(ship="a", target="b", method="teleport", assault=2, heavy=1), "GSC2-BRD-4", actor=RED)
    st = apply(R, st, when(R, st, C.Board(ship="a", target="b", method="teleport", assault=1, heavy=1), RED))
    then_violation(R, st, C.Board(ship="a", target="b", method="teleport", assault=1), "GSC2-BRD-4", actor=RED)
    st = apply(R, st, when(R, st, C.EndPhase(side="red"), RED))
    # teleports: 5 + did not move 2 = 7 → 7 hits, 8 misses (the failed squad stays home); then combat
    evs = when(R, st, C.EndPhase(side="blue"), BLUE, [7, 8, 10, 10, 10])
    [tp] = of(evs, E.BoardingResolved)
    assert tp.rolls[0].rule == "GSC2-BRD-4" and tp.rolls[0].target == 7
    assert tp.arrived.assault == 1 and tp.failed.heavy == 1
    after = apply(R, st, evs)
    assert after.ships["a"].sys["heavy_assault_squads"].level == 1
    out = _board(contact=False)
    out = R.evolve(
        out,
        E.ShipMoved(
            ship="a",
            path=(out.ships["a"].pos, E.Point(0, -3.1)),
            heading=0,
            distance=0,
            moved=3,
            turns=0,
            paid_turns=0,
            since_turn=0,
            move_left=0,
            finished=True,
        ),
    )
    then_violation(R, out, C.Board(ship="a", target="b", method="teleport", assault=1), "GSC2-BRD-4", actor=RED)


def test_gsc2_brd_4_a_heavy_squad_that_teleports_is_not_counted_as_failed() -> None:
    """GSC2-BRD-4: the assault squad misses (8 > 7) and stays home, the heavy squad hits (7) and lands: failed
    = 1 assault, 0 heavy; arrived = 0 assault, 1 heavy."""
    st = _board(contact=False)
    st = apply(R, st, when(R, st, C.Board(ship="a", target="b", method="teleport", assault=1, heavy=1), RED))
    st = apply(R, st, when(R, st, C.EndPhase(side="red"), RED))
    evs = when(R, st, C.EndPhase(side="blue"), BLUE, [8, 7, 10, 10, 10])
    [tp] = of(evs, E.BoardingResolved)
    assert (tp.arrived.assault, tp.arrived.heavy, tp.failed.assault, tp.failed.heavy) == (0, 1, 1, 0)


def test_gsc2_brd_3_pods_are_numbered_one_by_one() -> None:
    """GSC2-BRD-3, GSC2-R-11: two pods launched in turn are p1 then p2 (ids count up by one)."""
    st = _board(contact=False, assault_pods=2)
    first = when(R, st, C.LaunchPod(ship="a", squad="assault"), RED)
    st = apply(R, st, first)
    second = when(R, st, C.LaunchPod(ship="a", squad="assault"), RED)
    assert [first[0].pod, second[0].pod] == ["p1", "p2"]


def test_gsc2_brd_3_pods_move_6_and_ram_like_a_missile() -> None:
    """GSC2-BRD-3."""
    st = _board(contact=False)
    st = apply(R, st, when(R, st, C.LaunchPod(ship="a", squad="heavy"), RED))
    then_violation(R, st, C.MovePod(pod="p1", x=0, y=9.5), "GSC2-BRD-3", actor=RED)  # 6.5" away
    then_violation(R, st, C.LaunchPod(ship="a"), "GSC2-BRD-3", actor=RED)  # no pod left
    st = apply(R, st, when(R, st, C.MovePod(pod="p1", ram="b"), RED))
    st = apply(R, st, when(R, st, C.EndPhase(side="red"), RED))
    evs = when(R, st, C.EndPhase(side="blue"), BLUE, [6, 10, 10, 10])
    [ram] = of(evs, E.BoardingResolved)
    assert ram.rolls[0].rule == "GSC2-BRD-3" and ram.rolls[0].target == 6 and ram.arrived.heavy == 1
    assert not of(evs, E.DamageApplied)  # ramming does no structure damage


def test_gsc2_brd_1_contact_then_pods_then_teleporters_then_combat() -> None:
    """GSC2-BRD-1."""
    st = _board(contact=True, assault_squads=3)
    st = apply(R, st, when(R, st, C.Board(ship="a", target="b", method="teleport", assault=1), RED))
    st = apply(R, st, when(R, st, C.LaunchPod(ship="a", squad="assault"), RED))
    st = apply(R, st, when(R, st, C.MovePod(pod="p1", ram="b"), RED))
    st = apply(R, st, when(R, st, C.Board(ship="a", target="b", method="contact", assault=1), RED))
    st = apply(R, st, when(R, st, C.EndPhase(side="red"), RED))
    evs = when(R, st, C.EndPhase(side="blue"), BLUE, [1, 1] + [10] * 5)
    kinds = [e.method for e in of(evs, E.BoardingResolved)]
    assert kinds == ["contact", "pod", "teleport"]
    assert evs.index(of(evs, E.TroopCombat)[0]) > evs.index(of(evs, E.BoardingResolved)[-1])


def _aboard(boarders, b_kw=None):
    st = _board(contact=True, b_kw=b_kw)
    return R.evolve(
        st, E.BoardingResolved(method="contact", side="red", ship="a", target="b", arrived=boarders, failed=E.Troops())
    )


def test_gsc2_brd_5_crew_3_assault_5_heavy_7_and_casualties_crew_first() -> None:
    """GSC2-BRD-5."""
    st = _aboard(E.Troops(assault=1, heavy=1), b_kw={"assault_squads": 1})
    st = apply(R, st, when(R, st, C.EndPhase(side="red"), RED))
    # defenders: crew 2 (≤3), assault 1 (≤5); boarders: assault (≤5), heavy (≤7)
    evs = when(R, st, C.EndPhase(side="blue"), BLUE, [3, 4, 5, 6, 7])
    [fight] = of(evs, E.TroopCombat)
    assert [r.target for r in fight.rolls] == [3, 3, 5, 5, 7]
    assert fight.hits_by_defenders == 2 and fight.hits_by_boarders == 1
    assert fight.defenders == E.Troops(crew=1, assault=1)  # default order: crew first
    assert fight.boarders["red"] == E.Troops()


def test_gsc2_brd_5_own_casualty_order_and_saboteurs_roll_last() -> None:
    """GSC2-BRD-5."""
    st = _aboard(E.Troops(assault=2), b_kw={"assault_squads": 1})
    st = apply(R, st, when(R, st, C.CasualtyOrder(side="blue", order=("assault", "crew", "heavy")), BLUE))
    then_violation(R, st, C.CasualtyOrder(side="blue", order=("crew",)), "GSC2-BRD-5", actor=BLUE)
    st = apply(R, st, when(R, st, C.SendSaboteurs(ship="b", side="red", unit="assault", system="drive"), RED))
    then_violation(R, st, C.SendSaboteurs(ship="b", side="red", unit="heavy", system="drive"), "GSC2-BRD-5", actor=RED)
    st = apply(R, st, when(R, st, C.EndPhase(side="red"), RED))
    evs = when(R, st, C.EndPhase(side="blue"), BLUE, [10, 10, 10, 1, 5])
    [fight] = of(evs, E.TroopCombat)
    assert len(fight.rolls) == 4 and fight.defenders == E.Troops(crew=2, assault=0)  # blue loses assault first
    [sab] = of(evs, E.SystemSabotaged)
    assert sab.success and sab.sys.destroyed and sab.rolls[0].rule == "GSC2-BRD-5"
    assert evs.index(sab) > evs.index(fight)


def test_gsc2_brd_6_a_ship_with_no_crew_or_squads_is_captured() -> None:
    """GSC2-BRD-6."""
    st = _aboard(E.Troops(heavy=1), b_kw={"crew": 1})
    st = apply(R, st, when(R, st, C.EndPhase(side="red"), RED))
    evs = when(R, st, C.EndPhase(side="blue"), BLUE, [10, 1])
    assert of(evs, E.ShipCaptured) == [E.ShipCaptured(ship="b", by="red")]
    after = apply(R, st, evs)
    assert after.ships["b"].status == "captured"
    assert after.phase == "repairs"
    red_done = apply(R, after, when(R, after, C.EndPhase(side="red"), RED))
    [over] = of(when(R, red_done, C.EndPhase(side="blue"), BLUE), E.GameOver)
    assert over.winner == "red"  # GSC2-WIN-1: captured ships do not count


def _repairs(**kw):
    raw = scenario(ship("a", "red", repair=1, mds=3, **kw), ship("b", "blue", y=30))
    st = at_phase(started(raw, [9, 1]), "repairs")
    return R.evolve(
        st,
        E.DamageApplied(
            target="a",
            hits=(),
            absorbed=0,
            hull_damage=0,
            hull=10,
            destroyed=False,
            systems={
                "mds": Sys(kind="mds", level=1, max=3),
                "drive": Sys(kind="drive", level=0, max=8, destroyed=True),
            },
        ),
    )


def test_gsc2_rep_1_named_damaged_system_repaired_on_4_or_less() -> None:
    """GSC2-REP-1."""
    st = _repairs()
    then_violation(R, st, C.Repair(ship="a", system="drive"), "GSC2-REP-1", actor=RED)  # destroyed
    then_violation(R, st, C.Repair(ship="a", system="repair"), "GSC2-REP-1", actor=RED)  # not damaged
    assert C.Repair(ship="a", system="mds") in offered(st, RED)
    assert C.Repair(ship="a", system="drive") not in offered(st, RED)
    [ev] = when(R, st, C.Repair(ship="a", system="mds"), RED, [4])
    assert ev.success and ev.sys.level == 2 and ev.rolls[0].target == 4
    [ev] = when(R, st, C.Repair(ship="a", system="mds"), RED, [5])
    assert not ev.success and ev.sys.level == 1
    st = apply(R, st, [ev])
    then_violation(R, st, C.Repair(ship="a", system="mds"), "GSC2-REP-1", actor=RED)  # one unit, used


@pytest.mark.parametrize(("hulls", "winner"), [((10, 4), "red"), ((4, 10), "blue"), ((7, 7), None)])
def test_gsc2_win_1_turn_limit_compares_surviving_hull(hulls, winner) -> None:
    """GSC2-WIN-1."""
    raw = scenario(ship("a", "red", hull=hulls[0]), ship("b", "blue", y=30, hull=hulls[1]), turn_limit=1)
    st = at_phase(started(raw, [9, 1]), "repairs")
    [over] = when(R, st, C.ForcePhase(), UMPIRE)
    assert isinstance(over, E.GameOver) and over.winner == winner
    st = R.evolve(st, over)
    assert R.is_over(st) and offered(st, RED) == [] and st.winner == winner
    # once over, the service's common guard refuses every command (core.guards, GAME-OVER)
    with pytest.raises(RuleViolation) as info:
        guarded_decide(R, st, C.EndPhase(side="red"), RED, ScriptedDice([]))
    assert info.value.rule == GAME_OVER


def test_gsc2_win_1_last_side_standing_wins_at_the_end_of_the_turn() -> None:
    """GSC2-WIN-1."""
    raw = scenario(ship("a", "red"), ship("b", "blue", y=30))
    st = at_phase(started(raw, [9, 1]), "repairs")
    st = R.evolve(
        st, E.DamageApplied(target="b", hits=(), absorbed=0, hull_damage=10, hull=0, systems={}, destroyed=True)
    )
    [over] = when(R, st, C.ForcePhase(), UMPIRE)
    assert over.winner == "red"
    assert "red wins" in R.explain(over)


def test_gsc2_ump_1_umpire_rulings_for_open_systems() -> None:
    """GSC2-UMP-1."""
    cloak = {"id": "cl", "kind": "cloak", "level": 1}
    raw = scenario(ship("a", "red", systems=[cloak]), ship("b", "blue", y=30))
    st = started(raw, [9, 1])
    with pytest.raises(NotYourPiece):
        when(R, st, C.MakeRuling(ship="a", system="cl", effect="-2 to be hit"), RED)
    then_violation(R, st, C.MakeRuling(ship="a", system="nope", effect="x"), "GSC2-UMP-1")
    [ev] = when(R, st, C.MakeRuling(ship="a", system="cl", effect="-2 to be hit while cloaked"), UMPIRE)
    st = R.evolve(st, ev)
    assert st.rulings[0].effect == "-2 to be hit while cloaked"
    assert R.view(st, UMPIRE)["rulings"][0]["system"] == "cl"


def test_gsc2_ump_1_the_state_keeps_the_last_rulings_the_log_keeps_all() -> None:
    """GSC2-UMP-1: rulings are shown, never read back by a rule: a long game's state keeps the last
    RECENT_RULINGS of them (issue 31: the state and each fold's copying no longer grow with the log)."""
    from service.domain.gsc2.state import RECENT_RULINGS

    cloak = {"id": "cl", "kind": "cloak", "level": 1}
    st = started(scenario(ship("a", "red", systems=[cloak]), ship("b", "blue", y=30)), [9, 1])
    for i in range(RECENT_RULINGS + 3):
        [ev] = when(R, st, C.MakeRuling(ship="a", system="cl", effect=f"ruling {i}"), UMPIRE)
        st = R.evolve(st, ev)
    assert len(st.rulings) == RECENT_RULINGS
    assert [r.effect for r in st.rulings[:1] + st.rulings[-1:]] == ["ruling 3", f"ruling {RECENT_RULINGS + 2}"]
