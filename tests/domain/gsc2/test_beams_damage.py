"""Beams (GSC2-BEAM), to-hit (GSC2-HIT), damage (GSC2-DMG) and system damage (GSC2-SYS)."""

from __future__ import annotations

import pytest

from service.domain.gsc2 import commands as C
from service.domain.gsc2.combat import range_modifier
from service.domain.gsc2.damage import damage_system, hits_per_level, resolve_target
from service.domain.gsc2.values import PendingHit, Sys
from tests.support.decider import ScriptedDice, then_violation

from .helpers import (
    BLUE,
    RED,
    UMPIRE,
    E,
    R,
    apply,
    at_phase,
    beam,
    moved,
    of,
    offered,
    place,
    scenario,
    ship,
    started,
    when,
)


def resolved(st, target, hits, faces):
    """GSC2-DMG resolution with scripted dice, every one of them rolled."""
    dice = ScriptedDice(faces)
    ev = resolve_target(st, target, hits, dice)
    assert not dice.unused, f"dice never rolled: {dice.unused}"
    return ev


def beams_state(a_kw=None, b_kw=None, bx=0.0, by=10.0):
    raw = scenario(
        ship("a", "red", **{"beams": [beam()], **(a_kw or {})}),
        ship("b", "blue", x=bx, y=by, heading=180, **{"beams": [beam()], **(b_kw or {})}),
    )
    return at_phase(started(raw, [9, 1]), "beams")


def _mods(ev):
    return {m.why: m.value for m in ev.rolls[0].modifiers}


def test_gsc2_hit_1_roll_equal_to_targeting_plus_aspect_plus_modifiers() -> None:
    """GSC2-HIT-1."""
    st = beams_state(b_kw={"aspect": 2})
    # targeting 5 + aspect 2 + did not move 2 + light short? no: 10" is normal range
    [ev] = when(R, st, C.Fire(ship="a", battery="b1", target="b"), RED, [9])
    assert ev.needed == 9 and ev.hit and ev.rolls[0].rule == "GSC2-HIT-1"
    [ev] = when(R, st, C.Fire(ship="a", battery="b1", target="b"), RED, [10])
    assert not ev.hit
    text = R.explain(ev)
    assert text.startswith("A's light beam battery b1 (1 weapons) fires at B, 10\": needs ≤ 9") and "miss" in text


@pytest.mark.parametrize(("distance", "expected"), [(0, 2), (3.9, 1), (4, 1), (4.1, 0), (11.9, 0), (12, -1), (13, -1)])
def test_gsc2_hit_2_target_movement_modifiers(distance: float, expected: int) -> None:
    """GSC2-HIT-2."""
    st = beams_state(by=20)
    if distance:
        st = moved(st, "b", distance)
    st = place(st, "b", 0, 10)
    [ev] = when(R, st, C.Fire(ship="a", battery="b1", target="b"), RED, [1])
    move_mods = [m for m in ev.rolls[0].modifiers if "moved" in m.why or "not move" in m.why]
    assert sum(m.value for m in move_mods) == expected
    assert all(m.rule == "GSC2-HIT-2" for m in move_mods)


def test_gsc2_hit_2_deflectors_and_the_always_fail_always_hit_ruling() -> None:
    """GSC2-HIT-2."""
    st = beams_state(b_kw={"deflectors": 3}, a_kw={"beams": [beam(targeting=1)]})
    [ev] = when(R, st, C.Fire(ship="a", battery="b1", target="b"), RED, [1])
    assert _mods(ev)["target deflectors level 3"] == -3
    assert ev.needed == 0 and not ev.hit  # 1 + 2 − 3 = 0: always fails, even on a 1
    st = beams_state(a_kw={"beams": [beam(targeting=9)]})
    [ev] = when(R, st, C.Fire(ship="a", battery="b1", target="b"), RED, [10])
    assert ev.needed == 11 and ev.hit  # ≥ 10 always succeeds


def test_gsc2_beam_1_simultaneous_fire_resolved_after_every_seat_is_done() -> None:
    """GSC2-BEAM-1."""
    st = beams_state(a_kw={"hull": 1, "beams": [beam(damage=5)]}, b_kw={"hull": 1, "beams": [beam(damage=5)]})
    st = apply(R, st, when(R, st, C.Fire(ship="a", battery="b1", target="b"), RED, [1]))
    assert st.ships["b"].hull == 1 and len(st.pending) == 1  # no damage yet
    st = apply(R, st, when(R, st, C.EndPhase(side="red"), RED, []))
    # b would be dead, but fire is simultaneous: it still fires back
    st = apply(R, st, when(R, st, C.Fire(ship="b", battery="b1", target="a"), BLUE, [1]))
    evs = when(R, st, C.EndPhase(side="blue"), BLUE, [1, 1, 1, 1])
    dmg = of(evs, E.DamageApplied)
    assert {d.target for d in dmg} == {"a", "b"} and all(d.destroyed for d in dmg)
    assert isinstance(evs[-1], E.PhaseStarted) and evs[-1].phase == "boarding"


@pytest.mark.parametrize(
    ("arc", "bearing_xy", "ok"),
    [
        ("F", (0, 10), True),
        ("F", (10, 10), True),
        ("F", (10.2, 10), False),
        ("A", (0, -10), True),
        ("A", (0, 10), False),
        ("L", (-10, 0), True),
        ("R", (10, 0), True),
        ("R", (-10, 0), False),
        ("FS", (10, 0), True),
        ("FS", (10, -0.1), False),
        ("AS", (-10, 0), True),
        ("LS", (0, 10), True),
        ("RS", (0, -10), True),
        ("RS", (-5, 1), False),
        ("T", (0, -10), True),
    ],
)
def test_gsc2_beam_2_arcs_edges_sponsons_turrets(arc: str, bearing_xy: tuple[float, float], ok: bool) -> None:
    """GSC2-BEAM-2."""
    st = beams_state(a_kw={"beams": [beam(arc=arc)]})
    st = place(st, "b", *bearing_xy)
    cmd = C.Fire(ship="a", battery="b1", target="b")
    if ok:
        assert when(R, st, cmd, RED, [5])
        assert cmd in offered(st, RED)
    else:
        then_violation(R, st, cmd, "GSC2-BEAM-2", actor=RED)
        assert cmd not in offered(st, RED)


def test_gsc2_beam_3_one_roll_per_battery_damage_per_weapon() -> None:
    """GSC2-BEAM-3."""
    st = beams_state(a_kw={"beams": [beam(weapons=3, damage=2)]})
    [ev] = when(R, st, C.Fire(ship="a", battery="b1", target="b"), RED, [2])
    assert len(ev.rolls) == 1 and ev.hit
    st = apply(R, st, [ev])
    assert [p.damage for p in st.pending] == [2, 2, 2]
    then_violation(R, st, C.Fire(ship="a", battery="b1", target="b"), "GSC2-BEAM-3", actor=RED)


@pytest.mark.parametrize(
    ("klass", "d", "mod"),
    [
        ("light", 6, 1),
        ("light", 6.5, 0),
        ("light", 12, 0),
        ("light", 13, -1),
        ("light", 14, -1),
        ("light", 14.5, -2),
        ("light", 16, -2),
        ("medium", 24, 0),
        ("medium", 24.5, -1),
        ("medium", 30, -1),
        ("medium", 36, -2),
        ("heavy", 12, -1),
        ("heavy", 12.5, 0),
        ("heavy", 36, 0),
        ("heavy", 48, -1),
        ("heavy", 60, -2),
        ("heavy", 61, -3),
    ],
)
def test_gsc2_beam_4_range_bands(klass: str, d: float, mod: int) -> None:
    """GSC2-BEAM-4."""
    m = range_modifier(klass, d)
    assert (m.value if m else 0) == mod
    assert m is None or m.rule == "GSC2-BEAM-4"


@pytest.mark.parametrize(("d", "mod"), [(12, 0), (13, -1), (14, -1)])
def test_gsc2_beam_4_a_light_beam_at_12_13_14_inches(d: float, mod: int) -> None:
    """GSC2-BEAM-4."""
    st = place(beams_state(), "b", 0, d)
    [ev] = when(R, st, C.Fire(ship="a", battery="b1", target="b"), RED, [1])
    assert sum(m.value for m in ev.rolls[0].modifiers if m.rule == "GSC2-BEAM-4") == mod
    assert ev.needed == 5 + 2 + mod


def _target(**kw):
    raw = scenario(ship("a", "red"), ship("b", "blue", y=10, **kw))
    return started(raw, [9, 1])


def test_gsc2_dmg_1_and_dmg_2_shields_soak_largest_hits_first_then_hull() -> None:
    """GSC2-DMG-1, GSC2-DMG-2."""
    st = _target(shields=3, hull=20, armor=10)
    hits = [PendingHit("b", "w1", 1, "red"), PendingHit("b", "w2", 3, "red"), PendingHit("b", "w3", 2, "red")]
    ev = resolved(st, "b", hits, [1, 1])  # the two unreduced hits roll armor saves, and make them
    # the 3 is soaked whole; 2 and 1 were not reduced at all → they may cause system damage (saves rolled)
    assert [(h.source, h.absorbed, h.hull) for h in ev.hits] == [("w2", 3, 0), ("w3", 0, 2), ("w1", 0, 1)]
    assert ev.absorbed == 3 and ev.hull_damage == 3 and ev.hull == 17


def test_gsc2_dmg_2_largest_first_even_when_covering_the_small_hits_would_spare_the_systems() -> None:
    """GSC2-DMG-2: the ruling is "largest hits first", not "the defender's best choice" (issue 15): against
    hits of 3, 1, 1 and a pool of 3, the 3 is soaked and both 1s go through unreduced, so both roll saves."""
    st = _target(shields=3, hull=20, armor=4)
    hits = [PendingHit("b", "w1", 1, "red"), PendingHit("b", "w2", 1, "red"), PendingHit("b", "w3", 3, "red")]
    ev = resolved(st, "b", hits, [1, 1])  # armor 4 − damage 1: saves on ≤ 3, both made
    assert [(h.source, h.absorbed, h.hull, h.saved) for h in ev.hits] == [
        ("w3", 3, 0, None),
        ("w1", 0, 1, True),
        ("w2", 0, 1, True),
    ]
    assert [r.rule for r in ev.rolls] == ["GSC2-DMG-3", "GSC2-DMG-3"] and ev.hull == 18


def test_gsc2_dmg_2_pool_is_per_turn_and_lost_levels_shrink_next_turns_pool() -> None:
    """GSC2-DMG-2."""
    st = _target(shields=3, chart=[["shields"]] * 10)
    st = R.evolve(
        st,
        E.DamageApplied(
            target="b",
            hits=(),
            absorbed=3,
            hull_damage=0,
            hull=10,
            systems={"shields": Sys(kind="shields", level=1, max=3)},
            destroyed=False,
        ),
    )
    assert st.ships["b"].shield_pool == 0
    st = apply(R, st, when(R, at_phase(st, "repairs"), C.ForcePhase(), UMPIRE, [3, 4]))
    assert st.turn == 2 and st.ships["b"].shield_pool == 1


def test_gsc2_dmg_3_only_unreduced_hits_roll_armor_saves() -> None:
    """GSC2-DMG-3."""
    st = _target(shields=1, armor=6)
    hits = [PendingHit("b", "big", 4, "red"), PendingHit("b", "small", 2, "red")]
    ev = resolved(st, "b", hits, [4])  # big hit partly soaked: no save; small: save on ≤ 4
    save = ev.rolls[0]
    assert save.rule == "GSC2-DMG-3" and save.target == 4 and save.outcome == "saved"
    assert ev.hits[0].saved is None and ev.hits[1].saved is True
    ev = resolved(st, "b", hits, [5, 1])
    assert ev.hits[1].saved is False and ev.hits[1].system == "drive"


def test_gsc2_dmg_4_leftmost_system_not_destroyed_and_lost_hits() -> None:
    """GSC2-DMG-4."""
    st = _target(armor=0, mds=2, scanners=1, chart=[["scanners", "mds", "drive"]] * 10)
    st = R.evolve(
        st,
        E.DamageApplied(
            target="b",
            hits=(),
            absorbed=0,
            hull_damage=0,
            hull=10,
            destroyed=False,
            systems={"scanners": Sys(kind="scanners", level=0, max=1, destroyed=True)},
        ),
    )
    ev = resolved(st, "b", [PendingHit("b", "w", 1, "red")], [1, 7])
    assert ev.hits[0].system == "mds" and ev.rolls[1].rule == "GSC2-DMG-4" and ev.rolls[1].outcome == "mds"
    gone = {k: Sys(kind=k, level=0, max=1, destroyed=True) for k in ("scanners", "mds", "drive")}
    st = R.evolve(
        st, E.DamageApplied(target="b", hits=(), absorbed=0, hull_damage=0, hull=10, destroyed=False, systems=gone)
    )
    ev = resolved(st, "b", [PendingHit("b", "w", 1, "red")], [1, 3])
    assert ev.hits[0].system is None and ev.rolls[1].outcome.startswith("lost")


def test_gsc2_dmg_5_hull_at_zero_destroys_and_never_goes_negative() -> None:
    """GSC2-DMG-5."""
    st = _target(hull=3)
    ev = resolved(st, "b", [PendingHit("b", "w", 5, "red")], [1, 1])
    assert ev.hull == 0 and ev.destroyed
    assert R.evolve(st, ev).ships["b"].status == "destroyed"


def test_gsc2_sys_1_batteries_damaged_then_destroyed_and_damaged_cannot_fire() -> None:
    """GSC2-SYS-1."""
    b = Sys(kind="beam", level=1, max=1)
    once, rule = damage_system(b, 5, 3)
    assert rule == "GSC2-SYS-1" and once.damaged and not once.destroyed
    twice, _ = damage_system(once, 5, 1)
    assert twice.destroyed
    st = beams_state()
    st = R.evolve(
        st,
        E.DamageApplied(target="a", hits=(), absorbed=0, hull_damage=0, hull=10, destroyed=False, systems={"b1": once}),
    )
    then_violation(R, st, C.Fire(ship="a", battery="b1", target="b"), "GSC2-SYS-1", actor=RED)
    tractor, _ = damage_system(Sys(kind="tractor_beam", level=1, max=1), 5, 1)
    assert tractor.damaged


@pytest.mark.parametrize(("size", "hits_to_drop"), [(7, 1), (8, 2), (15, 2), (16, 3)])
def test_gsc2_sys_2_bigger_ships_take_more_hits_per_level(size: int, hits_to_drop: int) -> None:
    """GSC2-SYS-2."""
    assert hits_per_level(size) == hits_to_drop
    s = Sys(kind="thrusters", level=2, max=2)
    for i in range(hits_to_drop):
        assert s.level == 2, f"dropped after {i} hits"
        s, rule = damage_system(s, size, 5)  # one hit per weapon, whatever its damage
    assert s.level == 1 and s.hits == 0 and rule == "GSC2-SYS-2"


@pytest.mark.parametrize("size", [7, 8, 15, 16])
def test_gsc2_sys_2_system_hits_through_the_chart_by_ship_size(size: int) -> None:
    """GSC2-SYS-2."""
    st = _target(size=size, armor=0, deflectors=1, chart=[["deflectors"]] * 10)
    ev = resolved(st, "b", [PendingHit("b", "w", 1, "red")], [1, 5])
    d = ev.systems["deflectors"]
    assert (d.level, d.hits) == ((0, 0) if size <= 7 else (1, 1))


def test_gsc2_sys_2_deflectors_below_zero_are_destroyed_and_unrepairable() -> None:
    """GSC2-SYS-2."""
    s, _ = damage_system(Sys(kind="deflectors", level=0, max=1), 5, 1)
    assert s.destroyed and not s.repairable


def test_gsc2_sys_3_small_drives_halve_then_die_large_lose_an_inch() -> None:
    """GSC2-SYS-3."""
    d = Sys(kind="drive", level=7, max=7)
    small, rule = damage_system(d, 3, 4)
    assert rule == "GSC2-SYS-3" and small.level == 3 and not small.destroyed  # 7 / 2 rounded down
    assert damage_system(small, 3, 1)[0].destroyed
    large, _ = damage_system(d, 4, 4)
    assert large.level == 6
    assert damage_system(Sys(kind="drive", level=0, max=7), 4, 1)[0].destroyed


def test_gsc2_sys_4_one_per_hit_then_destroyed() -> None:
    """GSC2-SYS-4."""
    s, rule = damage_system(Sys(kind="repair", level=2, max=2), 5, 6)
    assert rule == "GSC2-SYS-4" and s.level == 1
    assert damage_system(Sys(kind="scanners", level=0, max=1), 5, 1)[0].destroyed


def test_gsc2_sys_5_one_per_damage_point() -> None:
    """GSC2-SYS-5."""
    s, rule = damage_system(Sys(kind="mds", level=4, max=4), 5, 3)
    assert rule == "GSC2-SYS-5" and s.level == 1
    assert damage_system(Sys(kind="assault_squads", level=2, max=2), 5, 3)[0].destroyed
