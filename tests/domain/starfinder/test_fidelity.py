"""Rules fidelity (issue 15): hand-computed outcomes from the seed, roll by roll.

- every Piloting check — the helm order's and each stunt's — carries the speed (SF-HELM-2) and manoeuvrability
  (SF-HELM-3) modifiers: "A starship's maximum speed modifies Piloting checks for that starship";
- a phase nobody can act in resolves by itself (SF-R-3), and the first command opens round 1 (SF-R-21);
- patching the power core takes no penalty from the power core (SF-R-6).
"""

from __future__ import annotations

import pytest

from service.domain.starfinder.flow import awaited

from .helpers import (
    UMPIRE,
    A,
    B,
    C,
    E,
    R,
    apply,
    at,
    crew,
    duel,
    given,
    of,
    place,
    scenario,
    seat,
    ship,
    then_violation,
    when,
)

# the ship: tier 2, speed 14, clumsy, pilot +5 (DC 10 + 2 x 2 = 14 for most stunts)
FAST_CLUMSY = {"tier": 2, "speed": 14, "maneuverability": "clumsy"}
AWAY = (9, 0)


def _mods(roll) -> list[tuple[str, int]]:
    return [(m.why, m.value) for m in roll.modifiers]


def test_sf_helm_2_and_3_modify_the_evade_check_as_they_do_the_helm_order() -> None:
    """SF-HELM-2, SF-HELM-3, SF-STUNT-3: d20 6 + 5 − 2 (speed 14) − 2 (clumsy) = 7 vs DC 14 fails by 7, so the
    −2 AC and TL of failing by 5 or more applies (without the two modifiers it would fail by only 3)."""
    st = at(duel(FAST_CLUMSY, b_hex=AWAY), "helm")
    [m] = of(when(R, st, C.Evade(seat="a/pilot", path="F"), A["pilot"], [6]), E.ShipMoved)
    [roll] = m.rolls
    assert _mods(roll) == [("Piloting", 5), ("speed 14", -2), ("clumsy manoeuvrability", -2)]
    assert (m.dc, m.margin, m.success, m.defence) == (14, -7, False, -2)
    st = apply(R, st, [m])
    assert st.ships["a"].defence == -2
    # the same ship's helm-order check carries the same two modifiers
    [order] = of(when(R, duel(FAST_CLUMSY), C.ForcePhase(), UMPIRE, [6, 10]), E.HelmOrderSet)
    assert _mods(order.rolls[0]) == _mods(roll) and order.results == {"a": 7, "b": 15}
    # rejection path: malfunctioning engines allow no stunt at all, so no check is rolled
    broken = at(place(duel(FAST_CLUMSY, b_hex=AWAY), "a", 0, 0, conditions={"engines": 2}), "helm")
    then_violation(R, broken, C.Evade(seat="a/pilot", path="F"), "SF-DMG-5", A["pilot"])


@pytest.mark.parametrize(
    "cmd, rule, dc",
    [
        (C.BackOff(seat="a/pilot", hexes=1), "SF-STUNT-1", 12),
        (C.BarrelRoll(seat="a/pilot", hexes=1), "SF-STUNT-2", 12),
        (C.Evade(seat="a/pilot", path="F"), "SF-STUNT-3", 12),
        (C.FlipAndBurn(seat="a/pilot", hexes=1), "SF-STUNT-4", 17),
        (C.Slide(seat="a/pilot", hexes=1, side="port"), "SF-STUNT-6", 12),
    ],
)
def test_sf_helm_2_and_3_modify_every_stunt_check(cmd, rule: str, dc: int) -> None:
    """SF-HELM-2, SF-HELM-3: a slow, perfectly manoeuvrable tier-1 ship gets +2 and +2 on each stunt's check."""
    st = at(duel({"speed": 4, "maneuverability": "perfect"}, b_hex=AWAY), "helm")
    [m] = of(when(R, st, cmd, A["pilot"], [dc - 9]), E.ShipMoved)  # d20 + 5 + 2 + 2 = dc exactly
    assert _mods(m.rolls[0]) == [("Piloting", 5), ("speed 4", 2), ("perfect manoeuvrability", 2)]
    assert m.rolls[0].rule == rule and m.success is True and m.margin == 0


def test_sf_helm_2_the_flyby_check_carries_them_too() -> None:
    """SF-HELM-2, SF-HELM-3, SF-STUNT-5: DC 20 + 2 × the enemy's tier; d20 13 + 5 − 2 − 2 = 14 fails by 8."""
    st = at(duel(FAST_CLUMSY, {"battle_stations": False}, b_hex=(0, -2)), "helm")
    [m] = of(when(R, st, C.Flyby(seat="a/pilot", path="FFF", enemy="b"), A["pilot"], [13]), E.ShipMoved)
    assert _mods(m.rolls[0]) == [("Piloting", 5), ("speed 14", -2), ("clumsy manoeuvrability", -2)]
    assert (m.dc, m.margin, m.flyby) == (22, -8, None)
    then_violation(R, st, C.Flyby(seat="a/pilot", path="F", enemy="b"), "SF-STUNT-5", A["pilot"])


PILOT_AND_GUNNER = [crew("pilot", "pilot", piloting=5, piloting_ranks=2), crew("gunner", "gunner", gunnery=4)]


def _pilot_and_gunner(**kw) -> object:
    return given(
        R,
        scenario(
            ship("a", "pact", crew=PILOT_AND_GUNNER, **kw),
            ship("b", "corsairs", hex=(0, -4), facing=3, crew=PILOT_AND_GUNNER, **kw),
        ),
    )


def test_sf_r_3_an_engineering_phase_nobody_can_act_in_resolves_at_once() -> None:
    """SF-R-3, SF-R-21: two crews of a pilot and a gunner never sit in engineering with nobody awaited."""
    st = _pilot_and_gunner()
    assert not st.opened and set(awaited(st)) == {"a/pilot", "a/gunner", "b/pilot", "b/gunner"}
    [begin] = [o for o in R.options(st, seat("a/gunner")) if o.rule == "SF-R-21"]
    assert begin.label.startswith("Begin the battle")
    # rejection path: a pilot cannot move before the helm phase, the battle not yet begun
    then_violation(R, st, C.Move(seat="a/pilot", path="F"), "SF-ROLE-2", seat("a/pilot"))
    evs = when(R, st, begin.command, seat("a/gunner"), [10, 4])  # piloting: a 10 + 5 = 15, b 4 + 5 = 9
    assert [type(e) for e in evs] == [E.PhaseStarted, E.PhaseStarted, E.HelmOrderSet, E.SlotOpened]
    assert (evs[0].round, evs[0].phase, evs[1].phase) == (1, "engineering", "helm")
    st = apply(R, st, evs)
    assert (st.phase, st.slot_ship, awaited(st)) == ("helm", "b", ["b/pilot"])
    # round 2's engineering phase resolves by itself too, with the command that ended round 1's gunnery
    st = apply(R, st, when(R, st, C.Move(seat="b/pilot"), seat("b/pilot")))
    st = apply(R, st, when(R, st, C.Move(seat="a/pilot"), seat("a/pilot")))
    assert (st.phase, st.slot_ship, awaited(st)) == ("gunnery", "b", ["b/gunner"])
    st = apply(R, st, when(R, st, C.Pass(seat="b/gunner"), seat("b/gunner")))
    evs = when(R, st, C.Pass(seat="a/gunner"), seat("a/gunner"), [3, 12])
    assert [type(e) for e in evs] == [
        E.Passed,
        E.RoundStarted,
        E.PhaseStarted,
        E.PhaseStarted,
        E.HelmOrderSet,
        E.SlotOpened,
    ]
    st = apply(R, st, evs)
    assert (st.round, st.phase, awaited(st)) == (2, "helm", ["a/pilot"])


def test_sf_r_3_a_gunner_with_no_weapon_bearing_is_not_awaited() -> None:
    """SF-R-3: the gunnery slot of a ship whose only weapon bears on nobody moves on by itself."""
    st = at(duel(b_hex=(0, 4), b_facing=0), "gunnery", order=("a", "b"))  # b astern of a, a ahead of b
    assert "a/gunner" not in awaited(st) and awaited(st) == ["a/captain"]
    then_violation(R, st, C.Fire(seat="a/gunner", weapon="laser", target="b"), "SF-GUN-3", A["gunner"])
    st = apply(R, st, when(R, st, C.Pass(seat="a/captain"), A["captain"]))
    assert st.slot_ship == "b" and "b/gunner" in awaited(st)


def test_sf_r_21_the_first_command_opens_round_1_like_every_later_phase() -> None:
    """SF-R-21: round 1's engineering phase has its phase_started event, emitted with the first command."""
    st = given(R, scenario(ship("a", "pact"), ship("b", "corsairs", hex=(0, -4), facing=3)))
    assert not st.opened
    evs = when(R, st, C.Divert(seat="a/engineer", to="engines"), A["engineer"])
    assert [type(e) for e in evs] == [E.PhaseStarted, E.EngineeringDeclared]
    assert (evs[0].round, evs[0].phase) == (1, "engineering")
    assert R.explain(evs[0]) == "Round 1: the engineering phase begins."
    st = apply(R, st, evs)
    assert st.opened and [type(e) for e in when(R, st, C.Pass(seat="b/engineer"), B["engineer"])] == [E.Passed]
    # a refused first command opens nothing
    then_violation(
        R,
        given(R, scenario(ship("a", "pact"), ship("b", "corsairs", hex=(0, -4)))),
        C.Fire(seat="a/gunner", weapon="laser", target="b"),
        "SF-ROLE-2",
        A["gunner"],
    )


def test_sf_r_6_patching_the_power_core_takes_no_penalty_from_it() -> None:
    """SF-R-6: DC 15 + 2 (malfunctioning, tier 1) = 17; d20 12 + 5 = 17 patches it. Patching the sensors with the
    same power core takes its −4 (d20 12 + 5 − 4 = 13 vs 17 fails)."""
    st = place(duel(), "a", 0, 0, conditions={"power_core": 2, "sensors": 2})
    st = apply(R, st, when(R, st, C.Patch(seat="a/engineer", system="power_core"), A["engineer"]))
    evs = when(R, st, C.ForcePhase(), UMPIRE, [12, 10, 11])  # the patch, then both helm-order checks
    [res] = of(evs, E.EngineeringResolved)
    assert (res.system, res.dc, res.success, res.patched) == ("power_core", 17, True, 1)
    assert _mods(res.rolls[0]) == [("Engineering", 5)]
    st = place(duel(), "a", 0, 0, conditions={"power_core": 2, "sensors": 2})
    st = apply(R, st, when(R, st, C.Patch(seat="a/engineer", system="sensors"), A["engineer"]))
    [res] = of(when(R, st, C.ForcePhase(), UMPIRE, [12, 10, 11]), E.EngineeringResolved)
    assert _mods(res.rolls[0]) == [("Engineering", 5), ("power core malfunctioning", -4)] and not res.success
    # rejection path: a system with nothing to patch
    st = place(duel(), "a", 0, 0, conditions={"power_core": 2})
    then_violation(R, st, C.Patch(seat="a/engineer", system="engines"), "SF-RND-2", A["engineer"])
