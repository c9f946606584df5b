"""explain(event): one human sentence per event, built from the facts and the rolls."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.domain.core import Event, Roll

from . import events as E
from .combat import inches


def _need(r: Roll) -> str:
    base = (r.target or 0) - sum(m.value for m in r.modifiers)
    parts = "".join(f", {m.why} {'+' if m.value >= 0 else '−'}{abs(m.value)}" for m in r.modifiers)
    return f"needs ≤ {r.target} (base {base}{parts}), rolled {r.value}: {r.outcome}"


def _troops(t: E.Troops) -> str:
    bits = [f"{n} {k}" for k, n in (("crew", t.crew), ("assault", t.assault), ("heavy", t.heavy)) if n]
    return ", ".join(bits) or "nobody"


def _beam_fired(ev: E.BeamFired) -> str:
    result = _need(ev.rolls[0]) if ev.rolls else ("hit" if ev.hit else "miss")
    return (
        f"{ev.ship_name}'s {ev.battery_name} ({ev.weapons} weapons) fires at {ev.target_name}, "
        f"{inches(ev.distance)}: {result}."
    )


def _turn_started(ev: E.TurnStarted) -> str:
    return f"Turn {ev.turn} begins: shields are up ({sum(ev.shield_pools.values())} points in all)."


def _phase_started(ev: E.PhaseStarted) -> str:
    return f"Turn {ev.turn}: the {ev.phase} phase begins."


def _terrain_drifted(ev: E.TerrainDrifted) -> str:
    return f"Terrain drifts first: {', '.join(ev.positions)} moved."


def _roll_off(ev: E.RollOff) -> str:
    vals = ", ".join(f"{r.purpose.rsplit('(', 1)[-1].rstrip(')')} {r.value}" for r in ev.rolls)
    return f"Roll-off for {ev.purpose}: {vals}; {ev.winner} wins."


def _order_set(ev: E.OrderSet) -> str:
    o = ev.order
    who = f"{o.side} to act" + (f", owing {o.owed} ship(s)" if o.owed else "") if o.side else "nobody to act"
    return f"Order: {o.stage}, {who}{'; ' + ev.why if ev.why else ''}."


def _ship_moved(ev: E.ShipMoved) -> str:
    end = ev.path[-1]
    more = "" if ev.finished else f", pausing with {inches(ev.move_left)} left"
    touch = f", in contact with {', '.join(ev.contacts)}" if ev.contacts else ""
    if ev.disengaged is not None:
        rolls = "; ".join(f"{r.purpose}: {r.value}" for r in ev.rolls)
        how = f" ({rolls})" if rolls else " (clearly faster than the pursuit)"
        return (
            f"{ev.ship} disengages and leaves the battle{how} (GSC2-R-20)."
            if ev.disengaged
            else f"{ev.ship} tries to disengage but the pursuit keeps up ({rolls}); it stays where it is (GSC2-R-20)."
        )
    if ev.left_table:
        more = ", where it crosses the table edge and leaves play (GSC2-R-18)"
    return (
        f"{ev.ship} moves {inches(ev.distance)} ({inches(ev.moved)} this turn) to ({end.x:g}, {end.y:g}) "
        f"heading {ev.heading:g}° with {ev.turns} turn(s){more}{touch}."
    )


def _tractor_fired(ev: E.TractorFired) -> str:
    tail = " and ends its move" if ev.ended_move else ""
    result = _need(ev.rolls[0]) if ev.rolls else ("hit" if ev.hit else "miss")
    return f"{ev.ship}'s tractor {ev.system} fires at {ev.target}: {result}{tail}."


def _side_done(ev: E.SideDone) -> str:
    return f"{ev.side} ends its part of the {ev.phase} phase."


def _missiles_launched(ev: E.MissilesLaunched) -> str:
    return f"{ev.ship} launches {ev.count} missile(s) from {ev.battery} at {ev.target} as salvo {ev.salvo}."


def _missiles_moved(ev: E.MissilesMoved) -> str:
    if ev.removed and ev.start == ev.end and not ev.rolls:
        return f"Salvo {ev.salvo} is removed: {ev.removed}."
    fate = "reaches its target" if ev.arrived else (ev.removed or "stays in flight")
    return (
        f"Salvo {ev.salvo} flies to ({ev.end.x:g}, {ev.end.y:g}): {ev.lost_tracking} lost tracking, "
        f"{ev.intercepted} shot down by MDS, {ev.remaining} left; it {fate}."
    )


def _missile_attack(ev: E.MissileAttack) -> str:
    return (
        f"Salvo {ev.salvo}'s {ev.missiles} missile(s) attack {ev.target} (targeting 4): {ev.hits} hit "
        f"for {ev.damage} damage each."
    )


def _damage_applied(ev: E.DamageApplied) -> str:
    sys = ", ".join(f"{h.system} ({h.system_rule})" for h in ev.hits if h.system) or "no system"
    tail = "; destroyed" if ev.destroyed else ""
    return (
        f"{ev.target} takes {len(ev.hits)} hit(s): shields absorb {ev.absorbed}, hull loses "
        f"{ev.hull_damage} to {ev.hull}, systems hit: {sys}{tail}."
    )


def _pod_launched(ev: E.PodLaunched) -> str:
    return f"{ev.ship} launches assault pod {ev.pod} with a {ev.squad} squad."


def _pod_moved(ev: E.PodMoved) -> str:
    return f"Pod {ev.pod} moves to ({ev.pos.x:g}, {ev.pos.y:g})" + (f" and rams {ev.ram}." if ev.ram else ".")


def _boarding_declared(ev: E.BoardingDeclared) -> str:
    o = ev.order
    return f"{o.ship} sends {o.assault} assault and {o.heavy} heavy squad(s) by {o.method} at {o.target}."


def _saboteurs_sent(ev: E.SaboteursSent) -> str:
    s = ev.sabotage
    return f"{s.side}'s {s.unit} squad aboard {s.ship} goes for {s.system}."


def _casualty_order_set(ev: E.CasualtyOrderSet) -> str:
    return f"{ev.side} will lose {', then '.join(ev.order)} first in boarding combat."


def _boarding_resolved(ev: E.BoardingResolved) -> str:
    return (
        f"{ev.method.capitalize()} boarding from {ev.ship} onto {ev.target}: {_troops(ev.arrived)} "
        f"get aboard, {_troops(ev.failed)} fail."
    )


def _troop_combat(ev: E.TroopCombat) -> str:
    return (
        f"Boarding combat aboard {ev.ship}: defenders score {ev.hits_by_defenders} hit(s), boarders "
        f"{ev.hits_by_boarders}; defenders left: {_troops(ev.defenders)}."
    )


def _system_sabotaged(ev: E.SystemSabotaged) -> str:
    verb = "destroys" if ev.success else "fails to destroy"
    return f"{ev.side}'s {ev.unit} squad {verb} {ev.ship}'s {ev.system}."


def _ship_captured(ev: E.ShipCaptured) -> str:
    return f"{ev.ship} has no crew or squads left and is captured by {ev.by}."


def _repaired(ev: E.Repaired) -> str:
    result = _need(ev.rolls[0]) if ev.rolls else ("repaired" if ev.success else "failed")
    return f"{ev.ship}'s repair crew works on {ev.system}: {result}."


def _ruling_made(ev: E.RulingMade) -> str:
    return f"Umpire ruling: {ev.ship}'s {ev.system} — {ev.effect}."


def _game_over(ev: E.GameOver) -> str:
    return f"Game over: {ev.winner + ' wins' if ev.winner else 'a draw'} ({ev.reason})."


def _game_started(ev: E.GameStarted) -> str:
    return "The game is set up."


SENTENCES: dict[type[Event], Callable[[Any], str]] = {
    E.BeamFired: _beam_fired,
    E.TurnStarted: _turn_started,
    E.PhaseStarted: _phase_started,
    E.TerrainDrifted: _terrain_drifted,
    E.RollOff: _roll_off,
    E.OrderSet: _order_set,
    E.ShipMoved: _ship_moved,
    E.TractorFired: _tractor_fired,
    E.SideDone: _side_done,
    E.MissilesLaunched: _missiles_launched,
    E.MissilesMoved: _missiles_moved,
    E.MissileAttack: _missile_attack,
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
    E.GameStarted: _game_started,
}


def explain(ev: Event) -> str:
    return SENTENCES[type(ev)](ev)
