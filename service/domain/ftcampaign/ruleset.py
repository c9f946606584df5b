"""The Full Thrust campaign ruleset object: the decider contract wired to the focused modules."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.domain.core import (
    Actor,
    Clock,
    Command,
    Dice,
    Event,
    InvalidScenario,
    RulesetBase,
    RuleViolation,
    Viewer,
)

from . import commands as C
from . import contacts, defences, economy, movement, repairs, setup_phase, umpire, visibility
from . import explain as _explain
from . import options as _options
from .common import Out
from .events import EVENT_TYPES
from .evolve import evolve
from .state import Economy, Setup, State

Handler = Callable[[Out, Any, Actor, Dice], None]


def _no_dice(fn: Callable[[Out, Any, Actor], None]) -> Handler:
    return lambda out, cmd, actor, dice: fn(out, cmd, actor)


HANDLERS: dict[type[Command], Handler] = {
    C.GenerateMap: lambda out, cmd, actor, dice: setup_phase.generate_map(out, actor, dice),
    C.ApproveTechnology: _no_dice(economy.approve_technology),
    C.ApproveStandardNavy: _no_dice(economy.approve_standard_navy),
    C.RecordRuling: _no_dice(umpire.record_ruling),
    C.CloseTurn: umpire.close_turn,
    C.RecordBattle: contacts.record_battle,
    C.ResolveDisengagement: contacts.resolve_disengagement,
    C.EndCampaign: _no_dice(umpire.end_campaign),
    C.ClaimHomeworld: setup_phase.claim_homeworld,
    C.Expand: setup_phase.expand,
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


def validate(setup: Setup) -> None:
    """Cross-field checks; errors name the field path."""
    ids = [p.id for p in setup.players]
    if len(ids) < 2:
        raise InvalidScenario("players", "a campaign needs at least two players")
    for i, p in enumerate(setup.players):
        if ids.index(p.id) != i or not p.id or p.id in ("umpire", "spectator"):
            raise InvalidScenario(f"players[{i}].id", f"player id {p.id!r} is empty, reserved or repeated")
        if p.ally_navy is not None:
            navy = [d for d in setup.designs if d.navy == p.ally_navy]
            if not navy:
                raise InvalidScenario(f"players[{i}].ally_navy", f"no designs of navy {p.ally_navy!r}")
            if any(d.species != p.species for d in navy):
                raise InvalidScenario(f"players[{i}].ally_navy", "no one is allied outside their species (FTC-BLD-2)")
    if not setup.umpires:
        raise InvalidScenario("umpires", "a campaign has one or more umpires (FTC-UMP-1)")
    for i, u in enumerate(setup.umpires):
        if u.plays is not None and u.plays not in ids:
            raise InvalidScenario(f"umpires[{i}].plays", f"{u.plays!r} is not a player")
    dids = [d.id for d in setup.designs]
    if not dids:
        raise InvalidScenario("designs", "publish at least one design")
    for i, d in enumerate(setup.designs):
        if dids.index(d.id) != i:
            raise InvalidScenario(f"designs[{i}].id", f"design id {d.id!r} is repeated")
        for field in ("mass", "cost", "hull", "hull_rows"):
            if getattr(d, field) <= 0:
                raise InvalidScenario(f"designs[{i}].{field}", "must be positive")
        sids = [s.id for s in d.systems]
        for j, s in enumerate(d.systems):
            if sids.index(s.id) != j or not s.id:
                raise InvalidScenario(f"designs[{i}].systems[{j}].id", f"system id {s.id!r} is empty or repeated")
    for i, m in enumerate(setup.modules):
        if not any((d.hull_design or d.id) == m.hull_design and d.modular for d in setup.designs):
            raise InvalidScenario(f"modules[{i}].hull_design", f"no modular hull {m.hull_design!r}")
    if not 3 <= setup.map_side <= 8:
        raise InvalidScenario("map_side", "between 3 and 8 (FTC-MAP-1: 6)")
    if setup.table_length_feet < 6:
        raise InvalidScenario("table_length_feet", "at least 6 feet")
    if setup.last_turn < 1:
        raise InvalidScenario("last_turn", "at least 1")


class FtCampaignRuleset(RulesetBase):
    name = "ftcampaign"
    version = "1.0"
    title = "Full Thrust club campaign: star map, economy, sealed moves and linked battles"
    hidden_information = True
    setup_type = Setup
    state_type = State
    command_types = C.COMMAND_TYPES
    event_types = EVENT_TYPES
    scenario_package = "service.domain.ftcampaign.scenarios"

    def validate_setup(self, setup: Setup) -> None:
        validate(setup)

    def seats(self, setup: Any) -> list[str]:
        if isinstance(setup, dict):
            setup = self.parse_setup(setup)
        return [p.id for p in setup.players]

    def initial_state(self, setup: Any) -> State:
        if isinstance(setup, dict):
            setup = self.parse_setup(setup)
        order = tuple(p.id for p in setup.players)
        return State(setup=setup, order=order, radius=setup.map_side - 1,
                     economies={p: Economy() for p in order}, intel={p: {} for p in order})

    def clock(self, state: State) -> Clock:
        return Clock(state.turn, state.phase)

    def is_over(self, state: State) -> bool:
        return state.over

    def decide(self, state: State, command: Command, actor: Actor, dice: Dice) -> list[Event]:
        if actor.kind == "spectator":
            raise RuleViolation("FTC-UMP-1", "spectators cannot issue commands")
        if state.over:
            raise RuleViolation("FTC-TIME-1", "the campaign is over")
        handler = HANDLERS.get(type(command))
        if handler is None:
            raise RuleViolation("FTC-UMP-1", f"unknown command {type(command).__name__}")
        out = Out(state)
        handler(out, command, actor, dice)
        contacts.advance(out, dice)  # automatic steps follow the command that triggered them
        return out.events

    def evolve(self, state: State, event: Event) -> State:
        return evolve(state, event)

    def options(self, state: State, viewer: Viewer) -> list[Command]:
        return _options.options(state, viewer, self.decide)

    def redact(self, event: Event, viewer: Viewer, state: State) -> Event | None:
        return visibility.redact(event, viewer, state)

    def redact_setup(self, setup: dict[str, Any], viewer: Viewer) -> dict[str, Any]:
        return visibility.redact_setup(setup, viewer)

    def view(self, state: State, viewer: Viewer) -> dict[str, Any]:
        return visibility.view(state, viewer)

    def explain(self, event: Event) -> str:
        return _explain.explain(event)


RULESET = FtCampaignRuleset()
