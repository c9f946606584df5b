"""The drawing contract: what every ruleset's view says about drawing it (docs/view-contract.md).

A front-end renders any ruleset from a ``Drawing`` alone and never guesses from the shape of a
ruleset's own view. Positions are in the board's own units: inches on a plane table (x right, y down,
headings in degrees clockwise from north/up), axial (q, r) on a hex map, map coordinates on a star map.
Every drawing is per viewer: a ruleset with hidden information builds it from what the viewer may see.
"""

from __future__ import annotations

from typing import Literal

import msgspec

BoardKind = Literal["plane", "hex", "starmap"]


class Point2(msgspec.Struct, frozen=True, array_like=False):
    """A position: (x, y) on a plane or star map, (q, r) axial on a hex map."""

    x: float
    y: float


class Link(msgspec.Struct, frozen=True):
    """An edge of a star map (a jump route) between two of its nodes."""

    a: str
    b: str
    label: str | None = None


class Node(msgspec.Struct, frozen=True):
    """A fixed place on the board: a world, a system, a jump point (star maps)."""

    id: str
    label: str
    at: Point2
    owner: str | None = None  # side owning it, when the viewer may know
    detail: str | None = None


class Board(msgspec.Struct, frozen=True):
    kind: BoardKind
    units: str  # "inches" | "hexes" | "map"
    width: float | None = None  # plane: table size in units
    height: float | None = None
    radius: int | None = None  # hex: cells with distance <= radius from (0, 0); None = unbounded
    orientation: Literal["flat", "pointy"] | None = None  # hex only
    facings: tuple[str, ...] = ()  # hex: names of the six facings, index 0 first (e.g. N, NE, …)
    nodes: tuple[Node, ...] = ()  # star map worlds
    links: tuple[Link, ...] = ()  # star map routes


class Bar(msgspec.Struct, frozen=True):
    """A track worth drawing beside a piece: hull, shields, crew, fuel…"""

    label: str
    value: float
    max: float


class Piece(msgspec.Struct, frozen=True):
    """Anything drawn at a position: ships, bogeys, salvos, terrain, fleets, projectiles."""

    id: str  # stable; what commands name
    kind: str  # "ship" | "bogey" | "missile" | "terrain" | "group" | "projectile" | "pod" | "buoy" | …
    label: str  # short, human (never JSON)
    at: Point2
    side: str | None = None  # None: no side the viewer may know (a bogey, terrain)
    facing: float | None = None  # degrees (plane) or facing index 0-5 (hex)
    status: str = "active"  # "active" | "destroyed" | "captured" | "left" | "hidden" | …
    bars: tuple[Bar, ...] = ()
    detail: str | None = None  # one line for a tooltip or the sheet header
    mine: bool = False  # the viewer commands it
    size: float | None = None  # plane: radius in units (terrain, blast areas); None = a token


class Arc(msgspec.Struct, frozen=True):
    """A fire or sensor arc of a piece: degrees clockwise from the piece's facing (plane) or absolute
    hex facings (hex, ``from_deg``/``to_deg`` as multiples of 60)."""

    piece: str
    label: str
    from_deg: float
    to_deg: float
    range: float  # in board units
    kind: str = "fire"  # "fire" | "sensor" | "move"


class Track(msgspec.Struct, frozen=True):
    """A path: a move just made, a missile's flight, a planned route."""

    kind: str  # "move" | "missile" | "route" | "projectile" | "plan"
    points: tuple[Point2, ...]
    piece: str | None = None
    label: str | None = None


class Marker(msgspec.Struct, frozen=True):
    """A lasting mark on the board: a contact, a sensor ping, a blocked route, a destination."""

    kind: str
    at: Point2
    label: str
    piece: str | None = None


class Effect(msgspec.Struct, frozen=True):
    """Something that just happened, drawn briefly: a shot, a hit or miss, damage, a detection.

    ``n`` increases through the game (a counter folded into state), so a page animates each effect
    once and a replay at any point shows the effects of that moment.
    """

    n: int
    kind: str  # "fire" | "hit" | "miss" | "damage" | "destroyed" | "detected" | "launch" | "explosion" | …
    text: str  # e.g. "3 damage", "miss", "detected"
    source: str | None = None  # piece id (a line from source to target when both are drawn)
    target: str | None = None
    at: Point2 | None = None  # when the effect is at a place rather than on a piece
    amount: float | None = None
    rule: str | None = None


class SeatStatus(msgspec.Struct, frozen=True):
    seat: str
    must_act: bool  # the game waits for this seat now
    why: str  # e.g. "your helm order", "waiting for red to move", "ended the phase"


class Status(msgspec.Struct, frozen=True):
    """Whose turn it is, in words, for the viewer (and for every seat the viewer may know about)."""

    turn: int
    phase: str  # the ruleset's phase id
    phase_label: str  # human, e.g. "Beams (phase 3 of 5)"
    seats: tuple[SeatStatus, ...]  # every seat's status as far as the viewer may know it
    you: SeatStatus | None = None  # the viewer's own seat (None for the umpire and spectators)
    umpire: str | None = None  # the umpire's pending duty in words, if any
    sealed: bool = False  # orders in this phase are sealed (simultaneous); others' choices are hidden
    over: bool = False
    result: str | None = None


class Drawing(msgspec.Struct, frozen=True):
    board: Board
    status: Status
    pieces: tuple[Piece, ...] = ()
    arcs: tuple[Arc, ...] = ()
    tracks: tuple[Track, ...] = ()
    markers: tuple[Marker, ...] = ()
    effects: tuple[Effect, ...] = ()
    sides: tuple[str, ...] = ()  # every side, in a stable order (colours are assigned by this order)


def pt(x: float, y: float) -> Point2:
    return Point2(float(x), float(y))
