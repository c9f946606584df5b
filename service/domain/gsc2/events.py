"""Events: facts, with every die that produced them and every result, so evolve only applies them."""

from __future__ import annotations

import msgspec

from service.domain.core import Event
from service.domain.core.plane import Point

from .values import BoardOrder, Order, PendingHit, Sabotage, Sys, Troops


class GameStarted(Event, frozen=True, tag="gsc2.game_started"):
    turn_limit: int | None = None


class TurnStarted(Event, frozen=True, tag="gsc2.turn_started"):
    """Per-turn counters reset; shield pools refilled from current shield levels (GSC2-DMG-2)."""

    turn: int
    shield_pools: dict[str, int]


class PhaseStarted(Event, frozen=True, tag="gsc2.phase_started"):
    turn: int
    phase: str


class TerrainDrifted(Event, frozen=True, tag="gsc2.terrain_drifted"):
    positions: dict[str, Point]


class RollOff(Event, frozen=True, tag="gsc2.roll_off"):
    """d10 each, re-rolling ties (GSC2-MOV-2, GSC2-MSL-2); the winner chooses the order."""

    purpose: str
    winner: str


class OrderSet(Event, frozen=True, tag="gsc2.order_set"):
    order: Order
    why: str = ""


class ShipMoved(Event, frozen=True, tag="gsc2.ship_moved"):
    ship: str
    path: tuple[Point, ...]  # start, then the end of every leg
    heading: float
    distance: float  # this command's inches travelled
    moved: float  # total inches this turn (GSC2-MOV-5)
    turns: int
    paid_turns: int
    since_turn: float
    move_left: float
    finished: bool
    contacts: tuple[str, ...] = ()  # GSC2-MOV-7
    left_table: bool = False  # GSC2-R-18: the move crossed the table edge; the ship has left play
    # GSC2-R-20: None for a move; True the ship disengaged (left play, status "left"); False the attempt failed
    disengaged: bool | None = None


class TractorFired(Event, frozen=True, tag="gsc2.tractor_fired"):
    ship: str
    system: str
    target: str
    distance: float
    hit: bool
    ended_move: bool


class SideDone(Event, frozen=True, tag="gsc2.side_done"):
    side: str
    phase: str


class MissilesLaunched(Event, frozen=True, tag="gsc2.missiles_launched"):
    ship: str
    battery: str
    target: str
    salvo: str
    count: int
    damage: int
    targeting: int
    pos: Point


class MissilesMoved(Event, frozen=True, tag="gsc2.missiles_moved"):
    salvo: str
    start: Point
    end: Point
    remaining: int
    arrived: bool
    removed: str = ""  # why the salvo left the table ("" = still there)
    lost_tracking: int = 0
    intercepted: int = 0
    mds_fired: dict[str, int] = {}  # ship -> MDS used
    terrain: tuple[str, ...] = ()


class MissileAttack(Event, frozen=True, tag="gsc2.missile_attack"):
    salvo: str
    target: str
    missiles: int
    hits: int
    damage: int


class BeamFired(Event, frozen=True, tag="gsc2.beam_fired"):
    ship: str
    battery: str
    target: str
    distance: float
    weapons: int
    damage: int
    klass: str
    hit: bool
    needed: int
    ship_name: str = ""
    battery_name: str = ""
    target_name: str = ""


class HitResult(msgspec.Struct, frozen=True):
    """One weapon's damage on a target (embedded in DamageApplied)."""

    source: str
    damage: int
    absorbed: int
    hull: int
    saved: bool | None = None  # None: no armor save (shields touched it, GSC2-DMG-3)
    row: int | None = None
    system: str | None = None  # system hit (None: save made, or row all destroyed)
    system_rule: str | None = None


class DamageApplied(Event, frozen=True, tag="gsc2.damage_applied"):
    target: str
    hits: tuple[HitResult, ...]
    absorbed: int
    hull_damage: int
    hull: int
    systems: dict[str, Sys]
    destroyed: bool


class PodLaunched(Event, frozen=True, tag="gsc2.pod_launched"):
    ship: str
    pod: str
    squad: str
    pos: Point


class PodMoved(Event, frozen=True, tag="gsc2.pod_moved"):
    pod: str
    pos: Point
    moved: float
    ram: str | None = None


class BoardingDeclared(Event, frozen=True, tag="gsc2.boarding_declared"):
    order: BoardOrder
    troops_left: dict[str, Sys]  # the boarding ship's squads after the troops left


class SaboteursSent(Event, frozen=True, tag="gsc2.saboteurs_sent"):
    sabotage: Sabotage


class CasualtyOrderSet(Event, frozen=True, tag="gsc2.casualty_order_set"):
    side: str
    order: tuple[str, ...]


class BoardingResolved(Event, frozen=True, tag="gsc2.boarding_resolved"):
    """One boarding action landed or failed (GSC2-BRD-2..4); ``arrived`` joins the boarders."""

    method: str
    side: str
    ship: str
    target: str
    arrived: Troops
    failed: Troops
    pod: str | None = None
    pod_lost: bool = False


class TroopCombat(Event, frozen=True, tag="gsc2.troop_combat"):
    """Boarding combat aboard one ship (GSC2-BRD-5): survivors on both sides."""

    ship: str
    defenders: Troops
    boarders: dict[str, Troops]
    hits_by_defenders: int
    hits_by_boarders: int
    crew: int
    squads: dict[str, Sys]


class SystemSabotaged(Event, frozen=True, tag="gsc2.system_sabotaged"):
    ship: str
    side: str
    unit: str
    system: str
    success: bool
    sys: Sys | None = None


class ShipCaptured(Event, frozen=True, tag="gsc2.ship_captured"):
    ship: str
    by: str


class Repaired(Event, frozen=True, tag="gsc2.repaired"):
    ship: str
    system: str
    success: bool
    sys: Sys


class RulingMade(Event, frozen=True, tag="gsc2.ruling_made"):
    ship: str
    system: str
    effect: str


class GameOver(Event, frozen=True, tag="gsc2.game_over"):
    winner: str | None
    reason: str
    hull: dict[str, int] = {}


EVENTS = (
    GameStarted,
    TurnStarted,
    PhaseStarted,
    TerrainDrifted,
    RollOff,
    OrderSet,
    ShipMoved,
    TractorFired,
    SideDone,
    MissilesLaunched,
    MissilesMoved,
    MissileAttack,
    BeamFired,
    DamageApplied,
    PodLaunched,
    PodMoved,
    BoardingDeclared,
    SaboteursSent,
    CasualtyOrderSet,
    BoardingResolved,
    TroopCombat,
    SystemSabotaged,
    ShipCaptured,
    Repaired,
    RulingMade,
    GameOver,
)

__all__ = ["PendingHit", "EVENTS"]
