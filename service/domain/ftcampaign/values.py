"""Value types the state and the events both carry (events.py imports these, never state.py)."""

from __future__ import annotations

import msgspec

HexT = tuple[int, int]


class ShipSystem(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    kind: str
    rating: int = 0
    cost: int = 0
    mass: int = 0
    species: str = "human"
    standard: bool = True
    damaged: bool = False
    jury: bool = False  # repaired during combat (FTC-REP-3)
    foreign: bool = False  # part from another ship: tests one level worse (FTC-REP-2)


class Ship(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    owner: str
    design: str
    name: str
    size_class: str
    species: str
    mass: int  # actual (launch) weight
    design_mass: int  # FTC-REP-7
    cost: int  # list price (maintenance base)
    hull: int
    hull_rows: int
    thrust: int
    hull_box_cost: int = 2
    hull_lost: int = 0
    biomass_expended: int = 0
    systems: tuple[ShipSystem, ...] = ()
    hulk: bool = False  # captured, not yet rebuilt (FTC-CAP-1)
    busy_until: int = 0  # in dock / swapping a module until the start of this turn (FTC-REP-4, FTC-ECO-6)
    module: str | None = None  # fitted stored-module id (FTC-ECO-6)
    module_cost: int = 0
    freighter: bool = False  # counts as a freighter (FTC-BLD-3)
    cloak: bool = False


class Formation(msgspec.Struct, frozen=True, kw_only=True):
    formation: str
    speed: int


class StoredModule(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    module: str
    world: str


class Keel(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    design: str
    world: str
    design_mass: int
    cost: int
    progress: int = 0


class Counter(msgspec.Struct, frozen=True, kw_only=True):
    """A task group as an opponent saw it (FTC-TG-3)."""

    group: str
    owner: str
    posture: str | None = None  # only attack posture is visible (FTC-ARR-1)
    ships: tuple[str, ...] | None = None  # composition after contact: "id:design" entries


class Sighting(msgspec.Struct, frozen=True, kw_only=True):
    turn: int
    owner: str | None = None
    counters: tuple[Counter, ...] = ()


class Step(msgspec.Struct, frozen=True, kw_only=True):
    """A decision the players at one system must take before the turn can go on."""

    id: str
    kind: str  # engage | standoff | recon | assault
    hex: HexT
    players: tuple[str, ...]
    awaiting: tuple[str, ...]
    choices: dict[str, str] = {}  # sealed until all are in
    destinations: dict[str, HexT] = {}
    bonus: bool = False  # assault after defeating a defending fleet (FTC-DEF-2)


class Force(msgspec.Struct, frozen=True, kw_only=True):
    player: str
    groups: tuple[str, ...]
    ships: tuple[str, ...]
    posture: str
    initiative: int = 0
    route: bool = False
    entry_side: str | None = None
    penalty: bool = False
    preset: Formation | None = None


class Battle(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    hex: HexT
    forces: tuple[Force, ...]
    range_feet: int
    formations: dict[str, Formation] = {}
    tactical_game_id: str | None = None  # fought as a linked tactical game of this service (FTC-ARR-8)


class StrategicOrder(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One task group's strategic move: destination and arrival posture (FTC-MOV-1)."""

    group: str
    to: HexT
    posture: str = "stand_off"
    route: bool | None = None  # None: by charted route only where that is the way there (movement.by_route)


Order = StrategicOrder
