"""evolve(state, event): apply a fact. Total over the event types (one handler each), pure, never rolls.

Besides the rules' bookkeeping, each handler keeps what the drawing shows of the moment: marks (shots, hits,
damage, shield changes; counted by ``mark_no``) and this round's trails (moves, projectile flights)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from service.domain.core import Event
from service.domain.core.guards import UnknownEvent
from service.domain.core.hexgrid import Hex

from . import events as E
from .state import GameState, Hit, Mark, Trail

rep = msgspec.structs.replace
KEEP_MARKS = 12  # at least this many recent marks survive a phase change (an empty phase resolves at once)


def _ship(state: GameState, ship_id: str, **changes: Any) -> GameState:
    return rep(state, ships={**state.ships, ship_id: rep(state.ships[ship_id], **changes)})


def _crew(state: GameState, seat: str, **changes: Any) -> GameState:
    return rep(state, crew={**state.crew, seat: rep(state.crew[seat], **changes)})


def _acted(state: GameState, seat: str | None) -> GameState:
    if seat is None or seat not in state.crew:
        return state
    return rep(_crew(state, seat, acted=True), done=(*state.done, seat))


def _mark(state: GameState, kind: str, text: str, **kw: Any) -> GameState:
    n = state.mark_no + 1
    return rep(state, mark_no=n, marks=(*state.marks, Mark(n=n, kind=kind, text=text, phase_no=state.phase_no, **kw)))


def _trail(state: GameState, kind: str, points: tuple[Hex, ...], piece: str, label: str) -> GameState:
    if len(points) < 2:
        return state
    return rep(state, trails=(*state.trails, Trail(kind=kind, points=points, piece=piece, label=label)))


def _opened(state: GameState) -> GameState:
    return state if state.opened else rep(state, opened=True)


def _round_started(state: GameState, ev: E.RoundStarted) -> GameState:
    crew = {
        k: rep(c, role=ev.roles.get(k, c.role), next_role=None, acted=False, bonus=0, role_requests=0)
        for k, c in state.crew.items()
    }
    ships = {
        k: rep(
            s,
            defence=0,
            rolled=False,
            speed_bonus=0,
            flyby=None,
            flyby_arc=None,
            locks=(),
            countermeasures=(),
            fired=(),
            arc_picks={},
        )
        for k, s in state.ships.items()
    }
    # the new round opens with engineering (SF-RND-1): its envelope is stamped with the new round's clock
    return rep(
        _opened(state),
        round=ev.round,
        phase="engineering",
        crew=crew,
        ships=ships,
        order=(),
        results={},
        slot=0,
        done=(),
        declared=(),
        pending=(),
        trails=(),
    )


def _phase_started(state: GameState, ev: E.PhaseStarted) -> GameState:
    no = state.phase_no + 1
    kept = [m for m in state.marks if m.phase_no >= no - 1]
    marks = state.marks[-max(len(kept), KEEP_MARKS) :] if state.marks else ()
    return rep(_opened(state), round=ev.round, phase=ev.phase, slot=0, done=(), phase_no=no, marks=marks)


def _role_change(state: GameState, ev: E.RoleChangeRequested) -> GameState:
    return _crew(state, ev.seat, next_role=ev.role, role_requests=state.crew[ev.seat].role_requests + 1)


def _battle_stations(state: GameState, ev: E.BattleStationsDeclared) -> GameState:
    state = _ship(state, ev.ship, battle_stations=True)
    return _mark(state, "battle_stations", "battle stations", source=ev.ship, rule="SF-ROLE-5")


def _passed(state: GameState, ev: E.Passed) -> GameState:
    return rep(state, done=(*state.done, ev.seat))


def _eng_declared(state: GameState, ev: E.EngineeringDeclared) -> GameState:
    state = _acted(state, ev.action.seat)
    return rep(state, declared=(*state.declared, ev.action))


def _eng_resolved(state: GameState, ev: E.EngineeringResolved) -> GameState:
    s = state.ships[ev.ship]
    patched = ev.system if ev.action == "patch" else None  # a divert names no system
    if patched is not None:
        state = _ship(state, ev.ship, patched={**s.patched, patched: ev.patched})
        text = f"{patched.replace('_', ' ')} patched" if ev.success else "patch failed"
        return _mark(state, "repair" if ev.success else "miss", text, source=ev.ship, rule="SF-RND-2")
    if ev.to == "engines":
        state = _ship(state, ev.ship, speed_bonus=ev.speed_bonus)
        return _mark(
            state,
            "boost" if ev.success else "miss",
            "+2 speed" if ev.success else "divert failed",
            source=ev.ship,
            rule="SF-RND-2",
        )
    shields = dict(ev.shields) if ev.shields else s.shields
    gained = sum(shields.values()) - sum(s.shields.values())
    state = _ship(state, ev.ship, shields=shields)
    if not ev.success:
        return _mark(state, "miss", "divert failed", source=ev.ship, rule="SF-RND-2")
    return _mark(state, "shields", f"+{gained} shields", source=ev.ship, amount=gained, rule="SF-RND-2")


def _helm_order(state: GameState, ev: E.HelmOrderSet) -> GameState:
    return rep(state, order=ev.order, results=ev.results, slot=0, done=())


def _slot_opened(state: GameState, ev: E.SlotOpened) -> GameState:
    return rep(state, slot=ev.slot, done=())


def _ship_moved(state: GameState, ev: E.ShipMoved) -> GameState:
    s = state.ships[ev.ship]
    state = _ship(
        state,
        ev.ship,
        hex=ev.path[-1],
        facing=ev.facing,
        defence=s.defence + ev.defence,
        rolled=s.rolled or ev.rolled,
        flyby=ev.flyby or s.flyby,
    )
    state = _trail(state, "move", ev.path, ev.ship, ev.manoeuvre.replace("_", " "))
    if ev.dc is not None:
        text = f"{ev.manoeuvre.replace('_', ' ')} {'succeeded' if ev.success else 'failed'}"
        state = _mark(state, "stunt" if ev.success else "miss", text, source=ev.ship, at=ev.path[-1])
    return _acted(state, ev.seat)


def _attacked(state: GameState, ev: E.Attacked) -> GameState:
    s = state.ships[ev.ship]
    if ev.kind == "gunnery":
        picks = {**s.arc_picks, ev.target: ev.arc} if ev.boundary and ev.arc else s.arc_picks
        state = _ship(
            state, ev.ship, fired=(*s.fired, ev.weapon), arc_picks=picks, flyby_arc=ev.arc if ev.flyby else s.flyby_arc
        )
        state = _acted(state, ev.seat)
    rule = "SF-MOV-3" if ev.kind == "free" else "SF-GUN-6"
    state = _mark(state, "fire", f"{ev.weapon} fires", source=ev.ship, target=ev.target, rule=rule)
    if not ev.hit:
        why = "wrecked array" if ev.total is None else f"{ev.total} vs {ev.defence} {ev.needed}"
        state = _mark(state, "miss", f"miss ({why})", source=ev.ship, target=ev.target, rule=rule)
    elif ev.projectile is not None and not ev.arrived:
        state = _mark(
            state,
            "launch",
            f"projectile {ev.projectile.id} in flight",
            source=ev.ship,
            target=ev.target,
            at=ev.projectile.hex,
            rule="SF-GUN-8",
        )
    else:
        state = _mark(
            state,
            "hit",
            f"hit: {ev.damage} damage ({ev.total} vs {ev.defence} {ev.needed})",
            source=ev.ship,
            target=ev.target,
            amount=ev.damage,
            rule=rule,
        )
    if ev.flight:
        state = _trail(
            state, "projectile", ev.flight, ev.projectile.id if ev.projectile else ev.ship, f"{ev.weapon} → {ev.target}"
        )
    if ev.hit and (ev.projectile is None or ev.arrived) and ev.kind == "gunnery":
        hit = Hit(
            attacker=ev.ship,
            weapon=ev.weapon,
            target=ev.target,
            quadrant=ev.quadrant or "forward",
            damage=ev.damage,
            natural20=ev.natural20,
        )
        state = rep(state, pending=(*state.pending, hit))
    if ev.projectile is not None and not ev.arrived:
        state = rep(
            state, projectiles={**state.projectiles, ev.projectile.id: ev.projectile}, counter=state.counter + 1
        )
    return state


def _projectile_checked(state: GameState, ev: E.ProjectileChecked) -> GameState:
    projectiles = dict(state.projectiles)
    p = projectiles.pop(ev.projectile)
    if ev.success and ev.arrived:
        hit = Hit(
            attacker=p.ship, weapon=p.weapon, target=p.target, quadrant=ev.quadrant or "forward", damage=ev.damage
        )
        state = rep(state, pending=(*state.pending, hit))
        state = _mark(
            state,
            "explosion",
            f"projectile {ev.projectile} explodes: {ev.damage} damage",
            source=ev.projectile,
            target=p.target,
            amount=ev.damage,
            rule="SF-GUN-8",
        )
    elif ev.success:
        projectiles[p.id] = rep(p, hex=ev.path[-1])
    else:
        state = _mark(
            state,
            "miss",
            f"projectile {ev.projectile} lost ({ev.why})",
            source=ev.projectile,
            at=p.hex,
            rule="SF-GUN-8",
        )
    state = _trail(state, "projectile", ev.path, ev.projectile, f"{p.weapon} → {p.target}")
    return rep(state, projectiles=projectiles)


def _damage(state: GameState, ev: E.DamageApplied) -> GameState:
    s = state.ships[ev.target]
    conditions = {**s.conditions, **{c.system: c.after for c in ev.crits}}
    state = _ship(
        state,
        ev.target,
        shields={**s.shields, ev.quadrant: ev.shield},
        hull=ev.hull,
        conditions=conditions,
        status=ev.status,
    )
    if ev.absorbed:
        state = _mark(
            state,
            "shields",
            f"{ev.quadrant} shields −{ev.absorbed}",
            source=ev.attacker,
            target=ev.target,
            amount=-ev.absorbed,
            rule="SF-DMG-2",
        )
    hull_text = "stopped by the damage threshold" if ev.blocked_by_dt else f"hull −{ev.hull_damage}"
    state = _mark(
        state,
        "damage",
        f"{ev.damage} damage: {hull_text}",
        source=ev.attacker,
        target=ev.target,
        amount=ev.hull_damage,
        rule="SF-DMG-3" if ev.blocked_by_dt else "SF-DMG-2",
    )
    for c in ev.crits:
        state = _mark(state, "critical", f"critical: {c.system.replace('_', ' ')}", target=ev.target, rule="SF-DMG-5")
    if ev.status != s.status:
        state = _mark(
            state,
            "destroyed" if ev.status == "destroyed" else "disabled",
            ev.status,
            target=ev.target,
            rule="SF-DMG-6" if ev.status == "destroyed" else "SF-DMG-4",
        )
    return rep(state, pending=state.pending[1:]) if ev.settles else state


def _science(state: GameState, ev: E.ScienceResult) -> GameState:
    state = _acted(state, ev.seat)
    what = ev.action.replace("_", " ")
    state = _mark(
        state,
        ev.action if ev.success else "miss",
        f"{what} {'succeeded' if ev.success else 'failed'}",
        source=ev.ship,
        target=ev.target,
        rule="SF-RND-3",
    )
    if not ev.success:
        return state
    s = state.ships[ev.ship]
    if ev.action == "scan":
        t = state.ships[ev.target]
        return _ship(state, ev.target, revealed_to=tuple(sorted({*t.revealed_to, ev.side})))
    if ev.action == "lock_on":
        return _ship(state, ev.ship, locks=(*s.locks, ev.target))
    return _ship(state, ev.ship, countermeasures=(*s.countermeasures, ev.target))


def _encouraged(state: GameState, ev: E.Encouraged) -> GameState:
    state = _acted(state, ev.seat)
    return _crew(state, ev.crew, bonus=2) if ev.success else state


def _game_over(state: GameState, ev: E.GameOver) -> GameState:
    return rep(state, over=True, winner=ev.winner, result=ev.reason)


HANDLERS: dict[type[Event], Callable[[GameState, Any], GameState]] = {
    E.RoundStarted: _round_started,
    E.PhaseStarted: _phase_started,
    E.RoleChangeRequested: _role_change,
    E.BattleStationsDeclared: _battle_stations,
    E.Passed: _passed,
    E.EngineeringDeclared: _eng_declared,
    E.EngineeringResolved: _eng_resolved,
    E.HelmOrderSet: _helm_order,
    E.SlotOpened: _slot_opened,
    E.ShipMoved: _ship_moved,
    E.Attacked: _attacked,
    E.ProjectileChecked: _projectile_checked,
    E.DamageApplied: _damage,
    E.ScienceResult: _science,
    E.Encouraged: _encouraged,
    E.GameOver: _game_over,
}


def evolve(state: GameState, ev: Event) -> GameState:
    handler = HANDLERS.get(type(ev))
    if handler is None:
        raise UnknownEvent("starfinder", ev)
    return handler(state, ev)
