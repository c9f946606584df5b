"""Events: facts with every result and die. Three audiences (see visibility.py):

* public events: everyone;
* private events (a ``player`` field, listed in PRIVATE): that player and the umpires;
* local events (a ``witnesses`` field): the players whose forces were there, and the umpires.
"""

from __future__ import annotations

import msgspec

from service.domain.core import Event

from .commands import Departure, ShipResult
from .values import Battle, Formation, HexT, Keel, Order, Ship, ShipSystem, Sighting, Step, StoredModule


class WorldSpec(msgspec.Struct, frozen=True, kw_only=True):
    hex: HexT
    route: bool = False


# ---------------------------------------------------------------- public


class MapGenerated(Event, frozen=True, tag="ftcampaign.map_generated"):
    radius: int
    worlds: tuple[WorldSpec, ...]
    routes: tuple[tuple[HexT, HexT], ...]


class HomeworldClaimed(Event, frozen=True, tag="ftcampaign.homeworld_claimed"):
    player: str
    world: str
    extra: int


class WorldClaimed(Event, frozen=True, tag="ftcampaign.world_claimed"):
    player: str
    from_world: str
    world: str


class ExpansionFailed(Event, frozen=True, tag="ftcampaign.expansion_failed"):
    player: str
    from_world: str


class PicksForfeited(Event, frozen=True, tag="ftcampaign.picks_forfeited"):
    players: tuple[str, ...]


class CampaignPhaseChanged(Event, frozen=True, tag="ftcampaign.phase_changed"):
    phase: str
    current: str | None = None


PhaseChanged = CampaignPhaseChanged


class TechnologyApproved(Event, frozen=True, tag="ftcampaign.technology_approved"):
    player: str
    design: str
    note: str = ""


class RulingRecorded(Event, frozen=True, tag="ftcampaign.ruling_recorded"):
    text: str
    umpire: str | None = None
    involves: tuple[str, ...] = ()


class PlayerReady(Event, frozen=True, tag="ftcampaign.player_ready"):
    player: str


class StrategicTurnStarted(Event, frozen=True, tag="ftcampaign.turn_started"):
    turn: int
    economic_turn: int


TurnStarted = StrategicTurnStarted


class EconomicTurnStarted(Event, frozen=True, tag="ftcampaign.economic_turn_started"):
    economic_turn: int
    turn: int


class OrdersRevealed(Event, frozen=True, tag="ftcampaign.orders_revealed"):
    turn: int
    missing: tuple[str, ...] = ()  # players whose groups held (umpire closed the turn)


class TurnEnded(Event, frozen=True, tag="ftcampaign.turn_ended"):
    turn: int


class WorldScouted(Event, frozen=True, tag="ftcampaign.world_scouted"):
    world: str
    income: int
    by: str


class CampaignEnded(Event, frozen=True, tag="ftcampaign.campaign_ended"):
    reason: str = ""


# ---------------------------------------------------------------- private (``player``)


class IncomesRolled(Event, frozen=True, tag="ftcampaign.incomes_rolled"):
    player: str
    incomes: dict[str, int]
    capital: int


class ShipBought(Event, frozen=True, tag="ftcampaign.ship_bought"):
    player: str
    ship: Ship
    group: str
    hex: HexT
    price: int
    capped: bool = True  # counted under the 4000 cap (FTC-ECO-1)
    launched: str | None = None  # keel id when built in game time (FTC-BLD-1)


class ModuleBought(Event, frozen=True, tag="ftcampaign.module_bought"):
    player: str
    stored: StoredModule
    price: int
    capped: bool = False


class SparesBought(Event, frozen=True, tag="ftcampaign.spares_bought"):
    player: str
    world: str
    value: int
    price: int
    pending: bool = False


class DefencesBought(Event, frozen=True, tag="ftcampaign.defences_bought"):
    player: str
    world: str
    points: int


class DummyPlaced(Event, frozen=True, tag="ftcampaign.dummy_placed"):
    player: str
    group: str
    hex: HexT


class GroupSplit(Event, frozen=True, tag="ftcampaign.group_split"):
    player: str
    group: str
    new_group: str
    ships: tuple[str, ...]


class GroupsMerged(Event, frozen=True, tag="ftcampaign.groups_merged"):
    player: str
    into: str
    other: str


class CloakSet(Event, frozen=True, tag="ftcampaign.cloak_set"):
    player: str
    group: str
    on: bool


class RouteClosed(Event, frozen=True, tag="ftcampaign.route_closed"):
    player: str
    world: str
    closed: bool


class MaintenanceSet(Event, frozen=True, tag="ftcampaign.maintenance_set"):
    player: str
    rate: str


class StandardNavyApproved(Event, frozen=True, tag="ftcampaign.standard_navy_approved"):
    player: str
    text: str = ""


class KeelLaid(Event, frozen=True, tag="ftcampaign.keel_laid"):
    player: str
    keel: Keel


class KeelsWorked(Event, frozen=True, tag="ftcampaign.keels_worked"):
    player: str
    progress: dict[str, int]  # keel id -> new progress
    paid: int
    stalled: tuple[str, ...] = ()


class RepairOrdered(Event, frozen=True, tag="ftcampaign.repair_ordered"):
    player: str
    ship: str
    systems: tuple[str, ...]
    hull: int
    biomass: int
    source: str
    donor: str | None
    cost: int
    until: int  # in dock until the start of this turn (FTC-REP-4)
    spares_used: int = 0
    world: str = ""
    donor_systems: tuple[str, ...] = ()


class JuryRigInspected(Event, frozen=True, tag="ftcampaign.jury_rig_inspected"):
    player: str
    ship: str
    passed: tuple[str, ...]
    failed: tuple[str, ...]


class Refitted(Event, frozen=True, tag="ftcampaign.refitted"):
    player: str
    ship: str
    removed: str
    installed: ShipSystem
    cost: int
    until: int
    mass_after: int


class ModuleSwapped(Event, frozen=True, tag="ftcampaign.module_swapped"):
    player: str
    ship: str
    module: str
    removed: str | None
    world: str
    until: int
    module_cost: int


class CaptureRebuilt(Event, frozen=True, tag="ftcampaign.capture_rebuilt"):
    player: str
    ship: str
    cost: int
    until: int


class CaptureSold(Event, frozen=True, tag="ftcampaign.capture_sold"):
    player: str
    ship: str
    price: int


class DefenceRebuildOrdered(Event, frozen=True, tag="ftcampaign.defence_rebuild_ordered"):
    player: str
    world: str
    idp: int
    cost: int
    due_et: int


class RepulseRepaired(Event, frozen=True, tag="ftcampaign.repulse_repaired"):
    player: str
    group: str
    cost: int


class RepulseAllocated(Event, frozen=True, tag="ftcampaign.repulse_allocated"):
    """FTC-DEF-7: IDP/3 hull boxes spread by mass; stripped rows trigger system checks (rolls)."""

    player: str
    group: str
    hits: dict[str, int]
    failed: tuple[str, ...] = ()  # "ship/system" knocked out by the checks
    destroyed: tuple[str, ...] = ()


class OrdersSubmitted(Event, frozen=True, tag="ftcampaign.orders_submitted"):
    player: str
    orders: tuple[Order, ...] | None = None  # None for anyone but the player and umpires


class GroupMoved(Event, frozen=True, tag="ftcampaign.group_moved"):
    player: str
    group: str
    frm: HexT | None
    to: HexT
    posture: str
    route: bool = False
    entry_side: str | None = None
    stopped_short: bool = False
    under_fire: Formation | None = None


class Departed(Event, frozen=True, tag="ftcampaign.departed"):
    """A group enters FTL; its destination is written at once (FTC-ARR-10)."""

    player: str
    group: str
    to: HexT
    reason: str
    under_fire: Formation | None = None
    route: bool = False  # leaves along a charted route (blockages apply on arrival, ruling FTC-R-22)


class EconomyReport(Event, frozen=True, tag="ftcampaign.economy_report"):
    player: str
    economic_turn: int
    income: int
    interdicted: tuple[str, ...]
    maintenance: int
    rate: str
    penalty: bool
    ordnance: int
    cash: int
    income_worlds: tuple[str, ...]
    spares_arrived: dict[str, int] = {}
    rebuilt: dict[str, int] = {}


class IntelGathered(Event, frozen=True, tag="ftcampaign.intel_gathered"):
    player: str
    hex: HexT
    sighting: Sighting


# ---------------------------------------------------------------- local (``witnesses``)


class DummiesRevealed(Event, frozen=True, tag="ftcampaign.dummies_revealed"):
    hex: HexT
    groups: tuple[str, ...]
    witnesses: tuple[str, ...]


class StepOpened(Event, frozen=True, tag="ftcampaign.step_opened"):
    step: Step
    witnesses: tuple[str, ...]


class ChoiceMade(Event, frozen=True, tag="ftcampaign.choice_made"):
    step: str
    player: str
    choice: str | None  # sealed: None for the other players
    to: HexT | None = None
    witnesses: tuple[str, ...] = ()


class StepResolved(Event, frozen=True, tag="ftcampaign.step_resolved"):
    step: str
    kind: str
    hex: HexT
    choices: dict[str, str]
    witnesses: tuple[str, ...]
    range_feet: int | None = None  # FTC-ARR-6
    postures: dict[str, str] = {}  # resulting posture of each player's groups here
    settle: bool = False


class BattleStarted(Event, frozen=True, tag="ftcampaign.battle_started"):
    """Contact: every participant learns the others' compositions (FTC-TG-3)."""

    battle: Battle
    designs: dict[str, str]  # ship id -> design id
    priority: dict[str, tuple[str, ...]]  # attacker -> targets in order (FTC-ARR-3)
    drop: str | None  # who has the drop (FTC-ARR-7)
    drop_changes: int
    late: tuple[str, ...]
    witnesses: tuple[str, ...]


class FormationDeclared(Event, frozen=True, tag="ftcampaign.formation_declared"):
    battle: str
    player: str
    formation: Formation | None  # sealed until the battle is recorded
    witnesses: tuple[str, ...] = ()


class BattleLinked(Event, frozen=True, tag="ftcampaign.battle_linked"):
    """FTC-ARR-8: the battle is being fought as a linked tactical game (seen by its participants)."""

    battle: str
    hex: HexT
    tactical_game_id: str
    witnesses: tuple[str, ...]


class BattleRecorded(Event, frozen=True, tag="ftcampaign.battle_recorded"):
    battle: str
    hex: HexT
    tactical_game_id: str | None
    victor: str | None
    ships: tuple[ShipResult, ...]
    left: tuple[Departure, ...]
    captured: tuple[str, ...]
    captured_group: str | None
    defeated: tuple[str, ...]
    formations: dict[str, Formation]
    ordnance: dict[str, int]
    bonus: bool
    witnesses: tuple[str, ...]
    settle: bool = False


class DisengagementResolved(Event, frozen=True, tag="ftcampaign.disengagement_resolved"):
    battle: str
    player: str
    group: str
    escaped: bool
    to: HexT
    separation: str
    witnesses: tuple[str, ...]


class AssaultResolved(Event, frozen=True, tag="ftcampaign.assault_resolved"):
    hex: HexT
    player: str
    owner: str | None
    ships: tuple[str, ...]
    fleet_points: int
    defence_value: int
    result: str  # surrendered | interdicted | repulsed
    idp_after: int
    repulse: int = 0
    repulse_boxes: int = 0
    groups: tuple[str, ...] = ()
    due_et: int = 0
    witnesses: tuple[str, ...] = ()
    # FTC-DEF-7: each group's share (pts, hull boxes) of the repulse by the mass of its committed ships; empty in
    # logs written before the split (then every group carried the whole repulse)
    repulse_split: dict[str, tuple[int, int]] = {}


class WorldTaken(Event, frozen=True, tag="ftcampaign.world_taken"):
    """An unsettled world (IDP 0) taken without a roll (FTC-WLD-5 ruling)."""

    world: str
    player: str
    old_owner: str | None
    witnesses: tuple[str, ...]


class DrivenOff(Event, frozen=True, tag="ftcampaign.driven_off"):
    """FTC-DEF-8: a fleet below 50% of the defence value departs and does not interdict."""

    hex: HexT
    player: str
    groups: tuple[str, ...]
    to: HexT
    witnesses: tuple[str, ...]


class InterdictionLifted(Event, frozen=True, tag="ftcampaign.interdiction_lifted"):
    world: str
    witnesses: tuple[str, ...]


PUBLIC = (
    MapGenerated,
    HomeworldClaimed,
    WorldClaimed,
    ExpansionFailed,
    PicksForfeited,
    PhaseChanged,
    TechnologyApproved,
    RulingRecorded,
    PlayerReady,
    TurnStarted,
    EconomicTurnStarted,
    OrdersRevealed,
    TurnEnded,
    WorldScouted,
    CampaignEnded,
)
PRIVATE = (
    IncomesRolled,
    ShipBought,
    ModuleBought,
    SparesBought,
    DefencesBought,
    DummyPlaced,
    GroupSplit,
    GroupsMerged,
    CloakSet,
    RouteClosed,
    MaintenanceSet,
    StandardNavyApproved,
    KeelLaid,
    KeelsWorked,
    RepairOrdered,
    JuryRigInspected,
    Refitted,
    ModuleSwapped,
    CaptureRebuilt,
    CaptureSold,
    DefenceRebuildOrdered,
    RepulseRepaired,
    RepulseAllocated,
    GroupMoved,
    Departed,
    EconomyReport,
    IntelGathered,
)
SEALED = (OrdersSubmitted,)
LOCAL = (
    DummiesRevealed,
    StepOpened,
    ChoiceMade,
    StepResolved,
    BattleStarted,
    FormationDeclared,
    BattleLinked,
    BattleRecorded,
    DisengagementResolved,
    AssaultResolved,
    WorldTaken,
    DrivenOff,
    InterdictionLifted,
)

EVENTS: tuple[type[Event], ...] = (*PUBLIC, *PRIVATE, *SEALED, *LOCAL)
