"""The game state: a pure fold of the events (JSON-able msgspec structs; tuples and dicts, no sets)."""

from __future__ import annotations

from typing import ClassVar

import msgspec

from service.domain.core.hexgrid import Hex

from .scenario import ARCS, CrewSpec, Scenario, ShipSpec, seat_id
from .values import EngAction, Projectile

PHASES = ("engineering", "helm", "gunnery")  # SF-RND-1
# SF-DMG-5: the critical table, top to bottom (a wrecked system passes the hit down, wrapping round)
SYSTEMS = ("life_support", "sensors", "weapons", "engines", "power_core")
ARRAYS = ("weapons_forward", "weapons_aft", "weapons_port", "weapons_starboard")
CONDITIONS = ("nominal", "glitching", "malfunctioning", "wrecked")
# which role acts in which phase (SF-ROLE-2); the captain acts in any one phase
ROLE_PHASE = {"engineer": "engineering", "pilot": "helm", "science_officer": "helm", "gunner": "gunnery"}


class Crew(msgspec.Struct, frozen=True):
    # fields added after battle files were exported: left out of a state hash while at their defaults
    HASH_NEUTRAL: ClassVar[frozenset[str]] = frozenset({"role_requests"})

    seat: str  # "ship/crew": the seat's name (SF-ROLE-4)
    ship: str
    role: str
    next_role: str | None = None  # a role change waiting for the next round (SF-ROLE-3)
    role_requests: int = 0  # role change requests this round (SF-R-23 bounds them)
    acted: bool = False  # has taken its one action this round (SF-R-3)
    bonus: int = 0  # the captain's encouragement for the rest of the round (SF-R-4)


class Hit(msgspec.Struct, frozen=True):
    """Damage waiting for the end of the gunnery phase (SF-GUN-1), in firing order."""

    attacker: str
    weapon: str
    target: str
    quadrant: str
    damage: int
    natural20: bool = False


class Mark(msgspec.Struct, frozen=True):
    """Something that just happened, kept for drawing (a shot, a hit or miss, damage, a shield change).

    ``n`` counts every mark of the game (folded in state), so a page animates each once; ``phase_no`` is the
    phase it happened in: the state keeps the current and the previous phase's marks only."""

    n: int
    kind: str  # fire | hit | miss | damage | critical | shields | destroyed | disabled | launch | explosion
    text: str
    phase_no: int
    source: str | None = None  # ship or projectile id
    target: str | None = None
    at: Hex | None = None
    amount: int | None = None
    rule: str | None = None


class Trail(msgspec.Struct, frozen=True):
    """A path drawn for the current round: a helm move, a drift, a projectile's flight."""

    kind: str  # move | projectile
    points: tuple[Hex, ...]
    piece: str
    label: str


class ShipState(msgspec.Struct, frozen=True):
    id: str
    side: str
    hex: Hex
    facing: int
    hull: int
    shields: dict[str, int]
    conditions: dict[str, int] = {}  # system -> 0..3 (SF-DMG-5)
    patched: dict[str, int] = {}  # system -> steps patched (SF-RND-2)
    status: str = "active"  # active | disabled | destroyed (SF-MOV-4, SF-DMG-6)
    battle_stations: bool = False  # SF-ROLE-5
    revealed_to: tuple[str, ...] = ()  # sides whose science officers scanned it (SF-RND-3)
    # effects until the start of the next round
    defence: int = 0  # AC and TL modifier from stunts (SF-STUNT-*)
    rolled: bool = False  # barrel roll: port and starboard swap for the gunnery phase (SF-STUNT-2)
    speed_bonus: int = 0  # divert to engines (SF-RND-2)
    flyby: str | None = None  # SF-STUNT-5
    flyby_arc: str | None = None
    locks: tuple[str, ...] = ()  # lock on targets (SF-RND-3)
    countermeasures: tuple[str, ...] = ()  # attacking ships countered (SF-RND-3)
    fired: tuple[str, ...] = ()  # weapons fired this round (SF-GUN-2)
    arc_picks: dict[str, str] = {}  # boundary target -> the arc chosen this round (SF-GUN-4)

    @property
    def active(self) -> bool:
        return self.status == "active"

    def condition(self, system: str) -> int:
        """Effective severity: patches make a system count as less severe (SF-RND-2)."""
        return max(0, self.conditions.get(system, 0) - self.patched.get(system, 0))


class GameState(msgspec.Struct, frozen=True):
    sides: tuple[str, ...]
    specs: dict[str, ShipSpec]
    members: dict[str, CrewSpec]  # seat -> crew data
    ships: dict[str, ShipState]
    crew: dict[str, Crew]
    round: int = 1
    phase: str = "engineering"
    order: tuple[str, ...] = ()  # helm order of the round (SF-HELM-4)
    results: dict[str, int] = {}  # piloting results behind the order
    slot: int = 0  # whose ship acts in helm and gunnery
    done: tuple[str, ...] = ()  # seats finished with the current phase (engineering) or slot
    declared: tuple[EngAction, ...] = ()
    pending: tuple[Hit, ...] = ()
    projectiles: dict[str, Projectile] = {}
    counter: int = 0
    opened: bool = False  # round 1's engineering phase has started (the first command opens it, SF-R-21)
    phase_no: int = 0  # phases started so far (marks keep the current and the previous phase)
    marks: tuple[Mark, ...] = ()
    mark_no: int = 0  # marks made so far: the next mark's n is mark_no + 1
    trails: tuple[Trail, ...] = ()  # this round's moves and flights
    round_limit: int | None = None
    over: bool = False
    winner: str | None = None
    result: str = ""

    def crew_of(self, ship: str, role: str | None = None) -> list[Crew]:
        return [c for c in self.crew.values() if c.ship == ship and (role is None or c.role == role)]

    def pilot(self, ship: str) -> CrewSpec | None:
        found = self.crew_of(ship, "pilot")
        return self.members[found[0].seat] if found else None

    @property
    def slot_ship(self) -> str | None:
        if self.phase in ("helm", "gunnery") and self.slot < len(self.order):
            return self.order[self.slot]
        return None


def initial_state(setup: Scenario) -> GameState:
    ships: dict[str, ShipState] = {}
    crew: dict[str, Crew] = {}
    members = {}
    for spec in setup.ships:
        ships[spec.id] = ShipState(
            id=spec.id,
            side=spec.side,
            hex=Hex(*spec.hex),
            facing=spec.facing,
            hull=spec.hp,
            shields={q: spec.shields.get(q, 0) for q in ARCS},
            battle_stations=spec.battle_stations,
        )
        for c in spec.crew:
            sid = seat_id(spec.id, c.id)
            crew[sid] = Crew(seat=sid, ship=spec.id, role=c.role)
            members[sid] = c
    return GameState(
        sides=tuple(setup.sides),
        specs={s.id: s for s in setup.ships},
        members=members,
        ships=ships,
        crew=crew,
        round_limit=setup.round_limit,
    )
