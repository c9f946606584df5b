"""To-hit arithmetic shared by beams, missiles, tractors, pods and teleporters (GSC2-HIT-1/2, GSC2-BEAM-4)."""

from __future__ import annotations

import math

from service.domain.core import Dice, Modifier, Roll
from service.domain.core.plane import EPSILON, Point, in_arc, relative_bearing

from .ships import ARCS
from .state import ShipState


def target_modifiers(target: ShipState, aspect: int) -> list[Modifier]:
    """Aspect and GSC2-HIT-2's deflector and movement modifiers."""
    mods = []
    if aspect:
        mods.append(Modifier("GSC2-HIT-1", "target aspect", aspect))
    defl = target.level("deflectors")
    if defl:
        mods.append(Modifier("GSC2-HIT-2", f"target deflectors level {defl}", -defl))
    if target.moved <= EPSILON and not target.turned:
        mods.append(Modifier("GSC2-HIT-2", "target did not move", 2))
    elif target.moved <= 4 + EPSILON:
        mods.append(Modifier("GSC2-HIT-2", f"target moved {_inches(target.moved)} (≤ 4\")", 1))
    elif target.moved >= 12 - EPSILON:
        mods.append(Modifier("GSC2-HIT-2", f"target moved {_inches(target.moved)} (≥ 12\")", -1))
    return mods


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
    return f"{d:g}\"" if abs(d - round(d)) < 1e-6 else f"{d:.1f}\""


inches = _inches
