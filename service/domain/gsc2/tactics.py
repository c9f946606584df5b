"""The quantities the GSC2 bot weighs, read off a seat's view with the rule modules' own arithmetic:
expected beam damage (GSC2-HIT-1/2, GSC2-BEAM-2/3/4), missile damage (GSC2-MSL-6), hull at risk, and where
a free move ends (GSC2-MOV-3, GSC2-R-18). Nothing here sees the referee's state."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from service.domain.core.plane import Point, in_arc, relative_bearing

from .combat import hit_chance, hit_modifiers, range_modifier
from .movement import on_table
from .ships import ARCS

Ship = Mapping[str, Any]  # one entry of the view's "ships"


def pos(ship: Ship) -> Point:
    return Point(float(ship["x"]), float(ship["y"]))


def level(ship: Ship, system: str) -> int:
    s = ship["systems"].get(system)
    return 0 if s is None or s["destroyed"] else max(0, int(s["level"]))


def working(ship: Ship, system: str) -> bool:
    s = ship["systems"].get(system)
    return s is not None and not s["destroyed"] and not s["damaged"] and s["level"] > 0


def to_hit(targeting: int, target: Ship, moved: float | None = None, turned: bool | None = None) -> int:
    """GSC2-HIT-1/2: the target number against ``target`` (its movement this turn, or a supposed one)."""
    mods = hit_modifiers(
        int(target["data_sheet"]["aspect"]),
        level(target, "deflectors"),
        float(target["moved"] if moved is None else moved),
        bool(target.get("turned") if turned is None else turned),
    )
    return targeting + sum(m.value for m in mods)


def beam_value(
    battery: Mapping[str, Any], at: Point, heading: float, target: Ship, target_at: Point, moved: float | None = None
) -> float:
    """Expected hull damage of one battery's shot (0 outside its arc): P(hit) × weapons × damage."""
    if at.distance_to(target_at) > 1e-9 and not in_arc(relative_bearing(at, heading, target_at), *ARCS[battery["arc"]]):
        return 0.0
    need = to_hit(int(battery["targeting"]), target, moved, moved is not None and moved > 0)
    rng = range_modifier(battery["class"], at.distance_to(target_at))
    need += rng.value if rng is not None else 0
    return hit_chance(need) * int(battery["weapons"]) * int(battery["damage"])


def firepower(ship: Ship, at: Point, heading: float, enemies: list[Ship], enemy_at: dict[str, Point]) -> float:
    """Each working battery at its best target, from a given place and heading."""
    total = 0.0
    for b in ship["data_sheet"]["beams"]:
        if working(ship, b["id"]) and enemies:
            total += max(beam_value(b, at, heading, e, enemy_at[e["id"]]) for e in enemies)
    return total


def threat(me: Ship, at: Point, moved: float, enemies: list[Ship]) -> float:
    """What the enemy's batteries, where they stand now, would expect to do to ``me`` at ``at``."""
    total = 0.0
    for e in enemies:
        for b in e["data_sheet"]["beams"]:
            if working(e, b["id"]):
                total += beam_value(b, pos(e), float(e["heading"]), me, at, moved)
    return total


def trace(
    start: Point, heading: float, legs: list[dict[str, float]], table: tuple[float, float]
) -> tuple[Point, float, float, bool]:
    """Where a leg sequence ends: (position, heading, inches, stays on the table)."""
    p, h, run = start, heading, 0.0
    for leg in legs:
        h = (h + leg["turn"]) % 360
        p = p.advanced(h, leg["distance"])
        run += leg["distance"]
        if not on_table(p, table):
            return p, h, run, False
    return p, h, run, True


def candidate_legs(limits: Mapping[str, Any]) -> list[list[dict[str, float]]]:
    """Leg sequences the move rules allow (GSC2-MOV-3/4): straight runs, a free turn at the turn point
    (one or two), a paid turn at once, and the slow ship's turn at the end."""
    left = float(limits["max_distance_left"])
    free = float(limits["free_turn_after"])
    td = float(limits["turn_distance"])
    cost = float(limits["paid_turn_cost"])
    out: list[list[dict[str, float]]] = [[]]
    fractions = (0.25, 0.5, 0.75, 1.0)
    out += [[{"turn": 0, "distance": _part(left, f)}] for f in fractions if left > 0]
    for t in (-45, 45):
        if free <= left:  # the turn point is exact: a hair short of it and the turn is not free
            rest = left - free
            head = [{"turn": 0, "distance": free}] if free > 0 else []
            out += [[*head, {"turn": t, "distance": _part(rest, f)}] for f in (0.0, 0.5, 1.0)]
            if td > 0 and free + td <= left:
                out.append([*head, {"turn": t, "distance": td}, {"turn": t, "distance": _part(rest - td, 1.0)}])
        if left >= cost:
            out += [[{"turn": t, "distance": _part(left - cost, f)}] for f in (0.5, 1.0)]
        if limits["end_of_move_turn"]:
            out.append([{"turn": 0, "distance": left}, {"turn": t, "distance": 0}])
    return out


def _part(inches: float, fraction: float) -> float:
    """A share of the inches left, rounded down to a thousandth (never past the allowance)."""
    return max(0.0, math.floor(inches * fraction * 1000) / 1000)
