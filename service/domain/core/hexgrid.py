"""A flat-topped hex grid in axial coordinates (q, r), with facings.

Facing k (0..5) points through hexside k: 0 = N (up), 1 = NE, 2 = SE, 3 = S, 4 = SW, 5 = NW.
"""

from __future__ import annotations

import math

import msgspec

DIRECTIONS: tuple[tuple[int, int], ...] = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0))
FACING_NAMES = ("N", "NE", "SE", "S", "SW", "NW")
_EPS = 1e-9


class Hex(msgspec.Struct, frozen=True, array_like=True):
    q: int
    r: int

    @property
    def s(self) -> int:
        return -self.q - self.r

    def neighbour(self, facing: int) -> Hex:
        dq, dr = DIRECTIONS[facing % 6]
        return Hex(self.q + dq, self.r + dr)

    def neighbours(self) -> list[Hex]:
        return [self.neighbour(f) for f in range(6)]

    def distance_to(self, other: Hex) -> int:
        dq, dr = self.q - other.q, self.r - other.r
        return (abs(dq) + abs(dr) + abs(dq + dr)) // 2

    def center(self) -> tuple[float, float]:
        """Pixel-style centre with unit hex size; y grows downward (screen convention)."""
        return 1.5 * self.q, math.sqrt(3) * (self.r + self.q / 2)

    def bearing_to(self, other: Hex) -> float:
        """Absolute bearing in degrees [0, 360), 0 = N, clockwise (facing k is at 60k degrees)."""
        ax, ay = self.center()
        bx, by = other.center()
        deg = math.degrees(math.atan2(bx - ax, -(by - ay)))
        return round(deg % 360.0, 9) % 360.0


def turn(facing: int, hexsides: int) -> int:
    """Facing after turning ``hexsides`` clockwise (negative = anticlockwise)."""
    return (facing + hexsides) % 6


def turn_steps(from_facing: int, to_facing: int) -> int:
    """Fewest hexside turns between two facings (0..3)."""
    d = (to_facing - from_facing) % 6
    return min(d, 6 - d)


def arcs_containing(origin: Hex, target: Hex, facing: int = 0) -> frozenset[int]:
    """Arcs (0..5, relative to ``facing``) that contain ``target``; a hex on a boundary is in both.

    Arc k spans 60 degrees centred on hexside k. The origin hex itself lies in every arc.
    """
    if origin == target:
        return frozenset(range(6))
    rel = (origin.bearing_to(target) - 60.0 * facing) % 360.0
    arcs = set()
    for k in range(6):
        d = abs(rel - 60.0 * k) % 360.0
        if min(d, 360.0 - d) <= 30.0 + _EPS:
            arcs.add(k)
    return frozenset(arcs)


def in_arcs(origin: Hex, facing: int, target: Hex, arcs: frozenset[int] | set[int]) -> bool:
    return bool(arcs_containing(origin, target, facing) & set(arcs))


def line(a: Hex, b: Hex) -> list[Hex]:
    """Hexes on the straight line from a to b inclusive (cube lerp, nudged off vertices)."""
    n = a.distance_to(b)
    if n == 0:
        return [a]
    out = []
    for i in range(n + 1):
        t = i / n
        q = a.q + (b.q - a.q) * t + 1e-6
        r = a.r + (b.r - a.r) * t + 1e-6
        out.append(_round(q, r))
    return out


def _round(qf: float, rf: float) -> Hex:
    sf = -qf - rf
    q, r, s = round(qf), round(rf), round(sf)
    dq, dr, ds = abs(q - qf), abs(r - rf), abs(s - sf)
    if dq > dr and dq > ds:
        q = -r - s
    elif dr > ds:
        r = -q - s
    return Hex(int(q), int(r))


def ring(center: Hex, radius: int) -> list[Hex]:
    if radius == 0:
        return [center]
    h = Hex(center.q + DIRECTIONS[4][0] * radius, center.r + DIRECTIONS[4][1] * radius)
    out = []
    for side in range(6):
        for _ in range(radius):
            out.append(h)
            h = h.neighbour((2 - side) % 6)
    return out
