"""Hex path geometry for moves (ASC-MOV-2): steps F/L/R, the hexes they pass, and the steps of a hex path."""

from __future__ import annotations

from service.domain.core.hexgrid import DIRECTIONS, Hex

Step = str  # "F" one hex forward, "L"/"R" one hexside anticlockwise/clockwise


def trace(start: Hex, facing: int, path: tuple[str, ...]) -> tuple[list[Hex], int]:
    """The hexes entered (start first) and the final facing of a path of steps."""
    hexes = [start]
    for step in path:
        if step == "F":
            hexes.append(hexes[-1].neighbour(facing))
        elif step == "L":
            facing = (facing - 1) % 6
        else:
            facing = (facing + 1) % 6
    return hexes, facing


def turns(from_facing: int, to_facing: int) -> tuple[str, ...]:
    """The fewest hexside turns from one facing to another (three clockwise for a reversal)."""
    d = (to_facing - from_facing) % 6
    return ("R",) * d if d <= 3 else ("L",) * (6 - d)


def direction(a: Hex, b: Hex) -> int | None:
    """The facing that leads from hex ``a`` into the adjacent hex ``b`` (None when not adjacent)."""
    delta = (b.q - a.q, b.r - a.r)
    return DIRECTIONS.index(delta) if delta in DIRECTIONS else None


def steps_for(start: Hex, facing: int, hexes: tuple[Hex, ...], end_facing: int | None) -> tuple[str, ...] | int:
    """The cheapest steps entering ``hexes`` in order (each adjacent to the last), then turning to
    ``end_facing``; the index of the first hex that is not adjacent to its predecessor otherwise."""
    if hexes and hexes[0] == start:
        hexes = hexes[1:]
    out: list[str] = []
    here = start
    for i, h in enumerate(hexes):
        d = direction(here, h)
        if d is None:
            return i
        out += [*turns(facing, d), "F"]
        facing, here = d, h
    if end_facing is not None:
        out += turns(facing, end_facing)
    return tuple(out)
