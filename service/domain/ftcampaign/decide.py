"""decide(state, command, actor, dice): one path per command, then the automatic steps it triggers.

The service runs the common guards first (core.guards: GAME-OVER, NO-SEAT); each handler then checks
whose piece and which phase before its rule. Every handler adds its events to one accumulator
(core.acc.Acc), so later steps of the same command see the facts of earlier ones.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.domain.core import Actor, Command, Dice, Event, RuleViolation
from service.domain.core.acc import Acc

from . import commands as C
from . import contacts, defences, economy, movement, repairs, starmap, umpire
from .common import accumulator
from .state import State

Handler = Callable[[Acc[State], Any, Actor, Dice], None]


def _no_dice(fn: Callable[[Acc[State], Any, Actor], None]) -> Handler:
    return lambda out, cmd, actor, dice: fn(out, cmd, actor)


HANDLERS: dict[type[Command], Handler] = {
    C.GenerateMap: lambda out, cmd, actor, dice: starmap.generate_map(out, actor, dice),
    C.ApproveTechnology: _no_dice(economy.approve_technology),
    C.ApproveStandardNavy: _no_dice(economy.approve_standard_navy),
    C.RecordRuling: _no_dice(umpire.record_ruling),
    C.CloseTurn: umpire.close_turn,
    C.RecordBattle: contacts.record_battle,
    C.LinkBattle: _no_dice(contacts.link_battle),
    C.ResolveDisengagement: contacts.resolve_disengagement,
    C.EndCampaign: _no_dice(umpire.end_campaign),
    C.ClaimHomeworld: starmap.claim_homeworld,
    C.Expand: starmap.expand,
    C.BuyShip: _no_dice(economy.buy_ship),
    C.BuyModule: _no_dice(economy.buy_module),
    C.BuySpares: _no_dice(economy.buy_spares),
    C.BuyDefences: _no_dice(economy.buy_defences),
    C.PlaceDummy: _no_dice(economy.place_dummy),
    C.Ready: _no_dice(umpire.ready),
    C.SubmitOrders: umpire.submit,
    C.SplitGroup: _no_dice(movement.split_group),
    C.MergeGroups: _no_dice(movement.merge_groups),
    C.SetCloak: _no_dice(movement.set_cloak),
    C.CloseRoute: _no_dice(movement.close_route),
    C.Scout: movement.scout,
    C.SetMaintenance: _no_dice(economy.set_maintenance),
    C.LayKeel: _no_dice(economy.lay_keel),
    C.Repair: _no_dice(repairs.repair),
    C.InspectJuryRig: repairs.inspect_jury_rig,
    C.Refit: _no_dice(repairs.refit),
    C.SwapModule: _no_dice(repairs.swap_module),
    C.RebuildCapture: _no_dice(repairs.rebuild_capture),
    C.SellCapture: _no_dice(repairs.sell_capture),
    C.RebuildDefences: _no_dice(economy.rebuild_defences),
    C.RepairRepulse: _no_dice(defences.repair_repulse),
    C.Engage: contacts.engage,
    C.ChoosePosture: contacts.choose_posture,
    C.Recon: contacts.recon,
    C.AssaultDefences: defences.assault,
    C.HoldOff: _no_dice(defences.hold_off),
    C.DeclareFormation: _no_dice(contacts.declare_formation),
}


def run(state: State, command: Command, actor: Actor, dice: Dice) -> Acc[State]:
    """The command's events with the state they build as decided (what fold(log) must reproduce)."""
    handler = HANDLERS.get(type(command))
    if handler is None:
        raise RuleViolation("FTC-UMP-1", f"unknown command {type(command).__name__}")
    out = accumulator(state)
    handler(out, command, actor, dice)
    contacts.advance(out, dice)  # automatic steps follow the command that triggered them
    return out


def decide(state: State, command: Command, actor: Actor, dice: Dice) -> list[Event]:
    return run(state, command, actor, dice).events
