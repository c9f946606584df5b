"""The open table measured in inches: y grows up the table; headings in degrees, 0 = up, clockwise."""

from __future__ import annotations

import math

import msgspec

EPSILON = 1e-9  # measurements on the table are floats; edges of arcs and ranges are inclusive


class Point(msgspec.Struct, frozen=True, array_like=True):
    x: float
    y: float

    def distance_to(self, other: Point) -> float:
        return math.hypot(other.x - self.x, other.y - self.y)

    def bearing_to(self, other: Point) -> float:
        """Absolute bearing in degrees [0, 360), 0 = up the table, clockwise."""
        return normalize_heading(math.degrees(math.atan2(other.x - self.x, other.y - self.y)))

    def advanced(self, heading: float, inches: float) -> Point:
        rad = math.radians(heading)
        return Point(_clean(self.x + inches * math.sin(rad)), _clean(self.y + inches * math.cos(rad)))

    def toward(self, other: Point, inches: float) -> Point:
        """The point ``inches`` along the straight line to ``other`` (not beyond it)."""
        total = self.distance_to(other)
        if total <= inches + EPSILON:
            return other
        f = inches / total
        return Point(_clean(self.x + (other.x - self.x) * f), _clean(self.y + (other.y - self.y) * f))


def _clean(value: float) -> float:
    """Round away float dust so that 4" moves stay exactly 4" (12 decimal places are plenty)."""
    return round(value, 12) + 0.0


def normalize_heading(degrees: float) -> float:
    h = math.fmod(degrees, 360.0)
    if h < 0:
        h += 360.0
    if abs(h - 360.0) < EPSILON or abs(h) < EPSILON:
        return 0.0
    return round(h, 9)


def relative_bearing(origin: Point, heading: float, target: Point) -> float:
    """Where ``target`` lies from a ship at ``origin`` facing ``heading``: (-180, 180], 0 = dead ahead."""
    rel = normalize_heading(origin.bearing_to(target) - heading)
    return rel - 360.0 if rel > 180.0 else rel


def angle_between(a: float, b: float) -> float:
    """Smallest absolute difference between two headings, in [0, 180]."""
    d = abs(normalize_heading(a) - normalize_heading(b))
    return min(d, 360.0 - d)


def in_arc(rel_bearing: float, centre: float, width: float) -> bool:
    """Whether a relative bearing lies inside an arc of ``width`` degrees centred on ``centre``.

    The edges are inside (a target exactly on ±45° of a 90° arc may be fired at).
    """
    if width >= 360.0:
        return True
    return angle_between(rel_bearing, centre) <= width / 2.0 + EPSILON


def segment_point_distance(a: Point, b: Point, p: Point) -> float:
    """Closest approach of point ``p`` to the segment a→b (for "passes within 1 inch")."""
    dx, dy = b.x - a.x, b.y - a.y
    length2 = dx * dx + dy * dy
    if length2 == 0.0:
        return a.distance_to(p)
    t = max(0.0, min(1.0, ((p.x - a.x) * dx + (p.y - a.y) * dy) / length2))
    return math.hypot(a.x + t * dx - p.x, a.y + t * dy - p.y)
