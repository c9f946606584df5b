import math

import pytest

from service.domain.core.hexgrid import Hex, arcs_containing, line, ring, turn, turn_steps
from service.domain.core.plane import Point, angle_between, in_arc, relative_bearing, segment_point_distance


def test_plane_distance_and_bearing():
    a = Point(0, 0)
    assert a.distance_to(Point(3, 4)) == 5
    assert a.bearing_to(Point(0, 5)) == 0  # up the table
    assert a.bearing_to(Point(5, 0)) == 90
    assert a.bearing_to(Point(0, -5)) == 180
    assert a.bearing_to(Point(-5, 0)) == 270


def test_advancing_along_a_heading():
    p = Point(0, 0).advanced(90, 4)
    assert p == Point(4, 0)
    q = Point(0, 0).advanced(45, math.sqrt(2))
    assert math.isclose(q.x, 1) and math.isclose(q.y, 1)


@pytest.mark.parametrize(
    ("target", "expected"),
    [((0, 10), 0.0), ((10, 0), 90.0), ((-10, 0), -90.0), ((0, -10), 180.0), ((10, 10), 45.0)],
)
def test_relative_bearing_of_a_ship_heading_up(target, expected):
    assert math.isclose(relative_bearing(Point(0, 0), 0, Point(*target)), expected)


def test_relative_bearing_accounts_for_heading():
    assert math.isclose(relative_bearing(Point(0, 0), 90, Point(10, 0)), 0.0)
    assert math.isclose(relative_bearing(Point(0, 0), 90, Point(0, 10)), -90.0)


@pytest.mark.parametrize(
    ("rel", "inside"),
    [(0, True), (44.9, True), (45, True), (-45, True), (45.1, False), (-45.1, False), (180, False)],
)
def test_90_degree_arc_boundaries_are_inclusive(rel, inside):
    assert in_arc(rel, 0, 90) is inside


@pytest.mark.parametrize(("rel", "inside"), [(90, True), (-90, True), (90.2, False), (135, False), (0, True)])
def test_180_degree_sponson_arc(rel, inside):
    assert in_arc(rel, 0, 180) is inside


def test_arc_on_the_tail_wraps_around_180():
    assert in_arc(180, 180, 90) and in_arc(-170, 180, 90) and in_arc(135, 180, 90)
    assert not in_arc(134, 180, 90)


def test_exact_diagonal_target_is_on_the_edge_of_both_arcs():
    rel = relative_bearing(Point(0, 0), 0, Point(7, 7))
    assert in_arc(rel, 0, 90) and in_arc(rel, 90, 90)


def test_angle_between_and_segment_distance():
    assert angle_between(350, 10) == 20
    assert segment_point_distance(Point(0, 0), Point(10, 0), Point(5, 1)) == 1
    assert segment_point_distance(Point(0, 0), Point(10, 0), Point(12, 0)) == 2


def test_hex_distance_and_neighbours():
    origin = Hex(0, 0)
    assert origin.distance_to(Hex(3, -1)) == 3
    assert all(origin.distance_to(n) == 1 for n in origin.neighbours())
    assert len(set(origin.neighbours())) == 6


def test_hex_facings_point_through_hexsides_clockwise():
    origin = Hex(0, 0)
    assert [round(origin.bearing_to(origin.neighbour(f))) for f in range(6)] == [0, 60, 120, 180, 240, 300]


def test_turning():
    assert turn(0, -1) == 5 and turn(5, 2) == 1
    assert turn_steps(0, 3) == 3 and turn_steps(1, 5) == 2


def test_arcs_of_adjacent_hexes_relative_to_facing():
    origin = Hex(0, 0)
    assert arcs_containing(origin, origin.neighbour(0), facing=0) == frozenset({0})
    assert arcs_containing(origin, origin.neighbour(2), facing=1) == frozenset({1})
    assert arcs_containing(origin, origin, facing=3) == frozenset(range(6))


def test_hex_on_an_arc_boundary_is_in_both_arcs():
    assert arcs_containing(Hex(0, 0), Hex(1, -2)) == frozenset({0, 1})


def test_line_and_ring():
    path = line(Hex(0, 0), Hex(3, -3))
    assert path[0] == Hex(0, 0) and path[-1] == Hex(3, -3) and len(path) == 4
    assert all(path[i].distance_to(path[i + 1]) == 1 for i in range(3))
    for radius in range(4):
        hexes = ring(Hex(2, -1), radius)
        assert len(set(hexes)) == max(1, 6 * radius)
        assert all(Hex(2, -1).distance_to(h) == radius for h in hexes)
