"""evolve: apply a fact to the state. Total, pure, never rolls, no rules logic."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from msgspec.structs import replace

from service.domain.core import Event
from service.domain.core.guards import UnknownEvent

from . import events as E
from .effects import note
from .state import RECENT_NOTICES, Economy, Group, Rebuild, Repulse, State, StoredModule, World, key


def recent(notices: tuple[str, ...], notice: str) -> tuple[str, ...]:
    """``notices`` with ``notice`` added, keeping the last RECENT_NOTICES (the log keeps every one)."""
    return (*notices[-(RECENT_NOTICES - 1) :], notice)


def _econ(state: State, player: str, **changes: Any) -> State:
    economies = dict(state.economies)
    economies[player] = replace(economies.get(player, Economy()), **changes)
    return replace(state, economies=economies)


def _econ_of(state: State, player: str) -> Economy:
    return state.economies.get(player, Economy())


def _world(state: State, wid: str, **changes: Any) -> State:
    if wid not in state.worlds:
        return state
    worlds = dict(state.worlds)
    worlds[wid] = replace(worlds[wid], **changes)
    return replace(state, worlds=worlds)


def _group(state: State, gid: str, **changes: Any) -> State:
    if gid not in state.groups:
        return state
    groups = dict(state.groups)
    groups[gid] = replace(groups[gid], **changes)
    return replace(state, groups=groups)


def _ship(state: State, sid: str, **changes: Any) -> State:
    if sid not in state.ships:
        return state
    ships = dict(state.ships)
    ships[sid] = replace(ships[sid], **changes)
    return replace(state, ships=ships)


def _systems(state: State, sid: str, ids: tuple[str, ...], **changes: Any) -> State:
    ship = state.ships.get(sid)
    if ship is None:
        return state
    systems = tuple(replace(s, **changes) if s.id in ids else s for s in ship.systems)
    return _ship(state, sid, systems=systems)


def _remove_ships(state: State, ids: tuple[str, ...] | list[str]) -> State:
    gone = set(ids)
    ships = {k: v for k, v in state.ships.items() if k not in gone}
    groups = {}
    for gid, g in state.groups.items():
        kept = tuple(s for s in g.ships if s not in gone)
        if g.dummy or kept:
            groups[gid] = replace(g, ships=kept) if kept != g.ships else g
    return replace(state, ships=ships, groups=groups)


def _bump(state: State, player: str) -> State:
    return _econ(state, player, seq=_econ_of(state, player).seq + 1)


def _cash(state: State, player: str, delta: int) -> State:
    return _econ(state, player, cash=_econ_of(state, player).cash + delta)


def _settle(state: State, h: Any) -> State:
    k = key(h)
    return state if k in state.settled else replace(state, settled=(*state.settled, k))


def _map(state: State, ev: E.MapGenerated) -> State:
    worlds = {key(w.hex): World(hex=tuple(w.hex), route=w.route) for w in ev.worlds}  # type: ignore[arg-type]
    return replace(state, radius=ev.radius, worlds=worlds, routes=ev.routes)


def _homeworld(state: State, ev: E.HomeworldClaimed) -> State:
    state = _world(state, ev.world, owner=ev.player, setup_owner=ev.player, capital_of=ev.player)
    return _econ(state, ev.player, capital=ev.world, picks_left=ev.extra)


def _claimed(state: State, ev: E.WorldClaimed) -> State:
    state = _world(state, ev.world, owner=ev.player, setup_owner=ev.player)
    return _econ(state, ev.player, picks_left=max(0, _econ_of(state, ev.player).picks_left - 1))


def _incomes(state: State, ev: E.IncomesRolled) -> State:
    for wid, inc in ev.incomes.items():
        state = _world(state, wid, income=inc, idp=inc, idp_full=inc)
    return _econ(state, ev.player, cash=ev.capital)


def _ship_bought(state: State, ev: E.ShipBought) -> State:
    ships = dict(state.ships)
    ships[ev.ship.id] = ev.ship
    groups = dict(state.groups)
    if ev.group in groups:
        groups[ev.group] = replace(groups[ev.group], ships=(*groups[ev.group].ships, ev.ship.id))
    else:
        groups[ev.group] = Group(id=ev.group, owner=ev.player, hex=tuple(ev.hex), ships=(ev.ship.id,))  # type: ignore[arg-type]
    state = replace(state, ships=ships, groups=groups)
    econ = _econ_of(state, ev.player)
    keels = tuple(k for k in econ.keels if k.id != ev.launched)
    state = _econ(
        state,
        ev.player,
        cash=econ.cash - ev.price,
        keels=keels,
        ship_spending=econ.ship_spending + (ev.price if ev.capped else 0),
    )
    return _bump(state, ev.player)


def _module_bought(state: State, ev: E.ModuleBought) -> State:
    econ = _econ_of(state, ev.player)
    state = _econ(
        state,
        ev.player,
        cash=econ.cash - ev.price,
        modules=(*econ.modules, ev.stored),
        ship_spending=econ.ship_spending + (ev.price if ev.capped else 0),
    )
    return _bump(state, ev.player)


def _spares(state: State, ev: E.SparesBought) -> State:
    econ = _econ_of(state, ev.player)
    if ev.pending:
        pending = dict(econ.spares_pending)
        pending[ev.world] = pending.get(ev.world, 0) + ev.value
        return _econ(state, ev.player, cash=econ.cash - ev.price, spares_pending=pending)
    spares, cap = dict(econ.spares), dict(econ.spares_cap)
    spares[ev.world] = spares.get(ev.world, 0) + ev.value
    cap[ev.world] = cap.get(ev.world, 0) + ev.value
    return _econ(state, ev.player, cash=econ.cash - ev.price, spares=spares, spares_cap=cap)


def _defences(state: State, ev: E.DefencesBought) -> State:
    w = state.worlds[ev.world]
    state = _world(state, ev.world, idp=w.idp + ev.points, idp_full=w.idp_full + ev.points)
    return _cash(state, ev.player, -ev.points)


def _dummy(state: State, ev: E.DummyPlaced) -> State:
    groups = dict(state.groups)
    groups[ev.group] = Group(id=ev.group, owner=ev.player, hex=tuple(ev.hex), dummy=True)  # type: ignore[arg-type]
    return _bump(replace(state, groups=groups), ev.player)


def _split(state: State, ev: E.GroupSplit) -> State:
    old = state.groups[ev.group]
    groups = dict(state.groups)
    groups[ev.group] = replace(old, ships=tuple(s for s in old.ships if s not in ev.ships))
    groups[ev.new_group] = replace(old, id=ev.new_group, ships=ev.ships, repulse=None)
    return _bump(replace(state, groups=groups), ev.player)


def add_repulse(a: Repulse | None, b: Repulse | None) -> Repulse | None:
    """FTC-DEF-7: repulse damage a group carries adds up (a merge or a second repulse never loses any)."""
    if a is None or b is None:
        return a or b
    return replace(a, pts=a.pts + b.pts, boxes=a.boxes + b.boxes, due_et=min(a.due_et, b.due_et))


def _merged(state: State, ev: E.GroupsMerged) -> State:
    groups = dict(state.groups)
    into, other = groups[ev.into], groups.pop(ev.other)
    groups[ev.into] = replace(into, ships=(*into.ships, *other.ships), repulse=add_repulse(into.repulse, other.repulse))
    return replace(state, groups=groups)


def _repair(state: State, ev: E.RepairOrdered) -> State:
    ship = state.ships[ev.ship]
    state = _systems(state, ev.ship, ev.systems, damaged=False, jury=False, foreign=ev.source == "other")
    state = _ship(
        state,
        ev.ship,
        hull_lost=max(0, ship.hull_lost - ev.hull),
        biomass_expended=max(0, ship.biomass_expended - ev.biomass),
        busy_until=ev.until,
    )
    if ev.donor is not None:
        state = _systems(state, ev.donor, ev.donor_systems, damaged=True)
    econ = _econ_of(state, ev.player)
    spares = dict(econ.spares)
    if ev.spares_used:
        spares[ev.world] = spares.get(ev.world, 0) - ev.spares_used
    return _econ(state, ev.player, cash=econ.cash - ev.cost, spares=spares)


def _jury(state: State, ev: E.JuryRigInspected) -> State:
    state = _systems(state, ev.ship, ev.passed, jury=False)
    return _systems(state, ev.ship, ev.failed, jury=False, damaged=True)


def _refit(state: State, ev: E.Refitted) -> State:
    ship = state.ships[ev.ship]
    systems = tuple(ev.installed if s.id == ev.removed else s for s in ship.systems)
    state = _ship(state, ev.ship, systems=systems, mass=ev.mass_after, busy_until=ev.until)
    return _cash(state, ev.player, -ev.cost)


def _swap(state: State, ev: E.ModuleSwapped) -> State:
    econ = _econ_of(state, ev.player)
    ship = state.ships[ev.ship]
    stored = tuple(m for m in econ.modules if m.id != ev.module)
    if ev.removed is not None:
        old = next((m for m in econ.modules if m.id == ev.removed), None)
        stored = (
            *stored,
            StoredModule(id=ev.removed, module=old.module if old else (ship.module or ""), world=ev.world),
        )
    state = _ship(state, ev.ship, module=ev.module, module_cost=ev.module_cost, busy_until=ev.until)
    return _econ(state, ev.player, modules=stored)


def _rebuilt(state: State, ev: E.CaptureRebuilt) -> State:
    ship = state.ships[ev.ship]
    systems = tuple(replace(s, damaged=False, jury=False) for s in ship.systems)
    state = _ship(state, ev.ship, hulk=False, systems=systems, hull_lost=0, busy_until=ev.until)
    return _cash(state, ev.player, -ev.cost)


def _repulse_allocated(state: State, ev: E.RepulseAllocated) -> State:
    state = _group(state, ev.group, repulse=None)
    for sid, hits in ev.hits.items():
        if sid in state.ships:
            state = _ship(state, sid, hull_lost=state.ships[sid].hull_lost + hits)
    for ref in ev.failed:
        sid, _, sysid = ref.partition("/")
        state = _systems(state, sid, (sysid,), damaged=True)
    return _remove_ships(state, ev.destroyed)


def _moved(state: State, ev: E.GroupMoved) -> State:
    g = state.groups.get(ev.group)
    if g is None:
        return state
    hold = ev.frm is not None and tuple(ev.frm) == tuple(ev.to)
    return _group(
        state,
        ev.group,
        hex=tuple(ev.to),
        origin=g.origin if hold else ev.frm,
        posture=ev.posture,
        via_route=ev.route,
        entry_side=g.entry_side if hold else ev.entry_side,
        ftl_to=None,
        ftl_from=None,
        ftl_route=False,
        under_fire=ev.under_fire,
    )


def _departed(state: State, ev: E.Departed) -> State:
    g = state.groups.get(ev.group)
    if g is None:
        return state
    return _group(
        state,
        ev.group,
        hex=None,
        ftl_to=tuple(ev.to),
        ftl_from=g.hex,
        under_fire=ev.under_fire,
        posture="stand_off",
        cloaked=False,
        ftl_route=ev.route,
    )


def _economy(state: State, ev: E.EconomyReport) -> State:
    econ = _econ_of(state, ev.player)
    spares, pending = dict(econ.spares), dict(econ.spares_pending)
    for wid, value in ev.spares_arrived.items():
        spares[wid] = spares.get(wid, 0) + value
        pending.pop(wid, None)
    for wid, idp in ev.rebuilt.items():
        if wid in state.worlds:
            state = _world(state, wid, idp=state.worlds[wid].idp + idp)
    rebuilds = tuple(r for r in econ.rebuilds if r.due_et > ev.economic_turn)
    return _econ(
        state,
        ev.player,
        cash=ev.cash,
        penalty=ev.penalty,
        ordnance=0,
        income_worlds=ev.income_worlds,
        spares=spares,
        spares_pending=pending,
        rebuilds=rebuilds,
    )


def _intel(state: State, ev: E.IntelGathered) -> State:
    intel = dict(state.intel)
    mine = dict(intel.get(ev.player, {}))
    mine[key(ev.hex)] = ev.sighting
    intel[ev.player] = mine
    return replace(state, intel=intel)


def _step_opened(state: State, ev: E.StepOpened) -> State:
    return replace(state, steps=(*state.steps, ev.step), counter=state.counter + 1)


def _choice(state: State, ev: E.ChoiceMade) -> State:
    steps = []
    for s in state.steps:
        if s.id == ev.step:
            choices = dict(s.choices)
            choices[ev.player] = ev.choice or ""
            dest = dict(s.destinations)
            if ev.to is not None:
                dest[ev.player] = tuple(ev.to)  # type: ignore[assignment]
            s = replace(s, choices=choices, destinations=dest, awaiting=tuple(p for p in s.awaiting if p != ev.player))
        steps.append(s)
    return replace(state, steps=tuple(steps))


def _step_resolved(state: State, ev: E.StepResolved) -> State:
    state = replace(state, steps=tuple(s for s in state.steps if s.id != ev.step))
    for g in list(state.groups.values()):
        if g.hex is not None and tuple(g.hex) == tuple(ev.hex) and g.owner in ev.postures and not g.dummy:
            state = _group(state, g.id, posture=ev.postures[g.owner])
    if ev.kind == "defeat" and key(ev.hex) not in state.bonus:  # a defending fleet left (FTC-ARR-9)
        state = replace(state, bonus=(*state.bonus, key(ev.hex)))
    return _settle(state, ev.hex) if ev.settle else state


def _formation(state: State, ev: E.FormationDeclared) -> State:
    battles = []
    for b in state.battles:
        if b.id == ev.battle and ev.formation is not None:
            f = dict(b.formations)
            f[ev.player] = ev.formation
            b = replace(b, formations=f)
        battles.append(b)
    return replace(state, battles=tuple(battles))


def _battle_recorded(state: State, ev: E.BattleRecorded) -> State:
    state = replace(state, battles=tuple(b for b in state.battles if b.id != ev.battle))
    for r in ev.ships:
        ship = state.ships.get(r.ship)
        if ship is None or r.destroyed:
            continue
        systems = tuple(
            replace(s, damaged=False, jury=True)
            if s.id in r.jury_rigged
            else replace(s, damaged=True)
            if s.id in r.damaged
            else s
            for s in ship.systems
        )
        state = _ship(
            state,
            r.ship,
            hull_lost=min(ship.hull, ship.hull_lost + r.hull_lost),
            systems=systems,
            biomass_expended=ship.biomass_expended + r.biomass_expended,
        )
    state = _remove_ships(state, [r.ship for r in ev.ships if r.destroyed])
    if ev.captured and ev.victor is not None and ev.captured_group is not None:
        taken = [s for s in ev.captured if s in state.ships]
        groups = {gid: replace(g, ships=tuple(s for s in g.ships if s not in taken)) for gid, g in state.groups.items()}
        groups = {gid: g for gid, g in groups.items() if g.dummy or g.ships}
        groups[ev.captured_group] = Group(
            id=ev.captured_group,
            owner=ev.victor,
            hex=tuple(ev.hex),  # type: ignore[arg-type]
            ships=tuple(taken),
        )
        ships = dict(state.ships)
        for s in taken:
            ships[s] = replace(ships[s], owner=ev.victor, hulk=True, busy_until=0, module=None, module_cost=0)
        state = replace(state, groups=groups, ships=ships)
    for player, pts in ev.ordnance.items():
        state = _econ(state, player, ordnance=_econ_of(state, player).ordnance + pts)
    if ev.bonus:
        state = replace(state, bonus=(*state.bonus, key(ev.hex)))
    return _settle(state, ev.hex) if ev.settle else state


def _disengaged(state: State, ev: E.DisengagementResolved) -> State:
    if not ev.escaped:
        return state
    battles = []
    for b in state.battles:
        if b.id == ev.battle:
            forces = []
            for f in b.forces:
                if ev.group in f.groups:
                    gone = state.groups[ev.group].ships if ev.group in state.groups else ()
                    f = replace(
                        f,
                        groups=tuple(g for g in f.groups if g != ev.group),
                        ships=tuple(s for s in f.ships if s not in gone),
                    )
                forces.append(f)
            b = replace(b, forces=tuple(forces))
        battles.append(b)
    return replace(state, battles=tuple(battles))


def _assault(state: State, ev: E.AssaultResolved) -> State:
    k = key(ev.hex)
    w = state.worlds[k]
    if ev.result == "surrendered":
        state = _world(
            state,
            k,
            owner=ev.player,
            idp=ev.idp_after,
            idp_full=max(w.idp_full, w.idp),
            interdicted=False,
            capital_of=None,
            closed=False,
        )
    elif ev.result == "interdicted":
        state = _world(state, k, interdicted=True)
    elif ev.result == "repulsed":
        split = ev.repulse_split or {gid: (ev.repulse, ev.repulse_boxes) for gid in ev.groups}
        for gid, (pts, boxes) in split.items():
            if gid in state.groups:
                new = Repulse(world=k, pts=pts, boxes=boxes, due_et=ev.due_et)
                state = _group(state, gid, repulse=add_repulse(state.groups[gid].repulse, new))
    state = replace(state, bonus=tuple(b for b in state.bonus if b != k))
    return _settle(state, ev.hex)


def _remove_keels_progress(state: State, ev: E.KeelsWorked) -> State:
    econ = _econ_of(state, ev.player)
    keels = tuple(replace(k, progress=ev.progress.get(k.id, k.progress)) for k in econ.keels)
    return _econ(state, ev.player, keels=keels, cash=econ.cash - ev.paid)


def _sold(state: State, ev: E.CaptureSold) -> State:
    return _cash(_remove_ships(state, [ev.ship]), ev.player, ev.price)


HANDLERS: dict[type[Event], Callable[[State, Any], State]] = {
    E.MapGenerated: _map,
    E.HomeworldClaimed: _homeworld,
    E.WorldClaimed: _claimed,
    E.ExpansionFailed: lambda s, e: s,
    E.PicksForfeited: lambda s, e: _forfeit(s, e),
    E.PhaseChanged: lambda s, e: replace(s, phase=e.phase, current=e.current),
    E.TechnologyApproved: lambda s, e: _econ(
        replace(s, approvals=recent(s.approvals, f"{e.player}: {e.design}")),
        e.player,
        approved=(*_econ_of(s, e.player).approved, e.design),
    ),
    E.RulingRecorded: lambda s, e: replace(s, rulings=recent(s.rulings, e.text)),
    E.PlayerReady: lambda s, e: _econ(s, e.player, ready=True),
    E.TurnStarted: lambda s, e: replace(
        s, turn=e.turn, phase="orders", orders={}, steps=(), battles=(), settled=(), standoff_done=(), bonus=()
    ),
    E.EconomicTurnStarted: lambda s, e: s,
    E.OrdersRevealed: lambda s, e: replace(s, orders={}, phase="contacts"),
    E.TurnEnded: lambda s, e: s,
    E.WorldScouted: lambda s, e: _world(s, e.world, income=e.income, idp=e.income, idp_full=e.income, scouted=True),
    E.CampaignEnded: lambda s, e: replace(s, over=True, phase="over", ended=e.reason),
    E.IncomesRolled: _incomes,
    E.ShipBought: _ship_bought,
    E.ModuleBought: _module_bought,
    E.SparesBought: _spares,
    E.DefencesBought: _defences,
    E.DummyPlaced: _dummy,
    E.GroupSplit: _split,
    E.GroupsMerged: _merged,
    E.CloakSet: lambda s, e: _group(s, e.group, cloaked=e.on),
    E.RouteClosed: lambda s, e: _world(s, e.world, closed=e.closed),
    E.MaintenanceSet: lambda s, e: _econ(s, e.player, maintenance=e.rate),
    E.StandardNavyApproved: lambda s, e: _econ(s, e.player, standard_navy=True),
    E.KeelLaid: lambda s, e: _bump(_econ(s, e.player, keels=(*_econ_of(s, e.player).keels, e.keel)), e.player),
    E.KeelsWorked: _remove_keels_progress,
    E.RepairOrdered: _repair,
    E.JuryRigInspected: _jury,
    E.Refitted: _refit,
    E.ModuleSwapped: _swap,
    E.CaptureRebuilt: _rebuilt,
    E.CaptureSold: _sold,
    E.DefenceRebuildOrdered: lambda s, e: _econ(
        s, e.player, cash=_econ_of(s, e.player).cash - e.cost, rebuilds=(*_econ_of(s, e.player).rebuilds, _rebuild(e))
    ),
    E.RepulseRepaired: lambda s, e: _cash(_group(s, e.group, repulse=None), e.player, -e.cost),
    E.RepulseAllocated: _repulse_allocated,
    E.OrdersSubmitted: lambda s, e: replace(s, orders={**s.orders, e.player: e.orders or ()}),
    E.GroupMoved: _moved,
    E.Departed: _departed,
    E.EconomyReport: _economy,
    E.IntelGathered: _intel,
    E.DummiesRevealed: lambda s, e: replace(s, groups={k: g for k, g in s.groups.items() if k not in e.groups}),
    E.StepOpened: _step_opened,
    E.ChoiceMade: _choice,
    E.StepResolved: _step_resolved,
    E.BattleStarted: lambda s, e: replace(s, battles=(*s.battles, e.battle), counter=s.counter + 1),
    E.FormationDeclared: _formation,
    E.BattleLinked: lambda s, e: replace(
        s, battles=tuple(replace(b, tactical_game_id=e.tactical_game_id) if b.id == e.battle else b for b in s.battles)
    ),
    E.BattleRecorded: _battle_recorded,
    E.DisengagementResolved: _disengaged,
    E.AssaultResolved: _assault,
    E.WorldTaken: lambda s, e: _settle(
        _world(s, e.world, owner=e.player, capital_of=None, interdicted=False, closed=False),
        tuple(int(x) for x in e.world.split(",")),
    ),
    E.DrivenOff: lambda s, e: _settle(s, e.hex),
    E.InterdictionLifted: lambda s, e: _world(s, e.world, interdicted=False),
}


def _forfeit(state: State, ev: E.PicksForfeited) -> State:
    for p in ev.players:
        state = _econ(state, p, picks_left=0)
    return state


def _rebuild(ev: E.DefenceRebuildOrdered) -> Rebuild:
    return Rebuild(world=ev.world, idp=ev.idp, due_et=ev.due_et)


def evolve(state: State, event: Event) -> State:
    handler = HANDLERS.get(type(event))
    if handler is None:
        raise UnknownEvent("ftcampaign", event)
    return note(handler(state, event), event)
