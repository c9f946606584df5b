"""Simultaneous damage: shields pool, hull, armor saves, the system damage chart (GSC2-DMG, GSC2-SYS)."""

from __future__ import annotations

import msgspec

from service.domain.core import Dice, Modifier, Roll

from .events import DamageApplied, HitResult
from .ships import SYS_RULE, ShipSpec
from .state import GameState
from .values import PendingHit, Sys


def hits_per_level(size: int) -> int:
    """GSC2-SYS-2: size 1–7: 1 hit per level, 8–15: 2, 16+: 3."""
    return 1 if size <= 7 else 2 if size <= 15 else 3


def damage_system(sys: Sys, size: int, weapon_damage: int) -> tuple[Sys, str]:
    """One penetrating weapon's hit on one system; returns its new condition and the rule applied."""
    rule = SYS_RULE[sys.kind]
    rep = msgspec.structs.replace
    if rule == "GSC2-SYS-1":  # first hit damaged, second destroyed
        return (rep(sys, destroyed=True) if sys.damaged else rep(sys, damaged=True)), rule
    if rule == "GSC2-SYS-2":
        hits = sys.hits + 1
        if hits < hits_per_level(size):
            return rep(sys, hits=hits), rule
        return _lose(sys, 1, hits=0), rule
    if rule == "GSC2-SYS-3":
        if size <= 3:  # first hit halves (rounded down), the second destroys
            if sys.hits == 0:
                return rep(sys, hits=1, level=sys.level // 2), rule
            return rep(sys, destroyed=True, level=0), rule
        return _lose(sys, 1), rule
    if rule == "GSC2-SYS-4":
        return _lose(sys, 1), rule
    return _lose(sys, weapon_damage), rule  # GSC2-SYS-5: one per damage point


def _lose(sys: Sys, n: int, **extra: int) -> Sys:
    level = sys.level - n
    if level < 0:  # below 0: destroyed, never repaired
        return msgspec.structs.replace(sys, level=0, destroyed=True, **extra)
    return msgspec.structs.replace(sys, level=level, **extra)


def chart_target(spec: ShipSpec, systems: dict[str, Sys], row: int) -> str | None:
    """GSC2-DMG-4: the leftmost system of the row not yet destroyed; None when all are."""
    for name in spec.chart[row - 1]:
        if not systems[name].destroyed:
            return name
    return None


def resolve_target(state: GameState, target: str, hits: list[PendingHit], dice: Dice) -> DamageApplied:
    ship = state.ships[target]
    spec = state.specs[target]
    # GSC2-DMG-2 ruling: the pool soaks the largest hits first; ties keep resolution order
    ordered = sorted(hits, key=lambda h: -h.damage)
    pool = ship.shield_pool
    systems = dict(ship.sys)
    rolls: list[Roll] = []
    results: list[HitResult] = []
    absorbed_total = hull_total = 0
    for h in ordered:
        absorbed = min(pool, h.damage)
        pool -= absorbed
        absorbed_total += absorbed
        through = h.damage - absorbed
        hull_total += through
        result = HitResult(source=h.source, damage=h.damage, absorbed=absorbed, hull=through)
        if absorbed == 0 and through > 0:  # GSC2-DMG-3: untouched by shields, may damage systems
            save = _roll(
                dice,
                "armor save",
                "GSC2-DMG-3",
                spec.armor,
                (Modifier("GSC2-DMG-3", f"weapon damage {h.damage}", -h.damage),),
                "saved",
                "failed",
            )
            rolls.append(save)
            if save.outcome == "saved":
                result = msgspec.structs.replace(result, saved=True)
            else:
                chart = dice.roll(10, f"system damage chart ({h.source})", "GSC2-DMG-4")
                name = chart_target(spec, systems, chart.value)
                rule = None
                if name is not None:
                    systems[name], rule = damage_system(systems[name], spec.size, h.damage)
                chart = msgspec.structs.replace(chart, outcome=name or "lost: every system in the row destroyed")
                rolls.append(chart)
                result = msgspec.structs.replace(result, saved=False, row=chart.value, system=name, system_rule=rule)
        results.append(result)
    hull = max(0, ship.hull - hull_total)
    changed = {k: v for k, v in systems.items() if v != ship.sys[k]}
    return DamageApplied(
        target=target,
        hits=tuple(results),
        absorbed=absorbed_total,
        hull_damage=hull_total,
        hull=hull,
        systems=changed,
        destroyed=hull == 0,
        rolls=tuple(rolls),
    )


def _roll(dice: Dice, purpose: str, rule: str, base: int, mods: tuple[Modifier, ...], ok: str, bad: str) -> Roll:
    return dice.roll_under(10, purpose, rule, base, mods, success=ok, failure=bad)


def resolve_pending(state: GameState, dice: Dice) -> list[DamageApplied]:
    """Every hit of the phase, grouped by target in the order they were rolled (GSC2-BEAM-1, MSL-6)."""
    by_target: dict[str, list[PendingHit]] = {}
    for h in state.pending:
        by_target.setdefault(h.target, []).append(h)
    return [resolve_target(state, t, hs, dice) for t, hs in by_target.items()]
