"""explain(event): one human sentence per event, with its rolls in words."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.domain.core import Event, Roll

from . import events as E


def _check(r: Roll) -> str:
    mods = "".join(f" {'+' if m.value >= 0 else '−'} {abs(m.value)} ({m.why})" for m in r.modifiers)
    tot = r.value + sum(m.value for m in r.modifiers)
    vs = f" vs {r.target}" if r.target is not None else ""
    return f"d20 {r.value}{mods} = {tot}{vs}" + (f": {r.outcome}" if r.outcome else "")


def _dice(rolls: tuple[Roll, ...]) -> str:
    dmg = [r for r in rolls if r.purpose.startswith("damage")]
    return " + ".join(str(r.value) for r in dmg)


def _round_started(ev: E.RoundStarted) -> str:
    changes = ", ".join(f"{k} becomes {v}" for k, v in ev.roles.items())
    return f"Round {ev.round} begins" + (f"; role changes: {changes}." if changes else ".")


def _phase_started(ev: E.PhaseStarted) -> str:
    return f"Round {ev.round}: the {ev.phase} phase begins."


def _role_change_requested(ev: E.RoleChangeRequested) -> str:
    return f"{ev.seat} will take the {ev.role} role from the next round."


def _battle_stations_declared(ev: E.BattleStationsDeclared) -> str:
    seen = ", ".join(ev.seen_by) or "nobody"
    return f"{ev.ship} goes to battle stations and activates its targeting: seen by {seen}."


def _passed(ev: E.Passed) -> str:
    return f"{ev.seat} does nothing more in the {ev.phase} phase."


def _engineering_declared(ev: E.EngineeringDeclared) -> str:
    a = ev.action
    what = f"patch {a.system}" if a.action == "patch" else f"divert power to the {a.to}"
    return f"{a.seat} sets to work: {what} (resolved when the engineering phase ends)."


def _engineering_resolved(ev: E.EngineeringResolved) -> str:
    roll = _check(ev.rolls[0]) if ev.rolls else "fails automatically (wrecked power core)"
    what = f"patch {ev.system}" if ev.action == "patch" else f"divert power to the {ev.to}"
    return f"{ev.seat} tries to {what} (DC {ev.dc}): {roll}."


def _helm_order_set(ev: E.HelmOrderSet) -> str:
    res = ", ".join(f"{s} {ev.results.get(s, 0)}" for s in ev.order)
    rolls = "; ".join(f"{r.purpose} {_check(r)}" for r in ev.rolls)
    return f"Helm order, lowest first: {res}" + (f" ({rolls})." if rolls else ".")


def _slot_opened(ev: E.SlotOpened) -> str:
    return f"{ev.ship} acts in the {ev.phase} phase."


def _ship_moved(ev: E.ShipMoved) -> str:
    end = ev.path[-1]
    how = ev.manoeuvre.replace("_", " ")
    check = ""
    if ev.dc is not None:
        check = f" (DC {ev.dc}: {_check(ev.rolls[0]) if ev.rolls else 'fails automatically'})"
    extra = f"; AC and TL {ev.defence:+d} until the next round" if ev.defence else ""
    return (
        f"{ev.ship} — {how}{check}: {len(ev.path) - 1} hex(es) to [{end.q}, {end.r}] facing {ev.facing} "
        f"with {ev.turns} turn(s){extra}."
    )


def _attacked(ev: E.Attacked) -> str:
    who = "free attack" if ev.kind == "free" else "fires"
    # SF-R-5: a free attack takes no range into account (its event carries no distance)
    reach = "" if ev.kind == "free" else f", range {ev.distance}"
    head = f"{ev.ship}'s {ev.weapon} {who} at {ev.target} ({ev.arc} arc{reach}, {ev.defence} {ev.needed})"
    if ev.total is None:
        return f"{head}: the weapons array is wrecked and the attack fails automatically."
    result = _check(ev.rolls[0])
    if not ev.hit:
        return f"{head}: {result}."
    if ev.projectile is not None and not ev.arrived:
        p = ev.projectile
        return f"{head}: {result}; projectile {p.id} flies to [{p.hex.q}, {p.hex.r}]."
    return f"{head}: {result}; {ev.damage} damage ({_dice(ev.rolls)}) to the {ev.quadrant} quadrant."


def _projectile_checked(ev: E.ProjectileChecked) -> str:
    if ev.total is None:
        return f"Projectile {ev.projectile} is removed: {ev.why}."
    fate = (
        "explodes for " + str(ev.damage) + " damage"
        if ev.arrived
        else ("keeps flying" if ev.success else "is destroyed")
    )
    return f"Projectile {ev.projectile} tracks {ev.target}: {_check(ev.rolls[0])}; it {fate}."


def _damage_applied(ev: E.DamageApplied) -> str:
    crits = ", ".join(f"{c.system} → {c.after}" for c in ev.crits)
    dt = " (stopped by the damage threshold)" if ev.blocked_by_dt else ""
    tail = f"; critical damage: {crits}" if crits else ""
    return (
        f"{ev.target} takes {ev.damage} damage from {ev.attacker}'s {ev.weapon} on the {ev.quadrant} quadrant: "
        f"shields absorb {ev.absorbed}, hull loses {ev.hull_damage}{dt} to {ev.hull}{tail}; {ev.status}."
    )


def _science_result(ev: E.ScienceResult) -> str:
    roll = _check(ev.rolls[0]) if ev.rolls else "fails automatically (wrecked sensors or power core)"
    return f"{ev.seat} attempts {ev.action.replace('_', ' ')} on {ev.target} (DC {ev.dc}): {roll}."


def _encouraged(ev: E.Encouraged) -> str:
    roll = _check(ev.rolls[0]) if ev.rolls else "fails automatically"
    return f"{ev.seat} encourages {ev.crew} (DC 10): {roll}."


def _game_over(ev: E.GameOver) -> str:
    return f"The battle is over: {ev.winner + ' wins' if ev.winner else 'no winner'} ({ev.reason})."


SENTENCES: dict[type[Event], Callable[[Any], str]] = {
    E.RoundStarted: _round_started,
    E.PhaseStarted: _phase_started,
    E.RoleChangeRequested: _role_change_requested,
    E.BattleStationsDeclared: _battle_stations_declared,
    E.Passed: _passed,
    E.EngineeringDeclared: _engineering_declared,
    E.EngineeringResolved: _engineering_resolved,
    E.HelmOrderSet: _helm_order_set,
    E.SlotOpened: _slot_opened,
    E.ShipMoved: _ship_moved,
    E.Attacked: _attacked,
    E.ProjectileChecked: _projectile_checked,
    E.DamageApplied: _damage_applied,
    E.ScienceResult: _science_result,
    E.Encouraged: _encouraged,
    E.GameOver: _game_over,
}


def explain(ev: Event) -> str:
    sentence = SENTENCES.get(type(ev))
    return sentence(ev) if sentence else str(type(ev).__struct_config__.tag)
