"""The service's own rulings (docs/rulings-starfinder.md, SF-R-n)."""

from __future__ import annotations

import pytest

from service.domain.core import NotYourPiece
from service.domain.core.hexgrid import Hex
from service.domain.starfinder.damage import apply_hit

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
    then_violation,
    weapon,
    when,
)


def test_sf_r_1_no_hidden_information_but_scans_are_recorded() -> None:
    """SF-R-1."""
    assert R.hidden_information is False
    st = at(duel(), "helm")
    v = R.view(st, A["pilot"])
    assert [s["known"] for s in v["ships"]] == [True, False] and v["ships"][1]["data_sheet"]["hp"] == 30
    st = apply(R, st, when(R, st, C.Scan(seat="a/science", target="b"), A["science"], [15]))
    assert [s["known"] for s in R.view(st, A["pilot"])["ships"]] == [True, True]


def test_sf_r_2_only_the_umpire_forces_and_unmoved_ships_stay() -> None:
    """SF-R-2."""
    st = at(duel(), "helm")
    with pytest.raises(NotYourPiece) as info:
        when(R, st, C.ForcePhase(), A["captain"])
    assert info.value.rule == "SF-R-2"
    st2 = apply(R, st, when(R, st, C.ForcePhase(), UMPIRE))
    assert st2.phase == "gunnery" and st2.ships["a"].hex == Hex(0, 0)


def test_sf_r_3_one_action_a_round_and_the_captain_awaited_until_it_acts() -> None:
    """SF-R-3."""
    st = duel()
    st = apply(R, st, when(R, st, C.Pass(seat="a/engineer"), A["engineer"]))
    st = apply(R, st, when(R, st, C.Pass(seat="b/engineer"), B["engineer"]))
    st = apply(R, st, when(R, st, C.Pass(seat="b/captain"), B["captain"]))
    assert st.phase == "engineering"  # a's captain is still awaited
    st = apply(R, st, when(R, st, C.Encourage(seat="a/captain", crew="a/engineer"), A["captain"], [10, 10, 11]))
    assert st.phase == "helm" and "a/captain" not in R.view(st, UMPIRE)["awaiting"]
    assert st.slot_ship == "a"  # 15 against 16
    then_violation(R, st, C.Pass(seat="b/captain"), "SF-R-3", B["captain"])  # not b's turn
    then_violation(R, st, C.Pass(seat="a/captain"), "SF-ROLE-2", A["captain"])  # has acted


def test_sf_r_4_encourage_is_dc_10_and_penalised_by_life_support() -> None:
    """SF-R-4."""
    st = place(duel(), "a", 0, 0, conditions={"life_support": 1})
    [ev] = when(R, st, C.Encourage(seat="a/captain", crew="a/engineer"), A["captain"], [12])
    assert ev.success and ev.rolls[0].target == 10 and [m.value for m in ev.rolls[0].modifiers] == [0, -2]
    then_violation(R, st, C.Encourage(seat="a/captain", crew="b/engineer"), "SF-R-4", A["captain"])
    then_violation(R, st, C.Encourage(seat="a/captain", crew="a/captain"), "SF-R-4", A["captain"])


def test_sf_r_5_free_attacks_use_the_best_direct_weapon_and_need_battle_stations() -> None:
    """SF-R-5."""
    b_weapons = [
        weapon("small", damage="1d4"),
        weapon("big", arc="aft", damage="2d10"),
        weapon("msl", damage="9d8", kind="tracking", speed=8),
    ]
    st = at(duel(b_kw={"weapons": b_weapons}), "helm")
    evs = when(R, st, C.Move(seat="a/pilot", path="FFFFF"), A["pilot"], [1])
    assert of(evs, E.Attacked)[0].weapon == "big"
    calm = at(duel(b_kw={"battle_stations": False}), "helm")
    assert [type(e) for e in when(R, calm, C.Move(seat="a/pilot", path="FFFFF"), A["pilot"])] == [E.ShipMoved]


def test_sf_r_6_wrecked_systems_fail_outright_and_count_zero_for_the_helm_order() -> None:
    """SF-R-6."""
    st = place(duel(), "a", 0, 0, conditions={"engines": 3})
    [order] = of(when(R, st, C.ForcePhase(), UMPIRE, [10]), E.HelmOrderSet)  # only b rolls
    assert order.results == {"a": 0, "b": 10 + 5} and [r.rule for r in order.rolls] == ["SF-HELM-1"]
    h = at(st, "helm")
    [m] = of(when(R, h, C.Evade(seat="a/pilot", path="F"), A["pilot"], []), E.ShipMoved)
    assert m.success is False and not m.rolls and m.defence == 0
    sens = at(place(duel(), "a", 0, 0, conditions={"sensors": 3}), "helm")
    [ev] = when(R, sens, C.Scan(seat="a/science", target="b"), A["science"], [])
    assert not ev.success and not ev.rolls


def test_sf_r_7_automatic_quadrant_is_the_weaker_boundary_shield() -> None:
    """SF-R-7."""
    from service.domain.starfinder.damage import weakest

    st = place(duel(), "b", 0, -4, shields={"forward": 5, "starboard": 1, "aft": 5, "port": 5})
    assert weakest(st, "b", ("forward", "starboard")) == "starboard"
    assert weakest(st, "b", ("aft", "port")) == "aft"


def test_sf_r_8_ten_range_increments_at_most() -> None:
    """SF-R-8."""
    ok = at(duel(b_hex=(0, -50)), "gunnery")
    assert of(when(R, ok, C.Fire(seat="a/gunner", weapon="laser", target="b"), A["gunner"], [1]), E.Attacked)
    far = at(duel(b_hex=(0, -51)), "gunnery")
    then_violation(R, far, C.Fire(seat="a/gunner", weapon="laser", target="b"), "SF-GUN-5", A["gunner"])


def test_sf_r_9_linked_weapons_roll_damage_twice() -> None:
    """SF-R-9."""
    st = at(duel({"weapons": [weapon(damage="1d6", linked=True)]}), "gunnery")
    [shot] = of(when(R, st, C.Fire(seat="a/gunner", weapon="laser", target="b"), A["gunner"], [15, 6, 5]), E.Attacked)
    assert shot.damage == 11


def test_sf_r_10_perfect_manoeuvrability_two_turns_per_hex() -> None:
    """SF-R-10."""
    st = at(duel({"maneuverability": "perfect"}, b_hex=(6, 0)), "helm")
    [m] = of(when(R, st, C.Move(seat="a/pilot", path="FRRFLL"), A["pilot"]), E.ShipMoved)
    assert m.turns == 4 and m.facing == 0
    then_violation(R, st, C.Move(seat="a/pilot", path="FRRR"), "SF-MOV-2", A["pilot"])
    then_violation(R, st, C.Move(seat="a/pilot", path="RF"), "SF-MOV-2", A["pilot"])


def test_sf_r_11_failed_stunts_stop_short_of_occupied_hexes() -> None:
    """SF-R-11."""
    st = at(duel(b_kw={"battle_stations": False}, b_hex=(0, -4)), "helm")  # b sits 4 hexes ahead
    [m] = of(when(R, st, C.Slide(seat="a/pilot", hexes=4, side="port"), A["pilot"], [1]), E.ShipMoved)
    assert not m.success and m.path[-1] == Hex(0, -3)  # the failed slide goes forward and stops short
    st = at(duel(b_kw={"battle_stations": False}, b_hex=(0, -2)), "helm")
    then_violation(R, st, C.Move(seat="a/pilot", path="FF"), "SF-MOV-3", A["pilot"])


def test_sf_r_12_single_roles_are_checked_against_next_rounds_crew() -> None:
    """SF-R-12."""
    st = duel()
    st = apply(R, st, when(R, st, C.ChangeRole(seat="a/pilot", role="gunner"), A["pilot"]))
    st = apply(R, st, when(R, st, C.ChangeRole(seat="a/science", role="pilot"), A["science"]))
    then_violation(R, st, C.ChangeRole(seat="a/pilot", role="pilot"), "SF-ROLE-1", A["pilot"])
    assert st.crew["a/pilot"].role == "pilot"  # still flying this round


def test_sf_r_13_battle_stations_is_not_an_action() -> None:
    """SF-R-13."""
    st = duel({"battle_stations": False})
    st = apply(R, st, when(R, st, C.BattleStations(seat="a/engineer"), A["engineer"]))
    assert not st.crew["a/engineer"].acted
    assert "a/engineer" in R.view(st, UMPIRE)["awaiting"]
    then_violation(R, st, C.BattleStations(seat="a/engineer"), "SF-ROLE-5", A["engineer"])


def test_sf_r_14_patches_follow_the_effective_severity() -> None:
    """SF-R-14."""
    st = place(duel(), "a", 0, 0, conditions={"engines": 3}, patched={"engines": 1})
    st = apply(R, st, when(R, st, C.Patch(seat="a/engineer", system="engines"), A["engineer"]))
    [res] = of(when(R, st, C.ForcePhase(), UMPIRE, [12, 10, 11]), E.EngineeringResolved)
    assert res.dc == 15 + 2 and res.success and res.patched == 2


def test_sf_r_15_divert_caps_at_the_shield_maximum() -> None:
    """SF-R-15."""
    st = place(duel(), "a", 0, 0, shields={"forward": 0, "starboard": 5, "aft": 5, "port": 8})
    st = apply(R, st, when(R, st, C.Divert(seat="a/engineer", to="shields", shields={"forward": 4}), A["engineer"]))
    [res] = of(when(R, st, C.ForcePhase(), UMPIRE, [15, 10, 11]), E.EngineeringResolved)
    assert res.shields["forward"] == 2 and res.lost == 2


def test_sf_r_16_critical_rolls_on_each_multiple_of_the_threshold() -> None:
    """SF-R-16."""
    st = place(duel(b_kw={"shields": {}}), "b", 0, -4, hull=25)  # 5 damage taken, threshold 6
    ev = apply_hit(st, "b", "a", "laser", "forward", 1, False, ScriptedDice([5]))
    assert len(ev.crits) == 1  # 6 damage: the first multiple
    tiny = duel(b_kw={"shields": {}, "hp": 4})
    assert apply_hit(tiny, "b", "a", "laser", "forward", 3, False, ScriptedDice([])).crits == ()


def test_sf_r_17_round_limit_is_a_draw() -> None:
    """SF-R-17."""
    from tests.support.decider import given

    from .helpers import scenario, ship

    st = given(R, scenario(ship("a", "pact"), ship("b", "corsairs", hex=(0, -4), facing=3), round_limit=1))
    st = at(st, "gunnery", slot=1)
    over = of(when(R, st, C.ForcePhase(), UMPIRE), E.GameOver)[0]
    assert over.winner is None and "round limit" in over.reason


def test_sf_r_18_destroyed_ships_leave_the_map_and_projectiles_drop() -> None:
    """SF-R-18."""
    kw = {"weapons": [weapon("msl", range="long", kind="tracking", speed=1)]}
    st = at(duel(kw), "gunnery")
    st = apply(R, st, when(R, st, C.Fire(seat="a/gunner", weapon="msl", target="b"), A["gunner"], [15]))
    st = at(place(st, "b", 0, -4, status="destroyed", hull=-99), "helm", order=("a",))
    [chk] = of(when(R, st, C.ForcePhase(), UMPIRE), E.ProjectileChecked)
    assert not chk.success and chk.total is None
    h = at(place(duel(), "b", 0, -2, status="destroyed"), "helm")
    assert of(when(R, h, C.Move(seat="a/pilot", path="FF"), A["pilot"]), E.ShipMoved)[0].path[-1] == Hex(0, -2)


def test_sf_r_19_a_pilotless_ship_stays_put() -> None:
    """SF-R-19."""
    st = at(duel({"crew": [crew("gunner", "gunner")]}, b_hex=(6, 0)), "helm")
    evs = when(R, st, C.ForcePhase(), UMPIRE)
    assert not [m for m in of(evs, E.ShipMoved) if m.ship == "a"]


def test_sf_r_20_lock_on_and_countermeasures_need_an_enemy() -> None:
    """SF-R-20."""
    from tests.support.decider import given

    from .helpers import scenario, ship

    st = given(R, scenario(ship("a", "pact"), ship("f", "pact", hex=(2, 0)), ship("b", "corsairs", hex=(0, -4))))
    st = at(st, "helm", order=("a", "f", "b"))
    assert when(R, st, C.Scan(seat="a/science", target="f"), A["science"], [1])
    then_violation(R, st, C.LockOn(seat="a/science", target="f"), "SF-RND-3", A["science"])
    then_violation(R, st, C.Countermeasures(seat="a/science", target="f"), "SF-RND-3", A["science"])
