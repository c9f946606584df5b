"""evolve(state, event): apply a fact. Total over the event types (one handler each), pure, never rolls."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from service.domain.core import Event
from service.domain.core.guards import UnknownEvent

from . import events as E
from .beams import pending_from_beam
from .effects import noted
from .missiles import pending_from_attack
from .state import RECENT_RULINGS, GameState, Pod, Ruling, Salvo, ShipState, TerrainState
from .values import Order, Sys, Troops

rep = msgspec.structs.replace


def _ship(state: GameState, ship_id: str, **changes: Any) -> GameState:
    ships = dict(state.ships)
    ships[ship_id] = rep(ships[ship_id], **changes)
    return rep(state, ships=ships)


def _squads_back(ship: ShipState, t: Troops) -> dict[str, Sys]:
    sys = dict(ship.sys)
    for name, n in (("assault_squads", t.assault), ("heavy_assault_squads", t.heavy)):
        if n:
            cur = sys.get(name) or Sys(kind=name, level=0, max=0)
            sys[name] = rep(cur, level=cur.level + n, max=cur.max + n)
    return sys


def _unchanged(state: GameState, ev: Any) -> GameState:
    return state


def _turn_started(state: GameState, ev: E.TurnStarted) -> GameState:
    ships = {
        k: rep(
            s,
            move_state="unmoved",
            moved=0.0,
            turned=False,
            since_turn=0.0,
            move_left=0.0,
            held=False,
            contacts=(),
            shield_pool=ev.shield_pools.get(k, 0),
            used=(),
            mds_used=0,
            transporters_used=0,
            repairs_used=0,
        )
        for k, s in state.ships.items()
    }
    salvos = {k: rep(s, moved=False, tracked=False) for k, s in state.salvos.items()}
    pods = {k: rep(p, moved=0.0, ram=None) for k, p in state.pods.items()}
    return rep(state, turn=ev.turn, ships=ships, salvos=salvos, pods=pods, moving=None, trails=())


def _phase_started(state: GameState, ev: E.PhaseStarted) -> GameState:
    # the drawing keeps the effects of the phase that just ended and of the new one
    marks = tuple(m for m in state.marks if m.n >= state.marks_from)
    return rep(
        state,
        turn=ev.turn,
        phase=ev.phase,
        done=(),
        pending=(),
        boarding=(),
        sabotage=(),
        order=Order(),
        marks=marks,
        marks_from=state.mark_n + 1,
    )


def _terrain_drifted(state: GameState, ev: E.TerrainDrifted) -> GameState:
    terrain = {k: TerrainState(spec=t.spec, pos=ev.positions.get(k, t.pos)) for k, t in state.terrain.items()}
    return rep(state, terrain=terrain)


def _order_set(state: GameState, ev: E.OrderSet) -> GameState:
    return rep(state, order=ev.order)


def _ruling_made(state: GameState, ev: E.RulingMade) -> GameState:
    ruling = Ruling(turn=state.turn, ship=ev.ship, system=ev.system, effect=ev.effect)
    return rep(state, rulings=(*state.rulings[-(RECENT_RULINGS - 1) :], ruling))


def _ship_moved(state: GameState, ev: E.ShipMoved) -> GameState:
    s = state.ships[ev.ship]
    status = "left" if ev.left_table else s.status
    state = _ship(
        state,
        ev.ship,
        pos=ev.path[-1],
        heading=ev.heading,
        moved=ev.moved,
        turned=s.turned or ev.turns > 0,
        since_turn=ev.since_turn,
        move_left=ev.move_left,
        move_state="moved" if ev.finished else "moving",
        status=status,
        contacts=tuple(sorted({*s.contacts, *ev.contacts})),
    )
    return rep(state, moving=None if ev.finished else ev.ship)


def _tractor_fired(state: GameState, ev: E.TractorFired) -> GameState:
    s = state.ships[ev.ship]
    state = _ship(state, ev.ship, used=(*s.used, ev.system))
    if ev.hit:
        state = _ship(state, ev.target, held=True)
    if ev.ended_move:
        state = _ship(state, ev.target, move_state="moved")
        state = rep(state, moving=None)
    return state


def _side_done(state: GameState, ev: E.SideDone) -> GameState:
    return rep(state, done=(*state.done, ev.side))


def _missiles_launched(state: GameState, ev: E.MissilesLaunched) -> GameState:
    s = state.ships[ev.ship]
    state = _ship(
        state,
        ev.ship,
        last_launch={**s.last_launch, ev.battery: state.turn},
        missiles_left={**s.missiles_left, ev.battery: s.missiles_left.get(ev.battery, 0) - ev.count},
    )
    salvo = Salvo(
        id=ev.salvo,
        side=s.side,
        ship=ev.ship,
        battery=ev.battery,
        target=ev.target,
        pos=ev.pos,
        count=ev.count,
        damage=ev.damage,
        targeting=ev.targeting,
    )
    return rep(state, salvos={**state.salvos, ev.salvo: salvo}, counter=state.counter + 1)


def _missiles_moved(state: GameState, ev: E.MissilesMoved) -> GameState:
    salvos = dict(state.salvos)
    if ev.removed:
        salvos.pop(ev.salvo, None)
    else:
        salvos[ev.salvo] = rep(
            salvos[ev.salvo],
            pos=ev.end,
            count=ev.remaining,
            moved=True,
            arrived=ev.arrived,
            tracked=salvos[ev.salvo].tracked or bool(ev.terrain),
        )
    state = rep(state, salvos=salvos)
    for ship_id, n in ev.mds_fired.items():
        state = _ship(state, ship_id, mds_used=state.ships[ship_id].mds_used + n)
    return state


def _missile_attack(state: GameState, ev: E.MissileAttack) -> GameState:
    pending = (*state.pending, *pending_from_attack(state, ev))
    salvos = {k: v for k, v in state.salvos.items() if k != ev.salvo}
    return rep(state, pending=pending, salvos=salvos)


def _beam_fired(state: GameState, ev: E.BeamFired) -> GameState:
    s = state.ships[ev.ship]
    state = _ship(state, ev.ship, used=(*s.used, ev.battery))
    return rep(state, pending=(*state.pending, *pending_from_beam(ev, s.side)))


def _damage_applied(state: GameState, ev: E.DamageApplied) -> GameState:
    s = state.ships[ev.target]
    changes: dict[str, Any] = {
        "hull": ev.hull,
        "sys": {**s.sys, **ev.systems},
        "shield_pool": s.shield_pool - ev.absorbed,
    }
    if ev.destroyed:
        changes.update(status="destroyed", boarders={})
    state = _ship(state, ev.target, **changes)
    return rep(state, pending=tuple(p for p in state.pending if p.target != ev.target))


def _pod_launched(state: GameState, ev: E.PodLaunched) -> GameState:
    s = state.ships[ev.ship]
    name = "assault_squads" if ev.squad == "assault" else "heavy_assault_squads"
    cur = s.sys[name]
    state = _ship(
        state, ev.ship, pods=s.pods - 1, sys={**s.sys, name: rep(cur, level=cur.level - 1, max=max(0, cur.max - 1))}
    )
    pod = Pod(id=ev.pod, side=s.side, ship=ev.ship, pos=ev.pos, squad=ev.squad)
    return rep(state, pods={**state.pods, ev.pod: pod}, counter=state.counter + 1)


def _pod_moved(state: GameState, ev: E.PodMoved) -> GameState:
    pods = dict(state.pods)
    pods[ev.pod] = rep(pods[ev.pod], pos=ev.pos, moved=ev.moved, ram=ev.ram)
    return rep(state, pods=pods)


def _boarding_declared(state: GameState, ev: E.BoardingDeclared) -> GameState:
    o = ev.order
    s = state.ships[o.ship]
    extra = {"transporters_used": s.transporters_used + o.assault + o.heavy} if o.method == "teleport" else {}
    state = _ship(state, o.ship, sys={**s.sys, **ev.troops_left}, **extra)
    return rep(state, boarding=(*state.boarding, o))


def _saboteurs_sent(state: GameState, ev: E.SaboteursSent) -> GameState:
    return rep(state, sabotage=(*state.sabotage, ev.sabotage))


def _casualty_order_set(state: GameState, ev: E.CasualtyOrderSet) -> GameState:
    return rep(state, casualty_order={**state.casualty_order, ev.side: ev.order})


def _boarding_resolved(state: GameState, ev: E.BoardingResolved) -> GameState:
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


def _troop_combat(state: GameState, ev: E.TroopCombat) -> GameState:
    s = state.ships[ev.ship]
    boarders = {k: v for k, v in {**s.boarders, **ev.boarders}.items() if v.total}
    return _ship(state, ev.ship, crew=ev.crew, sys={**s.sys, **ev.squads}, boarders=boarders)


def _system_sabotaged(state: GameState, ev: E.SystemSabotaged) -> GameState:
    if ev.sys is None:
        return state
    s = state.ships[ev.ship]
    return _ship(state, ev.ship, sys={**s.sys, ev.system: ev.sys})


def _ship_captured(state: GameState, ev: E.ShipCaptured) -> GameState:
    return _ship(state, ev.ship, status="captured", captured_by=ev.by)


def _repaired(state: GameState, ev: E.Repaired) -> GameState:
    s = state.ships[ev.ship]
    return _ship(state, ev.ship, repairs_used=s.repairs_used + 1, sys={**s.sys, ev.system: ev.sys})


def _game_over(state: GameState, ev: E.GameOver) -> GameState:
    return rep(state, over=True, winner=ev.winner, result=ev.reason)


HANDLERS: dict[type[Event], Callable[[GameState, Any], GameState]] = {
    E.GameStarted: _unchanged,
    E.TurnStarted: _turn_started,
    E.PhaseStarted: _phase_started,
    E.TerrainDrifted: _terrain_drifted,
    E.RollOff: _unchanged,  # the roll-off's consequence is the OrderSet that follows it
    E.OrderSet: _order_set,
    E.ShipMoved: _ship_moved,
    E.TractorFired: _tractor_fired,
    E.SideDone: _side_done,
    E.MissilesLaunched: _missiles_launched,
    E.MissilesMoved: _missiles_moved,
    E.MissileAttack: _missile_attack,
    E.BeamFired: _beam_fired,
    E.DamageApplied: _damage_applied,
    E.PodLaunched: _pod_launched,
    E.PodMoved: _pod_moved,
    E.BoardingDeclared: _boarding_declared,
    E.SaboteursSent: _saboteurs_sent,
    E.CasualtyOrderSet: _casualty_order_set,
    E.BoardingResolved: _boarding_resolved,
    E.TroopCombat: _troop_combat,
    E.SystemSabotaged: _system_sabotaged,
    E.ShipCaptured: _ship_captured,
    E.Repaired: _repaired,
    E.RulingMade: _ruling_made,
    E.GameOver: _game_over,
}


def evolve(state: GameState, ev: Event) -> GameState:
    handler = HANDLERS.get(type(ev))
    if handler is None:
        raise UnknownEvent("gsc2", ev)
    return noted(state, handler(state, ev), ev)
