"""Events: facts with every die that produced them and every result, so evolve only applies them."""

from __future__ import annotations

import msgspec

from service.domain.core import Event
from service.domain.core.hexgrid import Hex

from .values import EngAction, Projectile


class RoundStarted(Event, frozen=True, tag="starfinder.round_started"):
    """A new round (SF-RND-1): role changes take effect (SF-ROLE-3), last round's effects end."""

    round: int
    roles: dict[str, str] = {}  # seat -> new role


class PhaseStarted(Event, frozen=True, tag="starfinder.phase_started"):
    round: int
    phase: str


class RoleChangeRequested(Event, frozen=True, tag="starfinder.role_change_requested"):
    seat: str
    role: str


class BattleStationsDeclared(Event, frozen=True, tag="starfinder.battle_stations"):
    ship: str
    seat: str | None
    seen_by: tuple[str, ...]  # ships with working sensors (SF-ROLE-5)


class Passed(Event, frozen=True, tag="starfinder.passed"):
    seat: str
    phase: str


class EngineeringDeclared(Event, frozen=True, tag="starfinder.engineering_declared"):
    action: EngAction


class EngineeringResolved(Event, frozen=True, tag="starfinder.engineering_resolved"):
    seat: str
    ship: str
    action: str  # patch | divert
    dc: int
    success: bool
    system: str | None = None
    to: str | None = None
    patched: int = 0  # the system's patched steps after
    speed_bonus: int = 0
    shields: dict[str, int] = {}  # the ship's shields after
    lost: int = 0  # diverted points beyond the shields' maximum


class HelmOrderSet(Event, frozen=True, tag="starfinder.helm_order"):
    """Piloting checks and tie-breaks (SF-HELM-1..4): lowest first."""

    order: tuple[str, ...]
    results: dict[str, int]


class SlotOpened(Event, frozen=True, tag="starfinder.slot_opened"):
    """The next ship in the helm order acts (helm: pilot and science officers; gunnery: gunners)."""

    phase: str
    slot: int
    ship: str


class ShipMoved(Event, frozen=True, tag="starfinder.ship_moved"):
    ship: str
    seat: str | None
    manoeuvre: str  # move | back_off | barrel_roll | evade | flip_and_burn | flyby | slide | turn_in_place | drift
    path: tuple[Hex, ...]  # start, then every hex entered
    facing: int
    turns: int = 0
    dc: int | None = None
    success: bool | None = None
    margin: int | None = None  # check total − DC
    defence: int = 0  # AC and TL modifier until the next round
    rolled: bool = False
    flyby: str | None = None


class Attacked(Event, frozen=True, tag="starfinder.attacked"):
    """A gunnery check (or a free attack): the roll, the result and, on a hit, the damage rolled."""

    ship: str
    weapon: str
    target: str
    kind: str  # gunnery | free
    seat: str | None = None
    arc: str | None = None
    quadrant: str | None = None
    distance: int = 0
    defence: str = "AC"
    needed: int = 0
    total: int | None = None  # None: the check failed automatically (wrecked system)
    hit: bool = False
    natural20: bool = False
    damage: int = 0
    projectile: Projectile | None = None  # a tracking projectile left in flight (SF-GUN-8)
    flight: tuple[Hex, ...] = ()  # the projectile's path this phase
    arrived: bool = False
    flyby: bool = False
    boundary: bool = False  # the target sat on an arc boundary: this arc is now the pick (SF-GUN-4)


class ProjectileChecked(Event, frozen=True, tag="starfinder.projectile_checked"):
    """The start-of-gunnery check of a projectile in flight (SF-GUN-8)."""

    projectile: str
    target: str
    needed: int
    total: int | None
    success: bool
    path: tuple[Hex, ...] = ()
    arrived: bool = False
    damage: int = 0
    quadrant: str | None = None
    why: str = ""


class Crit(msgspec.Struct, frozen=True):
    system: str
    before: int
    after: int


class DamageApplied(Event, frozen=True, tag="starfinder.damage_applied"):
    target: str
    attacker: str
    weapon: str
    quadrant: str
    damage: int
    absorbed: int
    shield: int  # the quadrant's shield points after
    hull_damage: int
    blocked_by_dt: bool
    hull: int  # after
    crits: tuple[Crit, ...] = ()
    status: str = "active"
    settles: bool = False  # applies the first pending hit of the gunnery phase (SF-GUN-1)


class ScienceResult(Event, frozen=True, tag="starfinder.science"):
    seat: str
    ship: str
    action: str  # scan | lock_on | countermeasures
    target: str
    dc: int
    success: bool
    side: str = ""


class Encouraged(Event, frozen=True, tag="starfinder.encouraged"):
    seat: str
    crew: str
    success: bool


class GameOver(Event, frozen=True, tag="starfinder.game_over"):
    winner: str | None
    reason: str


EVENTS = (
    RoundStarted,
    PhaseStarted,
    RoleChangeRequested,
    BattleStationsDeclared,
    Passed,
    EngineeringDeclared,
    EngineeringResolved,
    HelmOrderSet,
    SlotOpened,
    ShipMoved,
    Attacked,
    ProjectileChecked,
    DamageApplied,
    ScienceResult,
    Encouraged,
    GameOver,
)
