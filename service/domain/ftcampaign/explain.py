"""explain(event): one sentence per event. Applied to redacted events too, so it uses only what is there."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.domain.core import Event

from . import events as E
from .common import TABLE_EDGE


def _h(h: Any) -> str:
    return f"{h[0]},{h[1]}" if h is not None else "?"


def _battle(ev: E.BattleStarted) -> str:
    sides = ", ".join(
        f"{f.player} ({len(f.ships)} ships, {f.posture}"
        + (f", from the {TABLE_EDGE.get(f.entry_side or '', 'table')} edge" if f.entry_side else "")
        + ")"
        for f in ev.battle.forces
    )
    drop = f"{ev.drop} has the drop with {ev.drop_changes} change(s)" if ev.drop else "no one has the drop"
    return f"Battle {ev.battle.id} at {_h(ev.battle.hex)} at {ev.battle.range_feet} feet: {sides}; {drop}."


SENTENCES: dict[type[Event], Callable[[Any], str]] = {
    E.MapGenerated: lambda e: f"The star map is diced: {len(e.worlds)} worlds, {len(e.routes)} charted-route links.",
    E.HomeworldClaimed: lambda e: f"{e.player} dices {e.world} as starting world and {e.extra} more worlds to claim.",
    E.WorldClaimed: lambda e: f"{e.player} expands from {e.from_world} to {e.world}.",
    E.ExpansionFailed: lambda e: f"{e.player} finds no unowned world from {e.from_world} in six rolls.",
    E.PicksForfeited: lambda e: f"No unowned world is left: {', '.join(e.players)} forfeit their remaining picks.",
    E.PhaseChanged: lambda e: f"The campaign moves to {e.phase}" + (f"; {e.current} to act." if e.current else "."),
    E.TechnologyApproved: lambda e: f"The umpires approve {e.design} for {e.player}.",
    E.RulingRecorded: lambda e: f"Umpire ruling: {e.text}",
    E.PlayerReady: lambda e: f"{e.player} has finished set-up spending.",
    E.TurnStarted: lambda e: f"Strategic turn {e.turn} (economic turn {e.economic_turn}) begins.",
    E.EconomicTurnStarted: lambda e: f"Economic turn {e.economic_turn} begins: worlds pay and fleets are maintained.",
    E.OrdersRevealed: lambda e: f"Sealed orders for turn {e.turn} are opened and fleets jump together.",
    E.TurnEnded: lambda e: f"Strategic turn {e.turn} ends.",
    E.WorldScouted: lambda e: f"{e.world} is scouted by {e.by}: income {e.income}.",
    E.CampaignEnded: lambda e: f"The campaign ends: {e.reason}.",
    E.IncomesRolled: lambda e: f"{e.player}'s world incomes are rolled; starting capital {e.capital}.",
    E.ShipBought: lambda e: (
        f"{e.player} launches {e.ship.name} ({e.ship.id})."
        if e.launched
        else f"{e.player} buys {e.ship.name} ({e.ship.id}) for {e.price}."
    ),
    E.ModuleBought: lambda e: f"{e.player} buys module {e.stored.module} stored at {e.stored.world}.",
    E.SparesBought: lambda e: f"{e.player} buys {e.value} of spares at {e.world} for {e.price}.",
    E.DefencesBought: lambda e: f"{e.player} adds {e.points} IDP to {e.world}.",
    E.DummyPlaced: lambda e: f"{e.player} places dummy counter {e.group}.",
    E.GroupSplit: lambda e: f"{e.player} splits {e.new_group} off {e.group}.",
    E.GroupsMerged: lambda e: f"{e.player} merges {e.other} into {e.into}.",
    E.CloakSet: lambda e: f"{e.player} turns cloak {'on' if e.on else 'off'} for {e.group}.",
    E.RouteClosed: lambda e: f"{e.player} {'closes' if e.closed else 'opens'} the charted route at {e.world}.",
    E.MaintenanceSet: lambda e: f"{e.player} sets maintenance to {e.rate}.",
    E.StandardNavyApproved: lambda e: f"The umpires accept {e.player}'s standardised navy (7.5% maintenance).",
    E.KeelLaid: lambda e: f"{e.player} lays a keel for {e.keel.design} at {e.keel.world}.",
    E.KeelsWorked: lambda e: f"{e.player}'s yards work a week for {e.paid} pts.",
    E.RepairOrdered: lambda e: f"{e.player} repairs {e.ship} ({e.source}) for {e.cost}, in dock until turn {e.until}.",
    E.JuryRigInspected: lambda e: f"Refit inspection of {e.ship}: {len(e.passed)} pass, {len(e.failed)} replaced.",
    E.Refitted: lambda e: f"{e.player} refits {e.ship}: {e.removed} becomes {e.installed.kind} for {e.cost}.",
    E.ModuleSwapped: lambda e: f"{e.player} swaps module {e.module} into {e.ship}.",
    E.CaptureRebuilt: lambda e: f"{e.player} rebuilds captured {e.ship} for {e.cost}.",
    E.CaptureSold: lambda e: f"{e.player} sells captured {e.ship} for scrap: {e.price}.",
    E.DefenceRebuildOrdered: lambda e: f"{e.player} rebuilds {e.idp} IDP at {e.world} for {e.cost}.",
    E.RepulseRepaired: lambda e: f"{e.player} repairs {e.group}'s repulse damage for {e.cost}.",
    E.RepulseAllocated: lambda e: f"Repulse damage hits {e.group}: {sum(e.hits.values())} hull boxes by mass.",
    E.OrdersSubmitted: lambda e: (
        f"{e.player} seals orders" + (f" for {len(e.orders)} group(s)." if e.orders is not None else ".")
    ),
    E.GroupMoved: lambda e: (
        f"{e.group} arrives at {_h(e.to)} ({e.posture})"
        + (", stopped short by a blocked route." if e.stopped_short else ".")
    ),
    E.Departed: lambda e: f"{e.group} enters FTL for {_h(e.to)}: {e.reason}.",
    E.EconomyReport: lambda e: (
        f"{e.player}: income {e.income}, maintenance {e.maintenance} at {e.rate}, cash {e.cash}."
    ),
    E.IntelGathered: lambda e: f"{e.player}'s forces see {len(e.sighting.counters)} counter(s) at {_h(e.hex)}.",
    E.DummiesRevealed: lambda e: f"{len(e.groups)} dummy counter(s) at {_h(e.hex)} vanish on contact.",
    E.StepOpened: lambda e: f"At {_h(e.step.hex)}: {', '.join(e.step.awaiting)} must decide ({e.step.kind}).",
    E.ChoiceMade: lambda e: f"{e.player} decides" + (f": {e.choice}." if e.choice else " (sealed)."),
    E.StepResolved: lambda e: (
        f"At {_h(e.hex)} the {e.kind} decisions are revealed"
        + (f"; range {e.range_feet} feet." if e.range_feet else ".")
    ),
    E.BattleStarted: _battle,
    E.FormationDeclared: lambda e: (
        f"{e.player} records formation and speed for {e.battle}"
        + (f": {e.formation.formation}, speed {e.formation.speed}." if e.formation else ".")
    ),
    E.BattleLinked: lambda e: (
        f"Battle {e.battle} at {_h(e.hex)} is fought as the linked tactical game "
        f"{e.tactical_game_id} (GET /v1/games/{e.tactical_game_id})."
    ),
    E.BattleRecorded: lambda e: (
        f"Battle {e.battle} at {_h(e.hex)} is over: "
        + (f"{e.victor} wins" if e.victor else "no victor")
        + (
            f", as fought in the linked tactical game {e.tactical_game_id}: its replay, turn by "
            f"turn, is GET /v1/games/{e.tactical_game_id}/turns/N."
            if e.tactical_game_id
            else "."
        )
    ),
    E.DisengagementResolved: lambda e: f"{e.group} {'escapes' if e.escaped else 'fails to disengage'}.",
    E.AssaultResolved: lambda e: (
        f"{e.player} assaults the defences at {_h(e.hex)} ({e.fleet_points} pts vs {e.defence_value}): {e.result}."
    ),
    E.WorldTaken: lambda e: f"{e.player} takes {e.world} without a fight.",
    E.DrivenOff: lambda e: f"The defences at {_h(e.hex)} drive off {e.player}'s weak attack.",
    E.InterdictionLifted: lambda e: f"{e.world} is no longer interdicted.",
}


def explain(event: Event) -> str:
    fn = SENTENCES.get(type(event))
    return fn(event) if fn else str(type(event).__struct_config__.tag)  # another ruleset's event: its tag
