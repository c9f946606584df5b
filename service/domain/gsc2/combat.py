"""To-hit arithmetic shared by beams, missiles, tractors, pods and teleporters (GSC2-HIT-1/2, GSC2-BEAM-4)."""

from __future__ import annotations

import math

from service.domain.core import Dice, Modifier, Roll
from service.domain.core.plane import EPSILON, Point, in_arc, relative_bearing

from .ships import ARCS
from .state import ShipState

NORMAL_RANGE = {"light": 12.0, "medium": 24.0, "heavy": 36.0}  # GSC2-BEAM-4: no range modifier up to here


def target_modifiers(target: ShipState, aspect: int) -> list[Modifier]:
    """Aspect and GSC2-HIT-2's deflector and movement modifiers."""
    return hit_modifiers(aspect, target.level("deflectors"), target.moved, target.turned)


def hit_modifiers(aspect: int, deflectors: int, moved: float, turned: bool) -> list[Modifier]:
    """GSC2-HIT-1/2 from the target's figures (also what a bot reads off the table to weigh a shot)."""
    mods = []
    if aspect:
        mods.append(Modifier("GSC2-HIT-1", "target aspect", aspect))
    if deflectors:
        mods.append(Modifier("GSC2-HIT-2", f"target deflectors level {deflectors}", -deflectors))
    if moved <= EPSILON and not turned:
        mods.append(Modifier("GSC2-HIT-2", "target did not move", 2))
    elif moved <= 4 + EPSILON:
        mods.append(Modifier("GSC2-HIT-2", f'target moved {_inches(moved)} (≤ 4")', 1))
    elif moved >= 12 - EPSILON:
        mods.append(Modifier("GSC2-HIT-2", f'target moved {_inches(moved)} (≥ 12")', -1))
    return mods


def hit_chance(target_number: int) -> float:
    """GSC2-HIT-1 on a d10, roll-under: ≤ 0 always fails, ≥ 10 always succeeds."""
    return min(10, max(0, target_number)) / 10


def range_modifier(klass: str, distance: float) -> Modifier | None:
    """GSC2-BEAM-4: each *started* band beyond normal range costs 1."""
    d = distance
    if klass == "light":
        if d <= 6 + EPSILON:
            return Modifier("GSC2-BEAM-4", f"light beam short range ({_inches(d)})", 1)
        if d <= 12 + EPSILON:
            return None
        return Modifier("GSC2-BEAM-4", f"light beam long range ({_inches(d)})", -_bands(d - 12, 2))
    if klass == "medium":
        if d <= 24 + EPSILON:
            return None
        return Modifier("GSC2-BEAM-4", f"medium beam long range ({_inches(d)})", -_bands(d - 24, 6))
    if d <= 12 + EPSILON:
        return Modifier("GSC2-BEAM-4", f"heavy beam short range ({_inches(d)})", -1)
    if d <= 36 + EPSILON:
        return None
    return Modifier("GSC2-BEAM-4", f"heavy beam long range ({_inches(d)})", -_bands(d - 36, 12))


def _bands(beyond: float, width: float) -> int:
    return max(1, math.ceil(beyond / width - EPSILON))


def in_battery_arc(ship: ShipState, arc: str, target: Point) -> bool:
    centre, width = ARCS[arc]
    if ship.pos.distance_to(target) <= EPSILON:
        return True  # same spot: every arc reaches it
    return in_arc(relative_bearing(ship.pos, ship.heading, target), centre, width)


def roll_to_hit(dice: Dice, purpose: str, rule: str, targeting: int, mods: list[Modifier]) -> Roll:
    return dice.roll_under(10, purpose, rule, targeting, tuple(mods), success="hit", failure="miss")


def _inches(d: float) -> str:
    return f'{d:g}"' if abs(d - round(d)) < 1e-6 else f'{d:.1f}"'


inches = _inches
