"""explain(event): one human sentence per event, built from the facts and the rolls."""

from __future__ import annotations

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


def explain(ev: Event) -> str:  # noqa: C901 - one sentence per event type
    if isinstance(ev, E.BeamFired):
        result = _need(ev.rolls[0]) if ev.rolls else ("hit" if ev.hit else "miss")
        return (f"{ev.ship_name}'s {ev.battery_name} ({ev.weapons} weapons) fires at {ev.target_name}, "
                f"{inches(ev.distance)}: {result}.")
    if isinstance(ev, E.TurnStarted):
        return f"Turn {ev.turn} begins: shields are up ({sum(ev.shield_pools.values())} points in all)."
    if isinstance(ev, E.PhaseStarted):
        return f"Turn {ev.turn}: the {ev.phase} phase begins."
    if isinstance(ev, E.TerrainDrifted):
        return f"Terrain drifts first: {', '.join(ev.positions)} moved."
    if isinstance(ev, E.RollOff):
        vals = ", ".join(f"{r.purpose.rsplit('(', 1)[-1].rstrip(')')} {r.value}" for r in ev.rolls)
        return f"Roll-off for {ev.purpose}: {vals}; {ev.winner} wins."
    if isinstance(ev, E.OrderSet):
        o = ev.order
        who = f"{o.side} to act" + (f", owing {o.owed} ship(s)" if o.owed else "") if o.side else "nobody to act"
        return f"Order: {o.stage}, {who}{'; ' + ev.why if ev.why else ''}."
    if isinstance(ev, E.ShipMoved):
        end = ev.path[-1]
        more = "" if ev.finished else f", pausing with {inches(ev.move_left)} left"
        touch = f", in contact with {', '.join(ev.contacts)}" if ev.contacts else ""
        return (f"{ev.ship} moves {inches(ev.distance)} ({inches(ev.moved)} this turn) to ({end.x:g}, {end.y:g}) "
                f"heading {ev.heading:g}° with {ev.turns} turn(s){more}{touch}.")
    if isinstance(ev, E.TractorFired):
        tail = " and ends its move" if ev.ended_move else ""
        result = _need(ev.rolls[0]) if ev.rolls else ("hit" if ev.hit else "miss")
        return f"{ev.ship}'s tractor {ev.system} fires at {ev.target}: {result}{tail}."
    if isinstance(ev, E.SideDone):
        return f"{ev.side} ends its part of the {ev.phase} phase."
    if isinstance(ev, E.MissilesLaunched):
        return f"{ev.ship} launches {ev.count} missile(s) from {ev.battery} at {ev.target} as salvo {ev.salvo}."
    if isinstance(ev, E.MissilesMoved):
        if ev.removed and ev.start == ev.end and not ev.rolls:
            return f"Salvo {ev.salvo} is removed: {ev.removed}."
        fate = "reaches its target" if ev.arrived else (ev.removed or "stays in flight")
        return (f"Salvo {ev.salvo} flies to ({ev.end.x:g}, {ev.end.y:g}): {ev.lost_tracking} lost tracking, "
                f"{ev.intercepted} shot down by MDS, {ev.remaining} left; it {fate}.")
    if isinstance(ev, E.MissileAttack):
        return (f"Salvo {ev.salvo}'s {ev.missiles} missile(s) attack {ev.target} (targeting 4): {ev.hits} hit "
                f"for {ev.damage} damage each.")
    if isinstance(ev, E.DamageApplied):
        sys = ", ".join(f"{h.system} ({h.system_rule})" for h in ev.hits if h.system) or "no system"
        tail = "; destroyed" if ev.destroyed else ""
        return (f"{ev.target} takes {len(ev.hits)} hit(s): shields absorb {ev.absorbed}, hull loses "
                f"{ev.hull_damage} to {ev.hull}, systems hit: {sys}{tail}.")
    if isinstance(ev, E.PodLaunched):
        return f"{ev.ship} launches assault pod {ev.pod} with a {ev.squad} squad."
    if isinstance(ev, E.PodMoved):
        return f"Pod {ev.pod} moves to ({ev.pos.x:g}, {ev.pos.y:g})" + (f" and rams {ev.ram}." if ev.ram else ".")
    if isinstance(ev, E.BoardingDeclared):
        o = ev.order
        return f"{o.ship} sends {o.assault} assault and {o.heavy} heavy squad(s) by {o.method} at {o.target}."
    if isinstance(ev, E.SaboteursSent):
        s = ev.sabotage
        return f"{s.side}'s {s.unit} squad aboard {s.ship} goes for {s.system}."
    if isinstance(ev, E.CasualtyOrderSet):
        return f"{ev.side} will lose {', then '.join(ev.order)} first in boarding combat."
    if isinstance(ev, E.BoardingResolved):
        return (f"{ev.method.capitalize()} boarding from {ev.ship} onto {ev.target}: {_troops(ev.arrived)} "
                f"get aboard, {_troops(ev.failed)} fail.")
    if isinstance(ev, E.TroopCombat):
        return (f"Boarding combat aboard {ev.ship}: defenders score {ev.hits_by_defenders} hit(s), boarders "
                f"{ev.hits_by_boarders}; defenders left: {_troops(ev.defenders)}.")
    if isinstance(ev, E.SystemSabotaged):
        verb = "destroys" if ev.success else "fails to destroy"
        return f"{ev.side}'s {ev.unit} squad {verb} {ev.ship}'s {ev.system}."
    if isinstance(ev, E.ShipCaptured):
        return f"{ev.ship} has no crew or squads left and is captured by {ev.by}."
    if isinstance(ev, E.Repaired):
        result = _need(ev.rolls[0]) if ev.rolls else ("repaired" if ev.success else "failed")
        return f"{ev.ship}'s repair crew works on {ev.system}: {result}."
    if isinstance(ev, E.RulingMade):
        return f"Umpire ruling: {ev.ship}'s {ev.system} — {ev.effect}."
    if isinstance(ev, E.GameOver):
        return f"Game over: {ev.winner + ' wins' if ev.winner else 'a draw'} ({ev.reason})."
    if isinstance(ev, E.GameStarted):
        return "The game is set up."
    return type(ev).__name__
