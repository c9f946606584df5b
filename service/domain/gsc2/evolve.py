"""evolve(state, event): apply a fact. Total, pure, never rolls, no rules beyond bookkeeping."""

from __future__ import annotations

import msgspec

from service.domain.core import Event

from . import events as E
from .beams import pending_from_beam
from .missiles import pending_from_attack
from .state import GameState, Order, Pod, Ruling, Salvo, ShipState, Sys, TerrainState, Troops

rep = msgspec.structs.replace


def _ship(state: GameState, ship_id: str, **changes: object) -> GameState:
    ships = dict(state.ships)
    ships[ship_id] = rep(ships[ship_id], **changes)
    return rep(state, ships=ships)


def _squads_back(ship: ShipState, t: Troops) -> dict[str, Sys]:
    sys = dict(ship.sys)
    for _unit, name, n in (("assault", "assault_squads", t.assault), ("heavy", "heavy_assault_squads", t.heavy)):
        if n:
            cur = sys.get(name) or Sys(kind=name, level=0, max=0)
            sys[name] = rep(cur, level=cur.level + n, max=cur.max + n)
    return sys


def evolve(state: GameState, ev: Event) -> GameState:  # noqa: C901 - one branch per event type
    if isinstance(ev, E.TurnStarted):
        ships = {k: rep(s, move_state="unmoved", moved=0.0, turned=False, since_turn=0.0, move_left=0.0,
                        held=False, contacts=(), shield_pool=ev.shield_pools.get(k, 0), used=(), mds_used=0,
                        transporters_used=0, repairs_used=0) for k, s in state.ships.items()}
        salvos = {k: rep(s, moved=False, tracked=False) for k, s in state.salvos.items()}
        pods = {k: rep(p, moved=0.0, ram=None) for k, p in state.pods.items()}
        return rep(state, turn=ev.turn, ships=ships, salvos=salvos, pods=pods, moving=None)
    if isinstance(ev, E.PhaseStarted):
        return rep(state, turn=ev.turn, phase=ev.phase, done=(), pending=(), boarding=(), sabotage=(),
                   order=Order())
    if isinstance(ev, E.TerrainDrifted):
        terrain = {k: TerrainState(spec=t.spec, pos=ev.positions.get(k, t.pos)) for k, t in state.terrain.items()}
        return rep(state, terrain=terrain)
    if isinstance(ev, E.OrderSet):
        return rep(state, order=ev.order)
    if isinstance(ev, E.RollOff | E.GameStarted | E.RulingMade):
        if isinstance(ev, E.RulingMade):
            return rep(state, rulings=(*state.rulings, Ruling(turn=state.turn, ship=ev.ship, system=ev.system,
                                                                  effect=ev.effect)))
        return state
    if isinstance(ev, E.ShipMoved):
        s = state.ships[ev.ship]
        state = _ship(state, ev.ship, pos=ev.path[-1], heading=ev.heading, moved=ev.moved,
                      turned=s.turned or ev.turns > 0, since_turn=ev.since_turn, move_left=ev.move_left,
                      move_state="moved" if ev.finished else "moving",
                      contacts=tuple(sorted({*s.contacts, *ev.contacts})))
        return rep(state, moving=None if ev.finished else ev.ship)
    if isinstance(ev, E.TractorFired):
        s = state.ships[ev.ship]
        state = _ship(state, ev.ship, used=(*s.used, ev.system))
        if ev.hit:
            state = _ship(state, ev.target, held=True)
        if ev.ended_move:
            state = _ship(state, ev.target, move_state="moved")
            state = rep(state, moving=None)
        return state
    if isinstance(ev, E.SideDone):
        return rep(state, done=(*state.done, ev.side))
    if isinstance(ev, E.MissilesLaunched):
        s = state.ships[ev.ship]
        state = _ship(state, ev.ship, last_launch={**s.last_launch, ev.battery: state.turn},
                      missiles_left={**s.missiles_left, ev.battery: s.missiles_left.get(ev.battery, 0) - ev.count})
        salvo = Salvo(id=ev.salvo, side=s.side, ship=ev.ship, battery=ev.battery, target=ev.target, pos=ev.pos,
                      count=ev.count, damage=ev.damage, targeting=ev.targeting)
        return rep(state, salvos={**state.salvos, ev.salvo: salvo}, counter=state.counter + 1)
    if isinstance(ev, E.MissilesMoved):
        salvos = dict(state.salvos)
        if ev.removed:
            salvos.pop(ev.salvo, None)
        else:
            salvos[ev.salvo] = rep(salvos[ev.salvo], pos=ev.end, count=ev.remaining, moved=True,
                                   arrived=ev.arrived, tracked=salvos[ev.salvo].tracked or bool(ev.terrain))
        state = rep(state, salvos=salvos)
        for ship_id, n in ev.mds_fired.items():
            state = _ship(state, ship_id, mds_used=state.ships[ship_id].mds_used + n)
        return state
    if isinstance(ev, E.MissileAttack):
        pending = (*state.pending, *pending_from_attack(state, ev))
        salvos = {k: v for k, v in state.salvos.items() if k != ev.salvo}
        return rep(state, pending=pending, salvos=salvos)
    if isinstance(ev, E.BeamFired):
        s = state.ships[ev.ship]
        state = _ship(state, ev.ship, used=(*s.used, ev.battery))
        return rep(state, pending=(*state.pending, *pending_from_beam(ev, s.side)))
    if isinstance(ev, E.DamageApplied):
        s = state.ships[ev.target]
        changes: dict[str, object] = {"hull": ev.hull, "sys": {**s.sys, **ev.systems},
                                      "shield_pool": s.shield_pool - ev.absorbed}
        if ev.destroyed:
            changes.update(status="destroyed", boarders={})
        state = _ship(state, ev.target, **changes)
        return rep(state, pending=tuple(p for p in state.pending if p.target != ev.target))
    if isinstance(ev, E.PodLaunched):
        s = state.ships[ev.ship]
        name = "assault_squads" if ev.squad == "assault" else "heavy_assault_squads"
        cur = s.sys[name]
        state = _ship(state, ev.ship, pods=s.pods - 1,
                      sys={**s.sys, name: rep(cur, level=cur.level - 1, max=max(0, cur.max - 1))})
        pod = Pod(id=ev.pod, side=s.side, ship=ev.ship, pos=ev.pos, squad=ev.squad)
        return rep(state, pods={**state.pods, ev.pod: pod}, counter=state.counter + 1)
    if isinstance(ev, E.PodMoved):
        pods = dict(state.pods)
        pods[ev.pod] = rep(pods[ev.pod], pos=ev.pos, moved=ev.moved, ram=ev.ram)
        return rep(state, pods=pods)
    if isinstance(ev, E.BoardingDeclared):
        o = ev.order
        s = state.ships[o.ship]
        extra = {"transporters_used": s.transporters_used + o.assault + o.heavy} if o.method == "teleport" else {}
        state = _ship(state, o.ship, sys={**s.sys, **ev.troops_left}, **extra)
        return rep(state, boarding=(*state.boarding, o))
    if isinstance(ev, E.SaboteursSent):
        return rep(state, sabotage=(*state.sabotage, ev.sabotage))
    if isinstance(ev, E.CasualtyOrderSet):
        return rep(state, casualty_order={**state.casualty_order, ev.side: ev.order})
    if isinstance(ev, E.BoardingResolved):
        if ev.arrived.total:
            t = state.ships[ev.target]
            old = t.boarders.get(ev.side, Troops())
            new = Troops(crew=old.crew, assault=old.assault + ev.arrived.assault, heavy=old.heavy + ev.arrived.heavy)
            state = _ship(state, ev.target, boarders={**t.boarders, ev.side: new})
        src = state.ships.get(ev.ship)
        if ev.failed.total and src is not None and src.active:  # a failed teleport leaves the squad at home
            state = _ship(state, ev.ship, sys=_squads_back(src, ev.failed))
        if ev.pod_lost and ev.pod:
            state = rep(state, pods={k: v for k, v in state.pods.items() if k != ev.pod})
        return state
    if isinstance(ev, E.TroopCombat):
        s = state.ships[ev.ship]
        boarders = {k: v for k, v in {**s.boarders, **ev.boarders}.items() if v.total}
        return _ship(state, ev.ship, crew=ev.crew, sys={**s.sys, **ev.squads}, boarders=boarders)
    if isinstance(ev, E.SystemSabotaged):
        if ev.sys is None:
            return state
        s = state.ships[ev.ship]
        return _ship(state, ev.ship, sys={**s.sys, ev.system: ev.sys})
    if isinstance(ev, E.ShipCaptured):
        return _ship(state, ev.ship, status="captured", captured_by=ev.by)
    if isinstance(ev, E.Repaired):
        s = state.ships[ev.ship]
        return _ship(state, ev.ship, repairs_used=s.repairs_used + 1, sys={**s.sys, ev.system: ev.sys})
    if isinstance(ev, E.GameOver):
        return rep(state, over=True, winner=ev.winner, result=ev.reason)
    return state
