"""evolve(state, event): apply a fact. Total, pure, never rolls, no rules beyond bookkeeping."""

from __future__ import annotations

import msgspec

from service.domain.core import Event

from . import events as E
from .state import GameState, Hit

rep = msgspec.structs.replace


def _ship(state: GameState, ship_id: str, **changes: object) -> GameState:
    return rep(state, ships={**state.ships, ship_id: rep(state.ships[ship_id], **changes)})


def _crew(state: GameState, seat: str, **changes: object) -> GameState:
    return rep(state, crew={**state.crew, seat: rep(state.crew[seat], **changes)})


def _acted(state: GameState, seat: str | None) -> GameState:
    if seat is None or seat not in state.crew:
        return state
    return rep(_crew(state, seat, acted=True), done=(*state.done, seat))


def evolve(state: GameState, ev: Event) -> GameState:  # noqa: C901 - one branch per event type
    if isinstance(ev, E.RoundStarted):
        crew = {k: rep(c, role=ev.roles.get(k, c.role), next_role=None, acted=False, bonus=0)
                for k, c in state.crew.items()}
        ships = {k: rep(s, defence=0, rolled=False, speed_bonus=0, flyby=None, flyby_arc=None, locks=(),
                        countermeasures=(), fired=(), arc_picks={}) for k, s in state.ships.items()}
        # the new round opens with engineering (SF-RND-1): its envelope is stamped with the new round's clock
        return rep(state, round=ev.round, phase="engineering", crew=crew, ships=ships, order=(), results={}, slot=0,
                   done=(), declared=(), pending=())
    if isinstance(ev, E.PhaseStarted):
        return rep(state, round=ev.round, phase=ev.phase, slot=0, done=())
    if isinstance(ev, E.RoleChangeRequested):
        return _crew(state, ev.seat, next_role=ev.role)
    if isinstance(ev, E.BattleStationsDeclared):
        return _ship(state, ev.ship, battle_stations=True)
    if isinstance(ev, E.Passed):
        return rep(state, done=(*state.done, ev.seat))
    if isinstance(ev, E.EngineeringDeclared):
        state = _acted(state, ev.action.seat)
        return rep(state, declared=(*state.declared, ev.action))
    if isinstance(ev, E.EngineeringResolved):
        s = state.ships[ev.ship]
        if ev.action == "patch" and ev.system is not None:
            return _ship(state, ev.ship, patched={**s.patched, ev.system: ev.patched})
        if ev.to == "engines":
            return _ship(state, ev.ship, speed_bonus=ev.speed_bonus)
        return _ship(state, ev.ship, shields=dict(ev.shields) if ev.shields else s.shields)
    if isinstance(ev, E.HelmOrderSet):
        return rep(state, order=ev.order, results=ev.results, slot=0, done=())
    if isinstance(ev, E.SlotOpened):
        return rep(state, slot=ev.slot, done=())
    if isinstance(ev, E.ShipMoved):
        s = state.ships[ev.ship]
        state = _ship(state, ev.ship, hex=ev.path[-1], facing=ev.facing, defence=s.defence + ev.defence,
                      rolled=s.rolled or ev.rolled, flyby=ev.flyby or s.flyby)
        return _acted(state, ev.seat)
    if isinstance(ev, E.Attacked):
        s = state.ships[ev.ship]
        if ev.kind == "gunnery":
            picks = {**s.arc_picks, ev.target: ev.arc} if ev.boundary and ev.arc else s.arc_picks
            state = _ship(state, ev.ship, fired=(*s.fired, ev.weapon), arc_picks=picks,
                          flyby_arc=ev.arc if ev.flyby else s.flyby_arc)
            state = _acted(state, ev.seat)
        if ev.hit and (ev.projectile is None or ev.arrived) and ev.kind == "gunnery":
            hit = Hit(attacker=ev.ship, weapon=ev.weapon, target=ev.target, quadrant=ev.quadrant or "forward",
                      damage=ev.damage, natural20=ev.natural20)
            state = rep(state, pending=(*state.pending, hit))
        if ev.projectile is not None and not ev.arrived:
            state = rep(state, projectiles={**state.projectiles, ev.projectile.id: ev.projectile},
                        counter=state.counter + 1)
        return state
    if isinstance(ev, E.ProjectileChecked):
        projectiles = dict(state.projectiles)
        p = projectiles.pop(ev.projectile)
        if ev.success and ev.arrived:
            hit = Hit(attacker=p.ship, weapon=p.weapon, target=p.target, quadrant=ev.quadrant or "forward",
                      damage=ev.damage)
            state = rep(state, pending=(*state.pending, hit))
        elif ev.success:
            projectiles[p.id] = rep(p, hex=ev.path[-1])
        return rep(state, projectiles=projectiles)
    if isinstance(ev, E.DamageApplied):
        s = state.ships[ev.target]
        conditions = {**s.conditions, **{c.system: c.after for c in ev.crits}}
        state = _ship(state, ev.target, shields={**s.shields, ev.quadrant: ev.shield}, hull=ev.hull,
                      conditions=conditions, status=ev.status)
        return rep(state, pending=state.pending[1:]) if ev.settles else state
    if isinstance(ev, E.ScienceResult):
        state = _acted(state, ev.seat)
        s = state.ships[ev.ship]
        if not ev.success:
            return state
        if ev.action == "scan":
            t = state.ships[ev.target]
            return _ship(state, ev.target, revealed_to=tuple(sorted({*t.revealed_to, ev.side})))
        if ev.action == "lock_on":
            return _ship(state, ev.ship, locks=(*s.locks, ev.target))
        return _ship(state, ev.ship, countermeasures=(*s.countermeasures, ev.target))
    if isinstance(ev, E.Encouraged):
        state = _acted(state, ev.seat)
        return _crew(state, ev.crew, bonus=2) if ev.success else state
    if isinstance(ev, E.GameOver):
        return rep(state, over=True, winner=ev.winner, result=ev.reason)
    return state
