"""decide(state, command, actor, dice) on the core skeleton (core.decider): one path per command, the guards
in core's order (unknown command, whose piece, phase, then the handler's rule), then the automatic steps the
command triggers (``contacts.advance``). The service runs the common guards first (core.guards: GAME-OVER,
NO-SEAT).

Whose piece: the umpire's commands are refused to every seat (FTC-UMP-1); a player's command acts for the
player who sends it, so the skeleton names no owner: a task group or ship that is not the sender's is refused
by the handler (FTC-TG-1, "not one of yours") without saying whose it is or whether it exists — the owner of
another power's piece is hidden information. A player's command sent by the umpire is refused by the handler
(FTC-UMP-1). Which phase: the paths below, each citing the rule that names its phase.

Every handler adds its events to one accumulator (core.acc.Acc), so later steps of the same command see the
facts of earlier ones."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.domain.core import Actor, Command, Dice, Event
from service.domain.core.acc import Acc
from service.domain.core.decider import Decider, Handler, Path

from . import commands as C
from . import contacts, defences, economy, movement, repairs, starmap, umpire
from .evolve import evolve
from .state import State

UMPIRE_RULE = "FTC-UMP-1"
PHASE_RULE = "FTC-TIME-1"
SET_UP = ("deployment", "orders")  # bought and organised at set-up and in any orders phase
ORDERS = ("orders",)


def _no_dice(fn: Callable[[Acc[State], Any, Actor], None]) -> Handler[State]:
    return lambda out, cmd, actor, dice: fn(out, cmd, actor)


def _umpire(run: Handler[State], phases: tuple[str, ...] = (), rule: str = "") -> Path[State]:
    return Path(run, phases, phase_rule=rule, seat_rule=UMPIRE_RULE, umpire_only=True)


PATHS: dict[type[Command], Path[State]] = {
    # the umpire's
    C.GenerateMap: _umpire(lambda out, cmd, actor, dice: starmap.generate_map(out, actor, dice), ("map",), "FTC-MAP-4"),
    C.ApproveTechnology: _umpire(
        _no_dice(economy.approve_technology), ("map", "homeworlds", "expansion", "deployment"), "FTC-BLD-4"
    ),
    C.ApproveStandardNavy: _umpire(_no_dice(economy.approve_standard_navy)),
    C.RecordRuling: _umpire(_no_dice(umpire.record_ruling)),
    C.CloseTurn: _umpire(umpire.close_turn),
    C.RecordBattle: _umpire(contacts.record_battle),
    C.LinkBattle: _umpire(_no_dice(contacts.link_battle)),
    C.ResolveDisengagement: _umpire(contacts.resolve_disengagement),
    C.EndCampaign: _umpire(_no_dice(umpire.end_campaign)),
    # the players': the map and set-up
    C.ClaimHomeworld: Path(starmap.claim_homeworld, ("homeworlds",), "FTC-WLD-1"),
    C.Expand: Path(starmap.expand, ("expansion",), "FTC-WLD-2"),
    C.BuyShip: Path(_no_dice(economy.buy_ship), SET_UP, "FTC-BLD-2"),
    C.BuyModule: Path(_no_dice(economy.buy_module), SET_UP, "FTC-ECO-6"),
    C.BuySpares: Path(_no_dice(economy.buy_spares), SET_UP, "FTC-ECO-1"),
    C.BuyDefences: Path(_no_dice(economy.buy_defences), ("deployment",), "FTC-ECO-1"),
    C.PlaceDummy: Path(_no_dice(economy.place_dummy), SET_UP, "FTC-TG-2"),
    C.Ready: Path(_no_dice(umpire.ready), ("deployment",), "FTC-ECO-1"),
    # orders
    C.SubmitOrders: Path(umpire.submit, ORDERS, "FTC-MOV-1"),
    C.SplitGroup: Path(_no_dice(movement.split_group), SET_UP, "FTC-TG-1"),
    C.MergeGroups: Path(_no_dice(movement.merge_groups), SET_UP, "FTC-TG-1"),
    C.SetCloak: Path(_no_dice(movement.set_cloak), ORDERS, "FTC-MOV-6"),
    C.CloseRoute: Path(_no_dice(movement.close_route), ORDERS, "FTC-MOV-3"),
    C.Scout: Path(movement.scout, ORDERS, "FTC-WLD-5"),
    C.SetMaintenance: Path(_no_dice(economy.set_maintenance), SET_UP, "FTC-ECO-5"),
    C.LayKeel: Path(_no_dice(economy.lay_keel), ORDERS, "FTC-BLD-1"),
    C.Repair: Path(_no_dice(repairs.repair), ORDERS, "FTC-REP-1"),
    C.InspectJuryRig: Path(repairs.inspect_jury_rig, ORDERS, "FTC-REP-1"),
    C.Refit: Path(_no_dice(repairs.refit), ORDERS, "FTC-REP-1"),
    C.SwapModule: Path(_no_dice(repairs.swap_module), ORDERS, "FTC-ECO-6"),
    C.RebuildCapture: Path(_no_dice(repairs.rebuild_capture), ORDERS, "FTC-REP-1"),
    C.SellCapture: Path(_no_dice(repairs.sell_capture), ORDERS, "FTC-CAP-3"),
    C.RebuildDefences: Path(_no_dice(economy.rebuild_defences), ORDERS, "FTC-DEF-4"),
    # contacts: each checks the step that waits for it
    C.RepairRepulse: Path(_no_dice(defences.repair_repulse)),
    C.Engage: Path(contacts.engage),
    C.ChoosePosture: Path(contacts.choose_posture),
    C.Recon: Path(contacts.recon),
    C.AssaultDefences: Path(defences.assault),
    C.HoldOff: Path(_no_dice(defences.hold_off)),
    C.DeclareFormation: Path(_no_dice(contacts.declare_formation)),
}


def _nobody(state: State, cmd: Any) -> str | None:
    return None  # see the module's docstring: ownership of a piece is the handler's, and says nothing of others'


DECIDER: Decider[State] = Decider(
    paths=PATHS,
    evolve=evolve,
    owner=_nobody,
    phase=lambda state: state.phase,
    seat_rule=UMPIRE_RULE,
    phase_rule=PHASE_RULE,
    after=contacts.advance,  # automatic steps follow the command that triggered them
)


def run(state: State, command: Command, actor: Actor, dice: Dice) -> Acc[State]:
    """The command's events with the state they build as decided (what fold(log) must reproduce)."""
    return DECIDER.run(state, command, actor, dice)


def decide(state: State, command: Command, actor: Actor, dice: Dice) -> list[Event]:
    return DECIDER.run(state, command, actor, dice).events
