"""Crew and roles (SF-ROLE) and the round (SF-RND)."""

from __future__ import annotations

import pytest

from service.domain.core import NotYourPiece, RuleViolation
from service.domain.core.guards import GAME_OVER, guarded_decide
from tests.support.decider import ScriptedDice

from .helpers import UMPIRE, A, B, C, E, R, apply, at, crew, duel, of, place, seat, ship, then_violation, when


def test_sf_role_1_passengers_act_in_no_phase_and_single_roles_hold_one() -> None:
    """SF-ROLE-1."""
    st = duel({"crew": [crew("captain", "captain"), crew("pilot", "pilot"), crew("guest", "passenger")]})
    then_violation(R, st, C.Pass(seat="a/guest"), "SF-ROLE-1", seat("a/guest"))
    then_violation(R, st, C.BattleStations(seat="a/guest"), "SF-ROLE-1", seat("a/guest"))
    # the passenger may take a free role, but not the pilot's
    [ev] = when(R, st, C.ChangeRole(seat="a/guest", role="gunner"), seat("a/guest"))
    assert ev == E.RoleChangeRequested(seat="a/guest", role="gunner")
    then_violation(R, st, C.ChangeRole(seat="a/guest", role="pilot"), "SF-ROLE-1", seat("a/guest"))
    # several engineers are fine
    st2 = apply(R, st, [ev])
    assert when(R, st2, C.ChangeRole(seat="a/captain", role="gunner"), seat("a/captain"))


def test_sf_role_2_each_role_acts_in_its_phase_and_the_captain_once_a_round() -> None:
    """SF-ROLE-2."""
    st = duel()
    assert st.phase == "engineering"
    then_violation(R, st, C.Move(seat="a/pilot", path="F"), "SF-ROLE-2", A["pilot"])
    then_violation(R, st, C.Fire(seat="a/gunner", weapon="laser", target="b"), "SF-ROLE-2", A["gunner"])
    evs = when(R, st, C.Encourage(seat="a/captain", crew="a/engineer"), A["captain"], [15])
    assert evs[0].success
    st = apply(R, st, evs)
    assert st.crew["a/engineer"].bonus == 2
    v = then_violation(R, st, C.Encourage(seat="a/captain", crew="a/pilot"), "SF-ROLE-2", A["captain"])
    assert v.detail == "a/captain has taken its one captain action per round"
    # the captain may act in the helm phase instead, in its ship's turn
    st = at(duel(), "helm")
    evs = when(R, st, C.Encourage(seat="a/captain", crew="a/pilot"), A["captain"], [2])
    assert not evs[0].success


def test_sf_role_3_role_changes_take_effect_when_the_next_round_begins() -> None:
    """SF-ROLE-3."""
    st = duel()
    st = apply(R, st, when(R, st, C.ChangeRole(seat="a/science", role="gunner"), A["science"]))
    assert st.crew["a/science"].role == "science_officer" and st.crew["a/science"].next_role == "gunner"
    then_violation(R, st, C.ChangeRole(seat="a/science", role="gunner"), "SF-ROLE-3", A["science"])
    then_violation(R, st, C.ChangeRole(seat="a/science", role="admiral"), "SF-ROLE-3", A["science"])
    st = at(st, "gunnery", slot=1)
    st = apply(R, st, when(R, st, C.ForcePhase(), UMPIRE))
    assert st.round == 2 and st.phase == "engineering"
    assert st.crew["a/science"].role == "gunner" and st.crew["a/science"].next_role is None
    started = [
        e
        for e in when(
            R,
            at(
                apply(R, duel(), when(R, duel(), C.ChangeRole(seat="a/gunner", role="engineer"), A["gunner"])),
                "gunnery",
                slot=1,
            ),
            C.ForcePhase(),
            UMPIRE,
        )
        if isinstance(e, E.RoundStarted)
    ]
    assert started[0].roles == {"a/gunner": "engineer"}


def test_sf_role_4_a_seat_commands_only_its_crew_member_and_role() -> None:
    """SF-ROLE-4."""
    st = duel()
    with pytest.raises(NotYourPiece) as info:
        when(R, st, C.Patch(seat="b/engineer", system="sensors"), A["engineer"])
    assert info.value.rule == "SF-ROLE-4" and info.value.status == 403
    with pytest.raises(NotYourPiece):
        when(R, st, C.Pass(seat="a/engineer"), A["gunner"])  # same ship, another crew member
    then_violation(R, st, C.Divert(seat="a/gunner", to="engines"), "SF-ROLE-4", A["gunner"])
    then_violation(R, st, C.Pass(seat="a/nobody"), "SF-ROLE-4", UMPIRE)
    # the umpire may act for any seat
    [ev] = when(R, st, C.Divert(seat="a/engineer", to="engines"), UMPIRE)
    assert isinstance(ev, E.EngineeringDeclared)
    assert R.seats(
        R.parse_setup(
            {
                "name": "t",
                "sides": ["pact", "corsairs"],
                "ships": [ship("a", "pact"), ship("b", "corsairs", hex=(3, 3))],
            }
        )
    )[:2] == ["a/captain", "a/pilot"]


def test_sf_role_5_battle_stations_is_seen_by_ships_with_working_sensors_and_gates_gunnery() -> None:
    """SF-ROLE-5."""
    raw_b = {"battle_stations": False}
    st = duel({"battle_stations": False}, raw_b)
    st = place(st, "b", 0, -4, conditions={"sensors": 3})  # wrecked sensors see nothing
    st = apply(R, st, [])
    g = at(st, "gunnery")
    then_violation(R, g, C.Fire(seat="a/gunner", weapon="laser", target="b"), "SF-ROLE-5", A["gunner"])
    [ev] = when(R, st, C.BattleStations(seat="a/captain"), A["captain"])
    assert ev.ship == "a" and ev.seen_by == ()  # b's sensors are wrecked
    [ev] = when(R, st, C.BattleStations(seat="b/pilot"), B["pilot"])
    assert ev.seen_by == ("a",)
    st = apply(R, st, [ev])
    assert st.ships["b"].battle_stations and R.view(st, seat("a/pilot"))["ships"][1]["battle_stations"]
    then_violation(R, st, C.BattleStations(seat="b/captain"), "SF-ROLE-5", B["captain"])
    assert "battle stations" in R.explain(ev)


def test_sf_rnd_1_engineering_then_helm_then_gunnery_then_a_new_round() -> None:
    """SF-RND-1."""
    st = duel()
    seen = [st.phase]
    for _ in range(3):
        st = apply(R, st, when(R, st, C.ForcePhase(), UMPIRE))
        seen.append(st.phase)
    assert seen == ["engineering", "helm", "gunnery", "engineering"] and st.round == 2
    assert R.clock(st).turn == 2
    # a side without a ship able to fight ends the battle after gunnery; then nothing more is accepted
    st = at(place(duel(), "b", 0, -4, hull=0, status="disabled"), "gunnery", order=("a",))
    evs = when(R, st, C.ForcePhase(), UMPIRE)
    over = of(evs, E.GameOver)[0]
    assert over.winner == "pact"
    st = apply(R, st, evs)
    assert R.is_over(st) and R.options(st, A["pilot"]) == [] and R.forms(st, A["pilot"]) == []
    # the service's common guard refuses every command once the battle is over (core.guards)
    with pytest.raises(RuleViolation) as info:
        guarded_decide(R, st, C.Pass(seat="a/pilot"), A["pilot"], ScriptedDice([]))
    assert info.value.rule == GAME_OVER


def test_sf_rnd_1_a_seat_done_with_the_phase_is_not_asked_again() -> None:
    """SF-RND-1."""
    st = duel()
    st = apply(R, st, when(R, st, C.Pass(seat="a/engineer"), A["engineer"]))
    then_violation(R, st, C.Patch(seat="a/engineer", system="sensors"), "SF-RND-1", A["engineer"])


def test_sf_rnd_2_engineering_is_collected_then_resolved_together() -> None:
    """SF-RND-2."""
    st = place(
        duel(), "a", 0, 0, conditions={"sensors": 2}, shields={"forward": 0, "starboard": 5, "aft": 5, "port": 5}
    )
    then_violation(R, st, C.Patch(seat="a/engineer", system="engines"), "SF-RND-2", A["engineer"])
    then_violation(R, st, C.Divert(seat="a/engineer", to="shields", shields={"forward": 3}), "SF-RND-2", A["engineer"])
    evs = when(R, st, C.Patch(seat="a/engineer", system="sensors"), A["engineer"], [])
    assert [type(e) for e in evs] == [E.EngineeringDeclared]  # nothing rolls yet
    st = apply(R, st, evs)
    st = apply(R, st, when(R, st, C.Divert(seat="b/engineer", to="shields", shields={"aft": 4}), B["engineer"]))
    st = apply(R, st, when(R, st, C.Pass(seat="b/captain"), B["captain"]))
    # the last awaited seat: both actions resolve (patch DC 15 + 2 = 17; divert DC 12), then helm begins
    evs = when(R, st, C.Pass(seat="a/captain"), A["captain"], [12, 7, 10, 11])
    res = of(evs, E.EngineeringResolved)
    assert [(r.seat, r.dc, r.success) for r in res] == [("a/engineer", 17, True), ("b/engineer", 12, True)]
    st = apply(R, st, evs)
    assert st.ships["a"].patched == {"sensors": 1} and st.ships["a"].condition("sensors") == 1
    assert st.ships["a"].conditions == {"sensors": 2}  # the condition itself stays
    assert st.ships["b"].shields["aft"] == 5  # 5% of 80 PCU = 4, capped at the 20-point maximum (SF-R-15)
    assert st.phase == "helm"


def test_sf_rnd_2_divert_to_the_engines_adds_two_speed() -> None:
    """SF-RND-2."""
    st = duel()
    st = apply(R, st, when(R, st, C.Divert(seat="a/engineer", to="engines"), A["engineer"]))
    st = apply(R, st, when(R, st, C.ForcePhase(), UMPIRE, [10, 10, 11]))
    assert st.ships["a"].speed_bonus == 2
    st = at(st, "helm")
    assert when(R, st, C.Move(seat="a/pilot", path="F" * 10), A["pilot"])
    then_violation(R, st, C.Move(seat="a/pilot", path="F" * 11), "SF-MOV-1", A["pilot"])
    then_violation(R, st, C.Divert(seat="a/engineer", to="warp"), "SF-ROLE-2", A["engineer"])


def test_sf_rnd_3_science_officers_scan_lock_on_and_improve_countermeasures() -> None:
    """SF-RND-3."""
    st = at(duel(), "helm")
    [ev] = when(R, st, C.Scan(seat="a/science", target="b"), A["science"], [7])  # 7 + 5 = 12 vs DC 12
    assert ev.success and ev.dc == 12
    assert apply(R, st, [ev]).ships["b"].revealed_to == ("pact",)
    [ev] = when(R, st, C.LockOn(seat="a/science", target="b"), A["science"], [7])
    st2 = apply(R, st, [ev])
    assert st2.ships["a"].locks == ("b",)
    g = at(st2, "gunnery")
    [shot] = of(when(R, g, C.Fire(seat="a/gunner", weapon="laser", target="b"), A["gunner"], [1]), E.Attacked)
    assert ("SF-RND-3", 2) in [(m.rule, m.value) for m in shot.rolls[0].modifiers]
    [ev] = when(R, st, C.Countermeasures(seat="a/science", target="b"), A["science"], [6])
    assert not ev.success
    then_violation(R, st, C.LockOn(seat="a/science", target="a"), "SF-RND-3", A["science"])
    then_violation(R, st, C.Scan(seat="a/science", target="zzz"), "SF-RND-3", A["science"])
    then_violation(R, st2, C.LockOn(seat="a/science", target="b"), "SF-R-3", A["science"])  # one action a round


def test_the_decide_skeleton_types_each_refusal() -> None:
    """core.decider: an unknown command, another seat's piece, the wrong phase, the rule: each typed."""
    from service.domain.core import Command, Dice, UnknownCommand, WrongPhase
    from service.domain.starfinder.decide import DECIDER

    class Warp(Command, frozen=True, tag="starfinder.warp"):
        seat: str

    st = duel()
    with pytest.raises(UnknownCommand) as unknown:
        when(R, st, Warp(seat="a/pilot"), A["pilot"])
    assert unknown.value.rule == "UNKNOWN-COMMAND" and unknown.value.code == "unknown-command"
    with pytest.raises(NotYourPiece) as theirs:
        when(R, st, C.Pass(seat="b/pilot"), A["pilot"])
    assert theirs.value.rule == "SF-ROLE-4" and theirs.value.code == "not-your-piece"
    with pytest.raises(NotYourPiece) as umpire:
        when(R, st, C.ForcePhase(), A["captain"])
    assert umpire.value.rule == "SF-R-2"
    with pytest.raises(WrongPhase) as phase:
        when(R, st, C.Move(seat="a/pilot", path="F"), A["pilot"])
    assert phase.value.rule == "SF-ROLE-2" and phase.value.code == "wrong-phase"
    # decide's accumulated state is the fold of its events
    acc = DECIDER.run(st, C.ForcePhase(), UMPIRE, Dice(b"seed", "g_skeleton", 1))
    assert apply(R, st, acc.events) == acc.state
