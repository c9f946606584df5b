"""Helm order (SF-HELM), movement (SF-MOV) and stunts (SF-STUNT)."""

from __future__ import annotations

import pytest

from service.domain.core import InvalidScenario
from service.domain.core.hexgrid import Hex
from service.domain.starfinder.checks import defence, speed_modifier

from .helpers import UMPIRE, A, B, C, E, R, apply, at, crew, duel, of, place, scenario, seat, ship, then_violation, when

AWAY = (6, 0)  # b out of the way of a's moves


def _helm(a_kw=None, b_kw=None, b_hex=AWAY, b_facing=3):
    return at(duel(a_kw, b_kw, b_hex=b_hex, b_facing=b_facing), "helm")


def _moved(evs):
    [m] = of(evs, E.ShipMoved)
    return m


def test_sf_helm_1_each_pilot_rolls_piloting_and_a_pilotless_ship_counts_zero() -> None:
    """SF-HELM-1."""
    st = duel()
    evs = when(R, st, C.ForcePhase(), UMPIRE, [12, 3])
    [order] = of(evs, E.HelmOrderSet)
    assert order.results == {"a": 17, "b": 8} and order.order == ("b", "a")
    assert [r.rule for r in order.rolls] == ["SF-HELM-1", "SF-HELM-1"]
    assert "lowest first" in R.explain(order)
    # no pilot: a result of 0 without a roll; two pilotless ships break the tie by a seeded roll
    nopilot = [crew("captain", "captain"), crew("gunner", "gunner")]
    st = duel({"crew": nopilot}, {"crew": nopilot})
    [order] = of(when(R, st, C.ForcePhase(), UMPIRE, [4, 9]), E.HelmOrderSet)
    assert order.results == {"a": 0, "b": 0} and order.order == ("a", "b")
    assert [r.purpose for r in order.rolls] == ["tie-break roll (a, no pilot)", "tie-break roll (b, no pilot)"]
    # nobody else can fly a pilotless ship
    st = at(duel({"crew": nopilot}), "helm")
    then_violation(R, st, C.Move(seat="a/gunner", path="F"), "SF-ROLE-4", seat("a/gunner"))


@pytest.mark.parametrize(
    ("spd", "mod"),
    [(2, 2), (4, 2), (5, 1), (6, 1), (7, 0), (8, 0), (10, 0), (11, -1), (12, -1), (13, -2), (14, -2), (20, -2)],
)
def test_sf_helm_2_speed_modifier_with_the_odd_speed_ruling(spd: int, mod: int) -> None:
    """SF-HELM-2."""
    assert speed_modifier(spd) == mod


def test_sf_helm_2_speed_enters_the_piloting_check_and_must_not_be_negative() -> None:
    """SF-HELM-2."""
    st = duel({"speed": 4})
    [order] = of(when(R, st, C.ForcePhase(), UMPIRE, [10, 13]), E.HelmOrderSet)
    assert ("SF-HELM-2", 2) in [(m.rule, m.value) for m in order.rolls[0].modifiers]
    with pytest.raises(InvalidScenario) as info:
        R.parse_setup(scenario(ship("a", "pact", speed=-1), ship("b", "corsairs", hex=(2, 2))))
    assert info.value.path == "ships[0].speed" and "SF-HELM-2" in info.value.detail


def test_sf_helm_3_manoeuvrability_modifies_piloting_and_sets_turn_distance() -> None:
    """SF-HELM-3."""
    st = duel({"maneuverability": "clumsy"}, {"maneuverability": "perfect"})
    [order] = of(when(R, st, C.ForcePhase(), UMPIRE, [10, 10]), E.HelmOrderSet)
    assert order.results == {"a": 13, "b": 17}
    with pytest.raises(InvalidScenario) as info:
        R.parse_setup(scenario(ship("a", "pact", maneuverability="nimble"), ship("b", "corsairs", hex=(2, 2))))
    assert info.value.path == "ships[0].maneuverability" and "SF-HELM-3" in info.value.detail


def test_sf_helm_4_lowest_first_ties_by_fewer_ranks_then_a_new_roll() -> None:
    """SF-HELM-4."""
    st = duel(
        {"crew": [crew("pilot", "pilot", piloting=5, piloting_ranks=4)]},
        {"crew": [crew("pilot", "pilot", piloting=5, piloting_ranks=1)]},
    )
    [order] = of(when(R, st, C.ForcePhase(), UMPIRE, [10, 10]), E.HelmOrderSet)
    assert order.order == ("b", "a")  # tied 15: fewer ranks (b) moves first
    st = duel()
    [order] = of(when(R, st, C.ForcePhase(), UMPIRE, [10, 10, 14, 6]), E.HelmOrderSet)
    assert order.order == ("b", "a") and [r.rule for r in order.rolls][2:] == ["SF-HELM-4", "SF-HELM-4"]
    # moving out of turn
    st = _helm()
    then_violation(R, st, C.Move(seat="b/pilot", path="F"), "SF-HELM-4", B["pilot"])


def test_sf_helm_5_science_officers_act_just_before_or_after_their_pilot() -> None:
    """SF-HELM-5."""
    st = _helm()
    before = when(R, st, C.Scan(seat="a/science", target="b"), A["science"], [15])
    assert before[0].success
    st2 = apply(R, st, when(R, st, C.Move(seat="a/pilot", path="F"), A["pilot"]))
    after = when(R, st2, C.LockOn(seat="a/science", target="b"), A["science"], [15])
    assert after[0].success
    then_violation(R, st, C.Scan(seat="b/science", target="a"), "SF-HELM-5", B["science"])


def test_sf_mov_1_up_to_speed_straight_ahead() -> None:
    """SF-MOV-1."""
    st = _helm()
    m = _moved(when(R, st, C.Move(seat="a/pilot", path="FFF"), A["pilot"]))
    assert m.path == (Hex(0, 0), Hex(0, -1), Hex(0, -2), Hex(0, -3)) and m.facing == 0
    assert _moved(when(R, st, C.Move(seat="a/pilot", path=""), A["pilot"])).path == (Hex(0, 0),)
    then_violation(R, st, C.Move(seat="a/pilot", path="F" * 9), "SF-MOV-1", A["pilot"])
    then_violation(R, st, C.Move(seat="a/pilot", path="FX"), "SF-MOV-1", A["pilot"])
    st = apply(R, st, when(R, st, C.Move(seat="a/pilot", path="F"), A["pilot"]))
    then_violation(R, st, C.Move(seat="a/pilot", path="F"), "SF-R-3", A["pilot"])  # one move a round


def test_sf_mov_2_distance_between_turns() -> None:
    """SF-MOV-2."""
    st = _helm()  # average: 2 hexes before each turn
    m = _moved(when(R, st, C.Move(seat="a/pilot", path="FFRFFL"), A["pilot"]))
    assert m.turns == 2 and m.facing == 0 and m.path[-1] == Hex(2, -4)
    then_violation(R, st, C.Move(seat="a/pilot", path="FRF"), "SF-MOV-2", A["pilot"])
    then_violation(R, st, C.Move(seat="a/pilot", path="FFRFL"), "SF-MOV-2", A["pilot"])
    then_violation(R, st, C.Move(seat="a/pilot", path="R"), "SF-MOV-2", A["pilot"])
    good = _helm({"maneuverability": "good"})
    assert _moved(when(R, good, C.Move(seat="a/pilot", path="FRFR"), A["pilot"])).facing == 2


def test_sf_mov_3_pass_through_but_never_end_in_a_ship_and_enemies_take_a_free_attack() -> None:
    """SF-MOV-3."""
    st = at(duel(), "helm")  # b sits 4 hexes ahead
    then_violation(R, st, C.Move(seat="a/pilot", path="FFFF"), "SF-MOV-3", A["pilot"])
    # d20 15 + gunner 4 = 19 vs AC 12: hit; 2d4 = 3 + 4 = 7 on the aft: 5 to shields, 2 to the hull, at once
    evs = when(R, st, C.Move(seat="a/pilot", path="FFFFF"), A["pilot"], [15, 3, 4])
    assert [type(e) for e in evs] == [E.ShipMoved, E.Attacked, E.DamageApplied]
    atk, dmg = evs[1], evs[2]
    assert atk.kind == "free" and atk.needed == 12 and atk.hit and atk.quadrant == "aft" and atk.damage == 7
    assert (dmg.quadrant, dmg.absorbed, dmg.hull_damage, dmg.hull) == ("aft", 5, 2, 28)
    st2 = apply(R, st, evs)
    assert st2.ships["b"].fired == ()  # a free attack does not use the weapon's fire for the round
    # a friendly ship is passed through freely
    st = at(given_friend(), "helm")
    assert [type(e) for e in when(R, st, C.Move(seat="a/pilot", path="FFF"), A["pilot"])] == [E.ShipMoved]


def given_friend():
    from tests.support.decider import given

    return given(R, scenario(ship("a", "pact"), ship("f", "pact", hex=(0, -1)), ship("b", "corsairs", hex=(6, 0))))


def test_sf_mov_4_disabled_ships_act_no_more_and_drift_last_at_half_speed() -> None:
    """SF-MOV-4."""
    st = place(duel(b_hex=AWAY), "b", 6, 0, facing=3, hull=-3, status="disabled")
    st = at(st, "helm", order=("a",))
    then_violation(R, st, C.Pass(seat="b/pilot"), "SF-MOV-4", B["pilot"])
    evs = when(R, st, C.ForcePhase(), UMPIRE)
    drift = [m for m in of(evs, E.ShipMoved) if m.manoeuvre == "drift"]
    assert drift[0].ship == "b" and drift[0].path[-1] == Hex(6, 4)  # speed 8: 4 hexes south
    phases = [e.phase for e in of(evs, E.PhaseStarted)]
    assert evs.index(drift[0]) < evs.index(of(evs, E.PhaseStarted)[0]) and phases[0] == "gunnery"


def test_sf_stunt_1_back_off() -> None:
    """SF-STUNT-1."""
    st = _helm()
    m = _moved(when(R, st, C.BackOff(seat="a/pilot", hexes=3), A["pilot"], [10]))  # 15 vs DC 12
    assert m.success and m.path[-1] == Hex(0, 3) and m.facing == 0
    m = _moved(when(R, st, C.BackOff(seat="a/pilot", hexes=3), A["pilot"], [5]))  # 10: fail, 1 hex
    assert not m.success and m.path[-1] == Hex(0, 1) and m.defence == 0
    m = _moved(when(R, st, C.BackOff(seat="a/pilot", hexes=3), A["pilot"], [2]))  # 7: fail by 5
    assert m.path == (Hex(0, 0),) and m.defence == -4
    assert defence(apply(R, st, [m]), "a", "AC")[0] == 12 - 4
    then_violation(R, st, C.BackOff(seat="a/pilot", hexes=5), "SF-STUNT-1", A["pilot"])


def test_sf_stunt_2_barrel_roll_swaps_port_and_starboard_for_gunnery() -> None:
    """SF-STUNT-2."""
    st = _helm({"weapons": [{"id": "p", "arc": "port", "damage": "1d4"}]}, b_hex=(4, 0))
    m = _moved(when(R, st, C.BarrelRoll(seat="a/pilot", hexes=4), A["pilot"], [10]))
    assert m.success and m.rolled and m.path[-1] == Hex(0, -4)
    rolled = apply(R, st, [m])
    g = at(place(rolled, "a", 0, 0), "gunnery")  # b at (4, 0) lies to starboard
    fire = C.Fire(seat="a/gunner", weapon="p", target="b", quadrant="aft")
    [shot] = of(when(R, g, fire, A["gunner"], [1]), E.Attacked)
    assert shot.arc == "starboard"
    m = _moved(when(R, st, C.BarrelRoll(seat="a/pilot", hexes=4), A["pilot"], [1]))
    assert not m.rolled and m.path[-1] == Hex(0, -4) and m.defence == -4
    huge = _helm({"size": "Huge"})
    then_violation(R, huge, C.BarrelRoll(seat="a/pilot", hexes=2), "SF-STUNT-2", A["pilot"])
    then_violation(R, st, C.BarrelRoll(seat="a/pilot", hexes=5), "SF-STUNT-2", A["pilot"])


def test_sf_stunt_3_evade() -> None:
    """SF-STUNT-3."""
    st = _helm()
    m = _moved(when(R, st, C.Evade(seat="a/pilot", path="FFRFF"), A["pilot"], [8]))  # 13 vs 12
    assert m.success and m.defence == 2 and m.turns == 1
    assert defence(apply(R, st, [m]), "a", "TL")[0] == 14
    assert _moved(when(R, st, C.Evade(seat="a/pilot", path="FF"), A["pilot"], [5])).defence == 0
    assert _moved(when(R, st, C.Evade(seat="a/pilot", path="FF"), A["pilot"], [2])).defence == -2
    then_violation(R, st, C.Evade(seat="a/pilot", path="F" * 9), "SF-STUNT-3", A["pilot"])


def test_sf_stunt_4_flip_and_burn() -> None:
    """SF-STUNT-4."""
    st = _helm()
    m = _moved(when(R, st, C.FlipAndBurn(seat="a/pilot", hexes=4), A["pilot"], [12]))  # 17 vs DC 17
    assert m.success and m.facing == 3 and m.path[-1] == Hex(0, -4)
    m = _moved(when(R, st, C.FlipAndBurn(seat="a/pilot", hexes=4), A["pilot"], [11]))
    assert not m.success and m.facing == 0 and m.path[-1] == Hex(0, -4)
    then_violation(R, st, C.FlipAndBurn(seat="a/pilot", hexes=5), "SF-STUNT-4", A["pilot"])


def test_sf_stunt_5_flyby_skips_the_free_attack_and_fires_as_if_at_range_1() -> None:
    """SF-STUNT-5."""
    st = at(duel({"weapons": [{"id": "tail", "arc": "aft", "damage": "1d4"}]}), "helm")
    evs = when(R, st, C.Flyby(seat="a/pilot", path="FFFFF", enemy="b"), A["pilot"], [17])  # 22 vs DC 22
    assert [type(e) for e in evs] == [E.ShipMoved] and evs[0].flyby == "b"
    st2 = apply(R, st, evs)
    g = at(place(st2, "a", 0, -9), "gunnery")  # b is now 5 hexes aft... the flyby ignores range and arc
    [shot] = of(
        when(R, g, C.Fire(seat="a/gunner", weapon="tail", target="b", flyby=True, quadrant="port"), A["gunner"], [1]),
        E.Attacked,
    )
    assert shot.distance == 1 and shot.quadrant == "port" and shot.flyby
    failed = when(R, st, C.Flyby(seat="a/pilot", path="FFFFF", enemy="b"), A["pilot"], [16, 1])
    assert [type(e) for e in failed] == [E.ShipMoved, E.Attacked] and failed[1].kind == "free"
    then_violation(R, st, C.Flyby(seat="a/pilot", path="FFF", enemy="b"), "SF-STUNT-5", A["pilot"])
    then_violation(R, st, C.Flyby(seat="a/pilot", path="FFFFF", enemy="a"), "SF-STUNT-5", A["pilot"])
    g = at(st, "gunnery")
    then_violation(
        R, g, C.Fire(seat="a/gunner", weapon="tail", target="b", flyby=True, quadrant="port"), "SF-STUNT-5", A["gunner"]
    )


def test_sf_stunt_6_slide() -> None:
    """SF-STUNT-6."""
    st = _helm()
    m = _moved(when(R, st, C.Slide(seat="a/pilot", hexes=3, side="starboard"), A["pilot"], [7]))
    assert m.success and m.path[-1] == Hex(3, -3) and m.facing == 0
    m = _moved(when(R, st, C.Slide(seat="a/pilot", hexes=6, side="port"), A["pilot"], [6]))  # 11: fail
    assert not m.success and m.path[-1] == Hex(0, -4)  # forward, half speed at most
    then_violation(R, st, C.Slide(seat="a/pilot", hexes=3, side="up"), "SF-STUNT-6", A["pilot"])
    then_violation(R, st, C.Slide(seat="a/pilot", hexes=9, side="port"), "SF-STUNT-6", A["pilot"])


def test_sf_stunt_7_turn_in_place() -> None:
    """SF-STUNT-7."""
    clumsy = _helm({"maneuverability": "clumsy"})
    m = _moved(when(R, clumsy, C.TurnInPlace(seat="a/pilot", facing=3), A["pilot"], []))
    assert m.facing == 3 and m.path == (Hex(0, 0),) and m.defence == -4 and not m.rolls
    assert (
        _moved(when(R, _helm({"maneuverability": "poor"}), C.TurnInPlace(seat="a/pilot", facing=1), A["pilot"])).defence
        == -2
    )
    assert _moved(when(R, _helm(), C.TurnInPlace(seat="a/pilot", facing=1), A["pilot"])).defence == 0
    then_violation(R, clumsy, C.TurnInPlace(seat="a/pilot", facing=0), "SF-STUNT-7", A["pilot"])
    then_violation(R, clumsy, C.TurnInPlace(seat="a/pilot", facing=6), "SF-STUNT-7", A["pilot"])
