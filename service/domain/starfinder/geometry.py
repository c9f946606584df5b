"""Hex geometry for Starfinder: arcs and quadrants with exact integer arithmetic (SF-GUN-4), range (SF-GUN-5)."""

from __future__ import annotations

from service.domain.core.hexgrid import Hex

from .scenario import RANGES

MAX_INCREMENTS = 10  # SF-R-8: no weapon reaches beyond ten range increments


def relative(origin: Hex, facing: int, target: Hex) -> tuple[int, int]:
    """The offset to ``target`` rotated so that ``facing`` points north (exact cube rotation)."""
    x, z = target.q - origin.q, target.r - origin.r
    y = -x - z
    for _ in range(facing % 6):  # rotate 60 degrees anticlockwise: (x, y, z) -> (-y, -z, -x)
        x, y, z = -y, -z, -x
    return x, z


def arcs_of(origin: Hex, facing: int, target: Hex) -> tuple[str, ...]:
    """SF-GUN-4: the arcs (forward, starboard, aft, port) holding ``target``; a boundary hex is in two.

    With facing north, the bearing θ from north satisfies tan θ = X / Y where X = 1.5 q and
    Y = (√3 / 2)(−2r − q); |θ| = 60° exactly when |q| = −2r − q, and |θ| = 120° when |q| = 2r + q.
    """
    if origin == target:
        return ("forward", "starboard", "aft", "port")
    q, r = relative(origin, facing, target)
    a = -2 * r - q
    side = "starboard" if q > 0 else "port"
    # a = 0 with q = 0 is the origin's own hex (above), so |q| < a needs a > 0 and |q| = a a ≠ 0
    if abs(q) < a:
        return ("forward",)
    if abs(q) == a:
        return ("forward", side)
    if abs(q) < -a:
        return ("aft",)
    if abs(q) == -a:
        return (side, "aft")
    return (side,)


def swap(arc: str) -> str:
    """SF-STUNT-2: after a barrel roll port works as starboard and vice versa."""
    return {"port": "starboard", "starboard": "port"}.get(arc, arc)


def range_penalty(distance: int, range_name: str) -> int:
    """SF-GUN-5: −2 for every range increment beyond the first."""
    inc = RANGES[range_name]
    return -2 * max(0, -(-distance // inc) - 1)


def out_of_range(distance: int, range_name: str) -> bool:
    return -(-distance // RANGES[range_name]) > MAX_INCREMENTS


def step_toward(a: Hex, b: Hex) -> Hex:
    """One hex from a toward b (perfect manoeuvrability; ties broken by facing order)."""
    return min(a.neighbours(), key=lambda n: n.distance_to(b))


def chase(start: Hex, target: Hex, speed: int) -> tuple[Hex, ...]:
    """A projectile's path: up to ``speed`` hexes straight at the target (SF-GUN-8)."""
    path = [start]
    while len(path) <= speed and path[-1] != target:
        path.append(step_toward(path[-1], target))
    return tuple(path)
