"""The game state: a pure fold of the events (JSON-able msgspec structs only)."""

from __future__ import annotations

from typing import ClassVar

import msgspec

from service.domain.core import Clock
from service.domain.core.plane import Point

from .scenario import Scenario, TerrainSpec
from .ships import BUILTIN, ShipSpec
from .values import BoardOrder, Order, PendingHit, Sabotage, Sys, Troops

PHASES = ("movement", "missiles", "beams", "boarding", "repairs")


class ShipState(msgspec.Struct, frozen=True):
    id: str
    side: str
    pos: Point
    heading: float
    hull: int
    crew: int
    sys: dict[str, Sys]
    status: str = "active"  # active | destroyed | captured | left (sailed off the table, GSC2-R-18)
    captured_by: str | None = None
    # movement this turn (GSC2-MOV-3..5)
    move_state: str = "unmoved"  # unmoved | moving | moved
    moved: float = 0.0
    turned: bool = False
    since_turn: float = 0.0
    move_left: float = 0.0
    held: bool = False  # hit by a tractor beam this turn (GSC2-R-3)
    contacts: tuple[str, ...] = ()  # immobilized enemies contacted this turn (GSC2-MOV-7)
    # per-turn use
    shield_pool: int = 0
    used: tuple[str, ...] = ()  # batteries, tractors fired this turn
    mds_used: int = 0
    transporters_used: int = 0
    repairs_used: int = 0
    last_launch: dict[str, int] = {}
    missiles_left: dict[str, int] = {}
    pods: int = 0
    boarders: dict[str, Troops] = {}  # enemy troops aboard, by side

    @property
    def active(self) -> bool:
        return self.status == "active"

    @property
    def speed(self) -> int:
        d = self.sys["drive"]
        return 0 if d.destroyed else d.level

    @property
    def immobilized(self) -> bool:
        return self.speed <= 0

    def level(self, system: str) -> int:
        s = self.sys.get(system)
        return 0 if s is None or s.destroyed else max(0, s.level)


class TerrainState(msgspec.Struct, frozen=True):
    spec: TerrainSpec
    pos: Point


class Salvo(msgspec.Struct, frozen=True):
    id: str
    side: str
    ship: str
    battery: str
    target: str
    pos: Point
    count: int
    damage: int
    targeting: int
    moved: bool = False  # this turn
    arrived: bool = False
    tracked: bool = False  # took its tracking test this turn (GSC2-MSL-5)


class Pod(msgspec.Struct, frozen=True):
    id: str
    side: str
    ship: str
    pos: Point
    squad: str  # assault | heavy
    moved: float = 0.0  # inches this turn (GSC2-BRD-3)
    ram: str | None = None  # declared ram target this turn


class Mark(msgspec.Struct, frozen=True):
    """Something that just happened, for the drawing's effects (fire, hit, damage…); ``n`` counts up."""

    n: int
    kind: str
    text: str
    source: str | None = None
    target: str | None = None
    at: Point | None = None
    amount: float | None = None
    rule: str | None = None


class Trail(msgspec.Struct, frozen=True):
    """A path drawn this turn: a ship's move (all its legs) or a salvo's flight."""

    kind: str  # move | missile
    piece: str
    points: tuple[Point, ...]


class Ruling(msgspec.Struct, frozen=True):
    turn: int
    ship: str
    system: str
    effect: str


# the umpire's rulings are shown, never read back by a rule: the state keeps the most recent for the view, the
# log keeps them all (kept whole, a long game's state and every fold's copying grew with them)
RECENT_RULINGS = 50


class GameState(msgspec.Struct, frozen=True):
    # fields added after battle files were exported: left out of a state hash while at their defaults
    HASH_NEUTRAL: ClassVar[frozenset[str]] = frozenset({"open_table"})

    sides: tuple[str, ...]
    specs: dict[str, ShipSpec]
    ships: dict[str, ShipState]
    terrain: dict[str, TerrainState]
    table: tuple[float, float]
    turn_limit: int | None
    open_table: bool = False  # GSC2-R-20: no table edge; ships leave only by gsc2.disengage
    turn: int = 0
    phase: str = "setup"
    done: tuple[str, ...] = ()
    order: Order = Order()
    moving: str | None = None
    salvos: dict[str, Salvo] = {}
    pods: dict[str, Pod] = {}
    pending: tuple[PendingHit, ...] = ()
    boarding: tuple[BoardOrder, ...] = ()
    sabotage: tuple[Sabotage, ...] = ()
    casualty_order: dict[str, tuple[str, ...]] = {}
    rulings: tuple[Ruling, ...] = ()  # the last RECENT_RULINGS (no rule reads them back; the log keeps all)
    counter: int = 0  # for salvo and pod ids
    over: bool = False
    winner: str | None = None
    result: str = ""
    # what the drawing shows of the last moments: effects of this phase and the one before, trails this turn
    marks: tuple[Mark, ...] = ()
    mark_n: int = 0  # the last effect's counter
    marks_from: int = 1  # the first counter of the current phase
    trails: tuple[Trail, ...] = ()

    def enemies(self, side: str) -> tuple[str, ...]:
        """Every other side: GSC2 has no alliances (GSC2-R-21), so with three forces each fights both others."""
        return tuple(s for s in self.sides if s != side)

    def enemy_ships(self, side: str) -> list[ShipState]:
        """The ships still in the fight that ``side`` may target, board, tractor or shoot missiles down from."""
        return [s for s in self.ships.values() if s.active and s.side != side]

    def rotation(self, first: str) -> tuple[str, ...]:
        """The sides in scenario order, starting at ``first`` (GSC2-R-21: how alternations go round)."""
        i = self.sides.index(first) if first in self.sides else 0
        return self.sides[i:] + self.sides[:i]

    def next_side(self, side: str) -> str:
        """The side after ``side`` in the rotation (with two sides: the enemy)."""
        return self.rotation(side)[1 % len(self.sides)]

    def in_battle(self) -> tuple[str, ...]:
        """The sides a phase waits for (GSC2-R-23): with three or more sides, those with a ship still in the
        fight (all of them once none has); with two, both (the battle is decided at the end of the turn)."""
        if len(self.sides) < 3:
            return self.sides
        return self.in_play() or self.sides

    def in_play(self) -> tuple[str, ...]:
        """The sides with a ship still in the fight (GSC2-R-23: a side with none is out of the battle)."""
        return tuple(side for side in self.sides if any(s.active and s.side == side for s in self.ships.values()))

    def active(self, side: str | None = None) -> list[ShipState]:
        return [s for s in self.ships.values() if s.active and (side is None or s.side == side)]

    def unmoved(self, side: str) -> int:
        return sum(1 for s in self.active(side) if s.move_state != "moved")


def initial_state(setup: Scenario) -> GameState:
    """The table before turn 1: every ship at its scenario place with its systems at full rating."""
    ships: dict[str, ShipState] = {}
    for spec in setup.ships:
        systems = {"drive": Sys(kind="drive", level=spec.speed, max=spec.speed)}
        for key in BUILTIN:
            n = getattr(spec, key)
            if n > 0:
                systems[key] = Sys(kind=key, level=n, max=n)
        for b in spec.beams:
            systems[b.id] = Sys(kind="beam", level=1, max=1)
        for m in spec.missiles:
            systems[m.id] = Sys(kind="missile", level=1, max=1)
        for s in spec.systems:
            systems[s.id] = Sys(kind=s.kind, level=s.level, max=s.level)
        ships[spec.id] = ShipState(
            id=spec.id,
            side=spec.side,
            pos=Point(float(spec.x), float(spec.y)),
            heading=spec.heading,
            hull=spec.hull,
            crew=spec.crew,
            sys=systems,
            missiles_left={m.id: m.carried for m in spec.missiles},
            pods=spec.assault_pods,
        )
    terrain = {t.id: TerrainState(spec=t, pos=Point(float(t.x), float(t.y))) for t in setup.terrain}
    return GameState(
        sides=tuple(setup.sides),
        specs={s.id: s for s in setup.ships},
        ships=ships,
        terrain=terrain,
        table=(setup.table.width, setup.table.height),
        turn_limit=setup.turn_limit,
        open_table=not setup.table.edge,
    )


def clock(state: GameState) -> Clock:
    """Before ``gsc2.start`` the game stands at turn 1's movement phase (GSC2-R-2)."""
    if state.phase == "setup":
        return Clock(1, "movement")
    return Clock(state.turn, state.phase)
