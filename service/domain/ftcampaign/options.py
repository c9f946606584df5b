"""options(state, viewer): complete commands decide() accepts now.

Candidates are built from the state the viewer may see (its own pieces and steps), then kept only if decide()
accepts them on a throwaway copy, so an option can never be refused. Free-text and open-ended commands are
offered as one representative each.
"""

from __future__ import annotations

from collections.abc import Callable

from service.domain.core import Command, Dice, RuleViolation, Viewer, seat

from . import commands as C
from .common import dist, econ, hulkless, on_map
from .movement import _neighbours, route_graph, route_path
from .state import HexT, State, SystemKit, key

_DICE_KEY = b"options"


def _legal(decide: Callable[..., object], state: State, cmds: list[Command], actor: Viewer) -> list[Command]:
    ok = []
    for c in cmds:
        try:
            decide(state, c, actor, Dice(_DICE_KEY, "options", 0))
        except RuleViolation:
            continue
        ok.append(c)
    return ok


def destinations(state: State, h: HexT) -> list[tuple[HexT, bool]]:
    found: list[tuple[HexT, bool]] = [(n, False) for n in _neighbours(h) if on_map(state, n)]
    if key(h) in state.worlds:
        for w in state.worlds.values():
            if dist(h, w.hex) == 2:
                found.append((tuple(w.hex), False))  # type: ignore[arg-type]
    if tuple(h) in route_graph(state):
        for other in route_graph(state):
            if other != tuple(h) and route_path(state, h, other) is not None:
                found.append((other, True))
    return found


def _orders(state: State, player: str) -> list[Command]:
    out: list[Command] = [C.SubmitOrders(orders=())]
    for g in sorted((g for g in state.groups.values() if g.owner == player and g.hex is not None), key=lambda g: g.id):
        for to, route in destinations(state, g.hex):  # type: ignore[arg-type]
            for posture in ("stand_off", "attack", "withdraw"):
                out.append(C.SubmitOrders(orders=(C.Order(group=g.id, to=to, posture=posture, route=route),)))
        out.append(C.SubmitOrders(orders=(C.Order(group=g.id, to=g.hex, posture="attack"),)))  # type: ignore[arg-type]
    return out


def _economy(state: State, player: str) -> list[Command]:
    e = econ(state, player)
    mine = sorted(k for k, w in state.worlds.items() if w.owner == player)
    home = e.capital if e.capital in mine else (mine[0] if mine else None)
    out: list[Command] = [C.SetMaintenance(rate="reduced" if e.maintenance == "full" else "full")]
    if home:
        for d in state.setup.designs:
            out.append(C.BuyShip(design=d.id, world=home))
        out += [C.BuySpares(world=home, value=100), C.PlaceDummy(world=home)]
        out += [C.BuyModule(module=m.id, world=home) for m in state.setup.modules]
    for w in mine[:3]:
        out.append(C.BuyDefences(world=w, points=10))
    if state.phase == "orders":
        if home:
            out += [C.LayKeel(design=d.id, world=home) for d in state.setup.designs[:3]]
            out.append(C.CloseRoute(world=home, closed=not state.worlds[home].closed))
        out += [C.RebuildDefences(world=w, thirds=1) for w in mine if state.worlds[w].idp < state.worlds[w].idp_full]
        for g in (g for g in state.groups.values() if g.owner == player):
            live = hulkless(state, g)
            out += [C.Scout(group=g.id), C.RepairRepulse(group=g.id), C.SetCloak(group=g.id, on=not g.cloaked)]
            if len(g.ships) > 1:
                out.append(C.SplitGroup(group=g.id, ships=g.ships[:1]))
            out += [C.MergeGroups(into=g.id, other=o.id) for o in state.groups.values()
                    if o.owner == player and o.id != g.id and o.hex == g.hex]
            for sid in g.ships:
                ship = state.ships[sid]
                broken = tuple(s.id for s in ship.systems if s.damaged)
                if broken or ship.hull_lost:
                    out.append(C.Repair(ship=sid, systems=broken[:1], hull=min(ship.hull_lost, 2)))
                    out.append(C.Repair(ship=sid, systems=broken[:1], source="spares"))
                    for donor in live:
                        if donor != sid:
                            out.append(C.Repair(ship=sid, systems=broken[:1], source="identical", donor=donor))
                if any(s.jury for s in ship.systems):
                    out.append(C.InspectJuryRig(ship=sid))
                if ship.hulk:
                    out += [C.RebuildCapture(ship=sid), C.SellCapture(ship=sid)]
                elif ship.systems:
                    s0 = ship.systems[0]
                    out.append(C.Refit(ship=sid, remove=s0.id, install=SystemKit(
                        id=s0.id, kind=s0.kind, rating=s0.rating, cost=s0.cost, mass=s0.mass)))
                out += [C.SwapModule(ship=sid, module=m.id) for m in e.modules]
    return out


def _contacts(state: State, player: str) -> list[Command]:
    out: list[Command] = []
    for s in state.steps:
        if player not in s.awaiting:
            continue
        if s.kind == "engage":
            out.append(C.Engage(step=s.id, stay=True))
            gs = [g for g in state.groups.values() if g.owner == player and g.hex == s.hex and not g.dummy]
            back = next((g.origin for g in gs if g.origin is not None and g.origin != s.hex), None)
            out.append(C.Engage(step=s.id, stay=False, to=back or _neighbours(s.hex)[0]))
        elif s.kind == "standoff":
            out += [C.ChoosePosture(step=s.id, posture=p) for p in ("stand_off", "attack", "withdraw")]
        elif s.kind == "recon":
            out += [C.Recon(step=s.id, choice=c) for c in ("attack", "stand_off", "withdraw")]
        elif s.kind == "assault":
            ships = tuple(sid for g in state.groups.values() if g.owner == player and g.hex == s.hex
                          and g.posture == "attack" and not g.dummy for sid in hulkless(state, g))
            out += [C.AssaultDefences(step=s.id, ships=ships), C.HoldOff(step=s.id)]
    for b in state.battles:
        if player in [f.player for f in b.forces] and player not in b.formations:
            out.append(C.DeclareFormation(battle=b.id, formation="line", speed=4))
    return out


def _battle_results(state: State) -> list[Command]:
    out: list[Command] = []
    for b in state.battles:
        if len(b.formations) < len(b.forces):
            continue
        out.append(C.RecordBattle(battle=b.id, tactical_game_id=None))
        for f in b.forces:
            others = [o for o in b.forces if o.player != f.player]
            lost = tuple(s for o in others for s in o.ships if s in state.ships)
            out.append(C.RecordBattle(battle=b.id, victor=f.player, ships=tuple(
                C.ShipResult(ship=s, destroyed=True) for s in lost)))
            out.append(C.RecordBattle(battle=b.id, victor=f.player, captured=lost))
            left = []
            for o in others:
                for gid in o.groups:
                    g = state.groups.get(gid)
                    if g is not None:
                        left.append(C.Departure(group=gid, to=g.origin or _neighbours(b.hex)[0]))
            out.append(C.RecordBattle(battle=b.id, victor=f.player, left=tuple(left), tactical_game_id="g_linked"))
            dmg = []
            for s in f.ships[:1] + lost[:1]:
                ship = state.ships.get(s)
                if ship is not None and ship.systems:
                    dmg.append(C.ShipResult(ship=s, hull_lost=1, damaged=(ship.systems[0].id,),
                                            jury_rigged=tuple(x.id for x in ship.systems[1:2])))
            out.append(C.RecordBattle(battle=b.id, ships=tuple(dmg), ordnance={f.player: 10}))
        for f in b.forces:
            for gid in f.groups:
                g = state.groups.get(gid)
                if g is not None:
                    out.append(C.ResolveDisengagement(battle=b.id, group=gid, to=g.origin or _neighbours(b.hex)[0],
                                                      distance_inches=36, weapons_range_inches=36,
                                                      separation="unclear"))
    return out


def options(state: State, viewer: Viewer, decide: Callable[..., object]) -> list[Command]:
    if viewer.kind == "spectator" or state.over:
        return []
    if viewer.is_umpire:
        cands: list[Command] = [C.CloseTurn(), C.EndCampaign(reason="umpire's decision"),
                                C.RecordRuling(text="The umpire rules as written.")]
        if state.phase == "map":
            cands = [C.GenerateMap(), *cands]
        if state.phase in ("map", "homeworlds", "expansion", "deployment"):
            cands += [C.ApproveTechnology(player=p, design=d.id) for p in state.order for d in state.setup.designs
                      if not d.standard and d.id not in econ(state, p).approved]
        cands += [C.ApproveStandardNavy(player=p) for p in state.order if not econ(state, p).standard_navy
                  and state.phase in ("deployment", "orders")]
        cands += _battle_results(state)
        return _legal(decide, state, cands, viewer)
    player = viewer.seat or ""
    if player not in state.economies:
        return []
    actor = seat(player)
    cands = []
    if state.phase == "homeworlds":
        cands = [C.ClaimHomeworld()]
    elif state.phase == "expansion":
        cands = [C.Expand(world=k) for k, w in sorted(state.worlds.items()) if w.owner == player]
    elif state.phase == "deployment":
        cands = [C.Ready(), *_economy(state, player)]
    elif state.phase == "orders":
        cands = [*_orders(state, player), *_economy(state, player)]
    elif state.phase == "contacts":
        cands = _contacts(state, player)
    return _legal(decide, state, cands, actor)
