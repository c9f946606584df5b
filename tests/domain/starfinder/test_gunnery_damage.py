"""Gunnery (SF-GUN) and damage (SF-DMG)."""

from __future__ import annotations

import pytest

from service.domain.core import InvalidScenario
from service.domain.core.hexgrid import Hex
from service.domain.starfinder.checks import defence
from service.domain.starfinder.damage import apply_hit
from service.domain.starfinder.geometry import arcs_of, range_penalty

from .helpers import (
    UMPIRE,
    A,
    B,
    C,
    E,
    R,
    ScriptedDice,
    apply,
    at,
    crew,
    duel,
    of,
    place,
    scenario,
    seat,
    ship,
    then_violation,
    weapon,
    when,
)

TWO_GUNNERS = [
    crew("captain", "captain"),
    crew("pilot", "pilot", piloting_ranks=2),
    crew("g1", "gunner", gunnery=4),
    crew("g2", "gunner", gunnery=4),
]


def _bad(raw: dict, path: str, rule: str) -> None:
    with pytest.raises(InvalidScenario) as info:
        R.parse_setup(raw)
    assert info.value.path == path and rule in info.value.detail, info.value


def _one(a_kw: dict) -> dict:
    return scenario(ship("a", "pact", **a_kw), ship("b", "corsairs", hex=(0, -4), facing=3))


def test_sf_gun_1_fire_in_helm_order_and_damage_lands_at_the_end_of_the_phase() -> None:
    """SF-GUN-1."""
    st = at(duel(), "gunnery")
    then_violation(R, st, C.Fire(seat="b/gunner", weapon="laser", target="a"), "SF-GUN-1", B["gunner"])
    evs = when(R, st, C.Fire(seat="a/gunner", weapon="laser", target="b"), A["gunner"], [15, 2, 2])
    assert of(evs, E.Attacked)[0].hit and not of(evs, E.DamageApplied)
    st = apply(R, st, evs)
    assert st.pending[0].damage == 4 and st.ships["b"].shields["forward"] == 5
    st = apply(R, st, when(R, st, C.Pass(seat="a/captain"), A["captain"]))
    assert st.slot_ship == "b"
    st = apply(R, st, when(R, st, C.Fire(seat="b/gunner", weapon="laser", target="a"), B["gunner"], [15, 3, 3]))
    evs = when(R, st, C.Pass(seat="b/captain"), B["captain"])
    dmg = of(evs, E.DamageApplied)
    assert [(d.target, d.damage, d.settles) for d in dmg] == [("b", 4, True), ("a", 6, True)]
    assert of(evs, E.RoundStarted)[0].round == 2


def test_sf_gun_2_each_weapon_fires_once_a_round_and_linked_weapons_check_once() -> None:
    """SF-GUN-2."""
    st = at(duel({"crew": TWO_GUNNERS, "weapons": [weapon(linked=True)]}), "gunnery")
    evs = when(R, st, C.Fire(seat="a/g1", weapon="laser", target="b"), seat("a/g1"), [15, 1, 2, 3, 4])
    [shot] = of(evs, E.Attacked)
    assert shot.damage == 10 and [r.die for r in shot.rolls] == ["d20", "d4", "d4", "d4", "d4"]
    st = apply(R, st, evs)
    then_violation(R, st, C.Fire(seat="a/g2", weapon="laser", target="b"), "SF-GUN-2", seat("a/g2"))
    then_violation(R, st, C.Fire(seat="a/g2", weapon="nope", target="b"), "SF-GUN-2", seat("a/g2"))


def test_sf_gun_3_weapons_fire_into_their_arc_and_turrets_anywhere() -> None:
    """SF-GUN-3."""
    kw = {"crew": TWO_GUNNERS, "weapons": [weapon("tail", "aft"), weapon("tur", "turret")]}
    st = at(duel(kw), "gunnery")
    err = then_violation(R, st, C.Fire(seat="a/g1", weapon="tail", target="b"), "SF-GUN-3", seat("a/g1"))
    assert "forward" in err.detail
    [shot] = of(when(R, st, C.Fire(seat="a/g1", weapon="tur", target="b"), seat("a/g1"), [1]), E.Attacked)
    assert shot.arc == "forward"


def test_sf_gun_4_exact_arcs_with_boundary_hexes_in_both() -> None:
    """SF-GUN-4."""
    o = Hex(0, 0)
    assert arcs_of(o, 0, Hex(0, -3)) == ("forward",)
    assert arcs_of(o, 0, Hex(1, -1)) == ("forward", "starboard")
    assert arcs_of(o, 0, Hex(2, -2)) == ("forward", "starboard")
    assert arcs_of(o, 0, Hex(1, -2)) == ("forward",)
    assert arcs_of(o, 0, Hex(2, -1)) == ("starboard",)
    assert arcs_of(o, 0, Hex(1, 0)) == ("starboard", "aft")
    assert arcs_of(o, 0, Hex(0, 3)) == ("aft",)
    assert arcs_of(o, 0, Hex(-1, 0)) == ("forward", "port")
    assert arcs_of(o, 0, Hex(-1, 1)) == ("port", "aft")
    assert arcs_of(o, 0, Hex(-3, 1)) == ("port",)
    assert arcs_of(o, 1, Hex(1, -1)) == ("forward",)  # facing NE
    assert arcs_of(o, 3, Hex(0, 2)) == ("forward",)
    assert len(arcs_of(o, 0, o)) == 4
    kw = {"crew": TWO_GUNNERS, "weapons": [weapon("fwd", "forward"), weapon("stb", "starboard")]}
    st = at(duel(kw, b_hex=(2, -2)), "gunnery")
    quad = arcs_of(Hex(2, -2), 3, o)
    q = quad[0]
    st = apply(R, st, when(R, st, C.Fire(seat="a/g1", weapon="fwd", target="b", quadrant=q), seat("a/g1"), [1]))
    assert st.ships["a"].arc_picks == {"b": "forward"}
    err = then_violation(R, st, C.Fire(seat="a/g2", weapon="stb", target="b", quadrant=q), "SF-GUN-4", seat("a/g2"))
    assert "already" in err.detail


def test_sf_gun_5_range_increments_cost_two_each() -> None:
    """SF-GUN-5."""
    assert [range_penalty(d, "short") for d in (0, 1, 5, 6, 10, 11)] == [0, 0, 0, -2, -2, -4]
    assert range_penalty(21, "long") == -2 and range_penalty(20, "medium") == -2
    st = at(duel(b_hex=(0, -7)), "gunnery")
    [shot] = of(when(R, st, C.Fire(seat="a/gunner", weapon="laser", target="b"), A["gunner"], [1]), E.Attacked)
    assert ("SF-GUN-5", -2) in [(m.rule, m.value) for m in shot.rolls[0].modifiers]
    far = at(duel(b_hex=(0, -51)), "gunnery")
    then_violation(R, far, C.Fire(seat="a/gunner", weapon="laser", target="b"), "SF-GUN-5", A["gunner"])


def test_sf_gun_6_d20_plus_gunner_plus_modifiers_against_ac_or_tl() -> None:
    """SF-GUN-6."""
    st = at(duel(), "gunnery")
    [shot] = of(when(R, st, C.Fire(seat="a/gunner", weapon="laser", target="b"), A["gunner"], [8, 1, 1]), E.Attacked)
    assert shot.needed == 12 and shot.total == 12 and shot.hit and shot.defence == "AC"  # 8 + 4 ≥ 12
    [miss] = of(when(R, st, C.Fire(seat="a/gunner", weapon="laser", target="b"), A["gunner"], [7]), E.Attacked)
    assert not miss.hit and "miss" in R.explain(miss)
    raw = scenario(ship("a", "pact"), ship("f", "pact", hex=(0, -2)), ship("b", "corsairs", hex=(5, 5)))
    friend = at(R.initial_state(R.parse_setup(raw)), "gunnery", order=("a", "f", "b"))
    then_violation(R, friend, C.Fire(seat="a/gunner", weapon="laser", target="f"), "SF-GUN-6", A["gunner"])


def test_sf_gun_7_armour_class_and_target_lock() -> None:
    """SF-GUN-7."""
    st = duel(b_kw={"armor": 3, "countermeasures": 2, "size": "Small"})
    assert defence(st, "b", "AC")[0] == 10 + 2 + 3 + 1
    assert defence(st, "b", "TL")[0] == 10 + 2 + 2 + 1
    st = duel(b_kw={"size": "Colossal", "crew": []})
    assert defence(st, "b", "AC")[0] == 10 - 8
    _bad(_one({"size": "Enormous"}), "ships[0].size", "SF-GUN-7")


def test_sf_gun_8_tracking_projectiles_fly_and_check_again_next_gunnery() -> None:
    """SF-GUN-8."""
    kw = {"weapons": [weapon("msl", damage="1d8", range="long", kind="tracking", speed=3)]}
    st = at(duel(kw), "gunnery")
    evs = when(R, st, C.Fire(seat="a/gunner", weapon="msl", target="b"), A["gunner"], [10])  # 14 vs TL 12
    [shot] = of(evs, E.Attacked)
    assert shot.defence == "TL" and shot.hit and not shot.arrived and shot.flight[-1] == Hex(0, -3)
    st = apply(R, st, evs)
    assert st.projectiles["p1"].hex == Hex(0, -3) and not st.pending
    assert R.view(st, UMPIRE)["projectiles"][0]["hex"] == [0, -3]
    nxt = at(st, "helm")
    evs = when(R, nxt, C.ForcePhase(), UMPIRE, [12, 5])  # helm closes; gunnery starts with the new check
    [chk] = of(evs, E.ProjectileChecked)
    assert chk.success and chk.arrived and chk.damage == 5 and chk.quadrant == "forward"
    assert [m.why for m in chk.rolls[0].modifiers] == ["launching gunner (no other bonus)"]
    evs = when(R, nxt, C.ForcePhase(), UMPIRE, [7])  # 11 < TL 12: destroyed
    [chk] = of(evs, E.ProjectileChecked)
    assert not chk.success and "p1" not in apply(R, nxt, evs).projectiles
    _bad(_one({"weapons": [weapon("m", kind="tracking")]}), "ships[0].weapons[0].speed", "SF-GUN-8")


def test_sf_dmg_1_the_quadrant_facing_the_attacker_and_the_attackers_pick_on_a_boundary() -> None:
    """SF-DMG-1."""
    st = at(duel(b_facing=1), "gunnery")  # b faces NE: a lies on its starboard/aft boundary
    err = then_violation(R, st, C.Fire(seat="a/gunner", weapon="laser", target="b"), "SF-DMG-1", A["gunner"])
    assert "quadrant" in err.detail
    [shot] = of(
        when(R, st, C.Fire(seat="a/gunner", weapon="laser", target="b", quadrant="starboard"), A["gunner"], [15, 1, 1]),
        E.Attacked,
    )
    assert shot.quadrant == "starboard"
    st = at(duel(), "gunnery")
    [shot] = of(when(R, st, C.Fire(seat="a/gunner", weapon="laser", target="b"), A["gunner"], [15, 1, 1]), E.Attacked)
    assert shot.quadrant == "forward"
    then_violation(R, st, C.Fire(seat="a/gunner", weapon="laser", target="b", quadrant="aft"), "SF-DMG-1", A["gunner"])


def test_sf_dmg_2_shields_first_then_hull() -> None:
    """SF-DMG-2."""
    st = duel()
    ev = apply_hit(st, "b", "a", "laser", "forward", 8, False, ScriptedDice([]))
    assert (ev.absorbed, ev.shield, ev.hull_damage, ev.hull) == (5, 0, 3, 27)
    st = apply(R, st, [ev])
    ev = apply_hit(st, "b", "a", "laser", "forward", 2, False, ScriptedDice([]))
    assert (ev.absorbed, ev.hull_damage) == (0, 2)
    _bad(_one({"shields": {"forward": -1}}), "ships[0].shields.forward", "SF-DMG-2")


def test_sf_dmg_3_damage_threshold() -> None:
    """SF-DMG-3."""
    st = duel(b_kw={"dt": 5, "shields": {}})
    ev = apply_hit(st, "b", "a", "laser", "forward", 5, False, ScriptedDice([]))
    assert ev.blocked_by_dt and ev.hull_damage == 0 and ev.hull == 30
    ev = apply_hit(st, "b", "a", "laser", "forward", 6, False, ScriptedDice([15]))
    assert not ev.blocked_by_dt and ev.hull_damage == 6  # full amount; crossing CT 6 rolls a critical
    _bad(_one({"dt": -1}), "ships[0].dt", "SF-DMG-3")


def test_sf_dmg_4_zero_hull_disables_and_hits_apply_in_firing_order() -> None:
    """SF-DMG-4."""
    st = place(duel(b_kw={"shields": {"forward": 4}}), "b", 0, -4, hull=3)
    st = at(st, "gunnery")
    st = apply(R, st, when(R, st, C.Fire(seat="a/gunner", weapon="laser", target="b"), A["gunner"], [15, 1, 2]))
    st = apply(R, st, when(R, st, C.Pass(seat="a/captain"), A["captain"]))
    st = apply(R, st, when(R, st, C.Fire(seat="b/gunner", weapon="laser", target="a"), B["gunner"], [15, 4, 4]))
    evs = when(R, st, C.Pass(seat="b/captain"), B["captain"], [])  # 3 hull damage to a: below its threshold
    dmg = of(evs, E.DamageApplied)
    assert dmg[0].target == "b" and dmg[0].absorbed == 3 and dmg[0].hull == 3  # 3 vs 4 shields: all absorbed
    st = place(duel(), "b", 0, -4, hull=2, shields={})
    ev = apply_hit(st, "b", "a", "laser", "forward", 2, False, ScriptedDice([5]))
    assert ev.hull == 0 and ev.status == "disabled"
    _bad(_one({"hp": 0}), "ships[0].hp", "SF-DMG-4")


def test_sf_dmg_5_critical_damage_from_thresholds_and_natural_twenties() -> None:
    """SF-DMG-5."""
    st = duel(b_kw={"shields": {}})  # hp 30: critical threshold 6
    ev = apply_hit(st, "b", "a", "laser", "forward", 13, False, ScriptedDice([15, 45, 3]))
    assert [(c.system, c.after) for c in ev.crits] == [("sensors", 1), ("weapons_port", 1)]
    ev = apply_hit(st, "b", "a", "laser", "forward", 2, True, ScriptedDice([99]))  # natural 20: one roll
    assert [(c.system, c.after) for c in ev.crits] == [("power_core", 1)]
    wrecked = place(st, "b", 0, -4, conditions={"power_core": 3})
    ev = apply_hit(wrecked, "b", "a", "laser", "forward", 2, True, ScriptedDice([90]))
    assert [c.system for c in ev.crits] == ["life_support"]  # past the power core, back to the top
    # penalties: glitching engines −2 on the pilot's checks; a wrecked array fails outright
    glitchy = at(place(duel(), "a", 0, 0, conditions={"engines": 1, "weapons_forward": 3}), "helm")
    [m] = of(when(R, glitchy, C.Evade(seat="a/pilot", path="F"), A["pilot"], [10]), E.ShipMoved)
    assert ("SF-DMG-5", -2) in [(x.rule, x.value) for x in m.rolls[0].modifiers]
    g = at(glitchy, "gunnery")
    [shot] = of(when(R, g, C.Fire(seat="a/gunner", weapon="laser", target="b"), A["gunner"], []), E.Attacked)
    assert shot.total is None and not shot.hit and not shot.rolls
    # malfunctioning: no push actions
    st = place(duel(), "a", 0, 0, conditions={"power_core": 2})
    then_violation(R, st, C.Divert(seat="a/engineer", to="engines"), "SF-DMG-5", A["engineer"])
    st = at(place(duel(), "a", 0, 0, conditions={"engines": 2}), "helm")
    then_violation(R, st, C.Evade(seat="a/pilot", path="F"), "SF-DMG-5", A["pilot"])


def test_sf_dmg_6_twice_the_hull_points_destroys() -> None:
    """SF-DMG-6."""
    st = duel(b_kw={"shields": {}})
    st = place(st, "b", 0, -4, hull=-25)
    ev = apply_hit(st, "b", "a", "laser", "forward", 5, False, ScriptedDice([50, 2]))
    assert ev.hull == -30 and ev.status == "disabled"  # exactly twice: not yet
    ev = apply_hit(st, "b", "a", "laser", "forward", 6, False, ScriptedDice([50, 2]))
    assert ev.hull == -31 and ev.status == "destroyed"
    gone = at(apply(R, st, [ev]), "gunnery")
    then_violation(R, gone, C.Fire(seat="a/gunner", weapon="laser", target="b"), "SF-DMG-6", A["gunner"])
    then_violation(R, gone, C.Pass(seat="b/gunner"), "SF-DMG-6", B["gunner"])
