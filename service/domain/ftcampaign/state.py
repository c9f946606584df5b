"""The folded state of a Full Thrust club campaign (the setup types are in scenario.py). JSON-able fields only."""

from __future__ import annotations

import msgspec

from .scenario import Design, PlayerSpec, Setup, SystemKit
from .values import (
    Battle,
    Counter,
    Force,
    Formation,
    HexT,
    Keel,
    Order,
    Ship,
    ShipSystem,
    Sighting,
    Step,
    StoredModule,
    StrategicOrder,
)

# re-exported: rule modules read the setup and the value types through state
__all__ = [
    "Battle",
    "Counter",
    "Design",
    "Force",
    "Formation",
    "HexT",
    "Keel",
    "Order",
    "PlayerSpec",
    "Setup",
    "Ship",
    "ShipSystem",
    "Sighting",
    "Step",
    "StoredModule",
    "StrategicOrder",
    "SystemKit",
]


POSTURES = ("stand_off", "attack", "withdraw")  # FTC-ARR-1
CAPITAL_CLASSES = ("BB", "SDN", "CVA", "CVH", "CVL")  # FTC-TG-2
SIMILAR = (("beam", "graser", "pulse_torpedo", "pds"), ("missile_launcher", "missile_rack"))  # FTC-REP-6
TURNS_PER_ECONOMIC_TURN = 6  # FTC-TIME-2
SHIP_CAP = 4000  # FTC-ECO-1


def key(h: HexT | list[int]) -> str:
    return f"{h[0]},{h[1]}"


def unkey(k: str) -> HexT:
    q, r = k.split(",")
    return int(q), int(r)


# ---------------------------------------------------------------- state


class World(msgspec.Struct, frozen=True, kw_only=True):
    hex: HexT
    route: bool = False  # planet roll was 1 (FTC-MAP-3)
    owner: str | None = None
    income: int | None = None  # None: a neutral world not yet scouted or attacked (FTC-WLD-5)
    idp: int = 0
    idp_full: int = 0  # IDP before the last surrender damage (FTC-DEF-4 rebuilds)
    scouted: bool = False  # neutral income public (FTC-WLD-5)
    interdicted: bool = False  # FTC-DEF-6
    closed: bool = False  # owner closed the charted route here (FTC-MOV-3)
    capital_of: str | None = None
    setup_owner: str | None = None  # public ownership after set-up (FTC-WLD-1..3)


class Repulse(msgspec.Struct, frozen=True, kw_only=True):
    """Unallocated damage from a repulse (FTC-DEF-7)."""

    world: str
    pts: int
    boxes: int
    due_et: int


class Group(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    owner: str
    hex: HexT | None  # None while in FTL (FTC-MOV-4)
    ships: tuple[str, ...] = ()
    dummy: bool = False  # FTC-TG-2
    posture: str = "stand_off"
    origin: HexT | None = None  # hex it last came from (FTC-ARR-4)
    via_route: bool = False  # arrived by charted route this turn (FTC-MOV-5)
    entry_side: str | None = None  # hexside crossed on arrival (FTC-ARR-12)
    ftl_to: HexT | None = None  # departing: destination written at once (FTC-ARR-10)
    ftl_from: HexT | None = None
    ftl_route: bool = False  # the departure goes by charted route (ruling FTC-R-22)
    under_fire: Formation | None = None  # left its last system under fire (FTC-ARR-12)
    cloaked: bool = False  # FTC-MOV-6
    repulse: Repulse | None = None


class Rebuild(msgspec.Struct, frozen=True, kw_only=True):
    world: str
    idp: int
    due_et: int


class Economy(msgspec.Struct, frozen=True, kw_only=True):
    cash: int = 0
    ship_spending: int = 0  # set-up spending under the 4000 cap (FTC-ECO-1)
    maintenance: str = "full"  # "full" | "reduced" (FTC-ECO-5)
    penalty: bool = False  # damage checks one level worse this economic turn (FTC-ECO-5)
    standard_navy: bool = False  # umpire approved (FTC-ECO-4)
    ordnance: int = 0  # build price of ordnance expended since the last economic turn (FTC-ECO-3)
    spares: dict[str, int] = {}  # world -> value of parts at installed cost
    spares_cap: dict[str, int] = {}  # start levels (FTC-ECO-1)
    spares_pending: dict[str, int] = {}
    income_worlds: tuple[str, ...] = ()  # worlds that paid this economic turn (FTC-REP-1)
    approved: tuple[str, ...] = ()  # non-standard designs approved (FTC-BLD-4)
    keels: tuple[Keel, ...] = ()
    modules: tuple[StoredModule, ...] = ()
    rebuilds: tuple[Rebuild, ...] = ()
    capital: str | None = None
    picks_left: int = 0  # FTC-WLD-2
    ready: bool = False
    seq: int = 0  # id counter for this player's groups, ships, keels, modules


class Happening(msgspec.Struct, frozen=True, kw_only=True):
    """Something that just happened, kept for drawing (view.draw effects), with who may see it."""

    n: int  # counts up through the game, so a page animates each once
    turn: int
    kind: str  # arrival | departure | detected | battle | battle_over | assault | captured | scouted
    text: str
    hex: HexT | None = None
    piece: str | None = None
    audience: tuple[str, ...] | None = None  # players who may see it; None: everyone
    rule: str | None = None


# Rulings and technology notices are the umpire's words for the table, which no rule reads back: the state
# keeps the most recent ones for the view, the log keeps them all. Kept whole, a campaign of months grew
# its state (and every fold's copying) with the number of rulings ever made.
RECENT_NOTICES = 50


class CampaignState(msgspec.Struct, frozen=True, kw_only=True):
    setup: Setup
    phase: str = "map"  # map | homeworlds | expansion | deployment | orders | contacts | over
    turn: int = 0
    radius: int = 5
    worlds: dict[str, World] = {}
    routes: tuple[tuple[HexT, HexT], ...] = ()
    order: tuple[str, ...] = ()  # players in turn order
    current: str | None = None  # whose set-up pick it is
    economies: dict[str, Economy] = {}
    ships: dict[str, Ship] = {}
    groups: dict[str, Group] = {}
    orders: dict[str, tuple[Order, ...]] = {}  # sealed strategic orders (FTC-MOV-1)
    steps: tuple[Step, ...] = ()
    battles: tuple[Battle, ...] = ()
    settled: tuple[str, ...] = ()  # hexes whose contacts are over this turn
    standoff_done: tuple[str, ...] = ()
    intel: dict[str, dict[str, Sighting]] = {}
    rulings: tuple[str, ...] = ()  # the last RECENT_NOTICES umpire rulings (every one stays in the log)
    approvals: tuple[str, ...] = ()  # the last RECENT_NOTICES public notices of approved technology (FTC-BLD-4)
    bonus: tuple[str, ...] = ()  # hexes where a defending fleet was defeated (FTC-DEF-2 +1)
    counter: int = 0  # step / battle ids
    over: bool = False
    ended: str = ""  # why the campaign ended
    happenings: tuple[Happening, ...] = ()  # the last few, for drawing (effects.py)
    happened: int = 0

    @property
    def winner(self) -> str | None:
        """Once the campaign is over, the player of the highest standing (standing.py); None on a tie."""
        if not self.over:
            return None
        from .standing import leader  # the measure lives beside the rules; imported late (it reads state)

        return leader(self)

    @property
    def economic_turn(self) -> int:
        return 0 if self.turn < 1 else (self.turn - 1) // TURNS_PER_ECONOMIC_TURN + 1


State = CampaignState


def design(state: State, did: str) -> Design | None:
    return next((d for d in state.setup.designs if d.id == did), None)


def player_spec(state: State, pid: str) -> PlayerSpec:
    return next(p for p in state.setup.players if p.id == pid)


def is_capital_ship(ship: Ship) -> bool:
    return ship.size_class in CAPITAL_CLASSES


def family(kind: str) -> str:
    for fam in SIMILAR:
        if kind in fam:
            return fam[0]
    return kind


def ceil_pct(value: int, per_mille: int) -> int:
    """``value`` × per_mille / 1000, rounded up to whole points (FTC-R-2)."""
    return -(-value * per_mille // 1000)
