"""Commands of the campaign. Explicit tags; unknown fields are refused (the base sets it)."""

from __future__ import annotations

import msgspec

from service.domain.core import Command

from .scenario import SystemKit
from .values import HexT, Order

# ---- umpire (FTC-UMP-1)


class GenerateMap(Command, frozen=True, tag="ftcampaign.generate_map"):
    """Dice the star map (FTC-MAP-1..4)."""


class ApproveTechnology(Command, frozen=True, tag="ftcampaign.approve_technology"):
    player: str
    design: str
    note: str = ""


class ApproveStandardNavy(Command, frozen=True, tag="ftcampaign.approve_standard_navy"):
    player: str
    text: str = ""


class RecordRuling(Command, frozen=True, tag="ftcampaign.record_ruling"):
    text: str
    umpire: str | None = None
    involves: tuple[str, ...] = ()


class CloseTurn(Command, frozen=True, tag="ftcampaign.close_turn"):
    """Stop waiting: missing orders hold, open decisions take their defaults (FTC-MOV-1)."""


class ShipResult(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    ship: str
    destroyed: bool = False
    hull_lost: int = 0
    damaged: tuple[str, ...] = ()  # system ids knocked out
    jury_rigged: tuple[str, ...] = ()  # system ids repaired during the battle (FTC-REP-3)
    biomass_expended: int = 0


class Departure(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    group: str
    to: HexT
    formation: str = "line"
    speed: int = 0


class RecordBattle(Command, frozen=True, tag="ftcampaign.record_battle"):
    """The outcome of a linked tactical game or an umpire's entry (FTC-ARR-8)."""

    battle: str
    tactical_game_id: str | None = None
    victor: str | None = None
    ships: tuple[ShipResult, ...] = ()
    left: tuple[Departure, ...] = ()
    captured: tuple[str, ...] = ()  # drifting ships taken by the victor (FTC-CAP-1)
    ordnance: dict[str, int] = {}  # build price of ordnance expended, per player (FTC-ECO-3)
    umpire: str | None = None


class LinkBattle(Command, frozen=True, tag="ftcampaign.link_battle"):
    """FTC-ARR-8: the battle is fought as a tactical game of this service (the service issues it when it
    creates the linked game; its result comes back as ``record_battle`` with the same id)."""

    battle: str
    tactical_game_id: str


class ResolveDisengagement(Command, frozen=True, tag="ftcampaign.resolve_disengagement"):
    """FTC-ARR-11: the linked game (or umpire) reports distances and the separation trend."""

    battle: str
    group: str
    to: HexT
    distance_inches: int
    weapons_range_inches: int
    separation: str  # grows | shrinks | unclear


class EndCampaign(Command, frozen=True, tag="ftcampaign.end_campaign"):
    reason: str = ""


# ---- set-up (players)


class ClaimHomeworld(Command, frozen=True, tag="ftcampaign.claim_homeworld"):
    """Dice for a starting world and the number of additional worlds (FTC-WLD-1, FTC-WLD-2)."""


class Expand(Command, frozen=True, tag="ftcampaign.expand"):
    world: str  # an owned world to expand from (FTC-WLD-2)


class BuyShip(Command, frozen=True, tag="ftcampaign.buy_ship"):
    design: str
    world: str
    group: str | None = None


class BuyModule(Command, frozen=True, tag="ftcampaign.buy_module"):
    module: str
    world: str


class BuySpares(Command, frozen=True, tag="ftcampaign.buy_spares"):
    world: str
    value: int  # parts at installed cost; they cost 75% (FTC-ECO-1)


class BuyDefences(Command, frozen=True, tag="ftcampaign.buy_defences"):
    world: str
    points: int


class PlaceDummy(Command, frozen=True, tag="ftcampaign.place_dummy"):
    world: str


class Ready(Command, frozen=True, tag="ftcampaign.ready"):
    """Set-up spending done."""


# ---- strategic turn (players)


class SubmitOrders(Command, frozen=True, tag="ftcampaign.submit_orders"):
    orders: tuple[Order, ...] = ()


class SplitGroup(Command, frozen=True, tag="ftcampaign.split_group"):
    group: str
    ships: tuple[str, ...]


class MergeGroups(Command, frozen=True, tag="ftcampaign.merge_groups"):
    into: str
    other: str


class SetCloak(Command, frozen=True, tag="ftcampaign.set_cloak"):
    group: str
    on: bool


class CloseRoute(Command, frozen=True, tag="ftcampaign.close_route"):
    world: str
    closed: bool = True


class Scout(Command, frozen=True, tag="ftcampaign.scout"):
    group: str


class SetMaintenance(Command, frozen=True, tag="ftcampaign.set_maintenance"):
    rate: str  # full | reduced


class LayKeel(Command, frozen=True, tag="ftcampaign.lay_keel"):
    design: str
    world: str
    design_mass: int | None = None


class RepairShip(Command, frozen=True, tag="ftcampaign.repair"):
    ship: str
    systems: tuple[str, ...] = ()
    hull: int = 0
    biomass: int = 0
    source: str = "new"  # new | spares | identical | other
    donor: str | None = None
    rush: bool = False


Repair = RepairShip


class InspectJuryRig(Command, frozen=True, tag="ftcampaign.inspect_jury_rig"):
    ship: str


class Refit(Command, frozen=True, tag="ftcampaign.refit"):
    ship: str
    remove: str
    install: SystemKit


class SwapModule(Command, frozen=True, tag="ftcampaign.swap_module"):
    ship: str
    module: str


class RebuildCapture(Command, frozen=True, tag="ftcampaign.rebuild_capture"):
    ship: str


class SellCapture(Command, frozen=True, tag="ftcampaign.sell_capture"):
    ship: str


class RebuildDefences(Command, frozen=True, tag="ftcampaign.rebuild_defences"):
    world: str
    thirds: int = 1


class RepairRepulse(Command, frozen=True, tag="ftcampaign.repair_repulse"):
    group: str


# ---- contacts (players)


class Engage(Command, frozen=True, tag="ftcampaign.engage"):
    step: str
    stay: bool
    to: HexT | None = None


class ChoosePosture(Command, frozen=True, tag="ftcampaign.choose_posture"):
    step: str
    posture: str


class Recon(Command, frozen=True, tag="ftcampaign.recon"):
    step: str
    choice: str  # attack | stand_off | withdraw


class AssaultDefences(Command, frozen=True, tag="ftcampaign.assault_defences"):
    step: str
    ships: tuple[str, ...]


class HoldOff(Command, frozen=True, tag="ftcampaign.hold_off"):
    step: str


class DeclareFormation(Command, frozen=True, tag="ftcampaign.declare_formation"):
    battle: str
    formation: str
    speed: int


UMPIRE_COMMANDS = (
    GenerateMap,
    ApproveTechnology,
    ApproveStandardNavy,
    RecordRuling,
    CloseTurn,
    RecordBattle,
    LinkBattle,
    ResolveDisengagement,
    EndCampaign,
)

COMMANDS: tuple[type[Command], ...] = (
    *UMPIRE_COMMANDS,
    ClaimHomeworld,
    Expand,
    BuyShip,
    BuyModule,
    BuySpares,
    BuyDefences,
    PlaceDummy,
    Ready,
    SubmitOrders,
    SplitGroup,
    MergeGroups,
    SetCloak,
    CloseRoute,
    Scout,
    SetMaintenance,
    LayKeel,
    Repair,
    InspectJuryRig,
    Refit,
    SwapModule,
    RebuildCapture,
    SellCapture,
    RebuildDefences,
    RepairRepulse,
    Engage,
    ChoosePosture,
    Recon,
    AssaultDefences,
    HoldOff,
    DeclareFormation,
)
