"""One human sentence per (possibly redacted) event; it only reads fields the viewer already has."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.domain.core import Event, Roll
from service.domain.core.hexgrid import FACING_NAMES

from . import events as E


def _who(name: str | None, fallback: str = "an unseen vessel") -> str:
    return name if name else fallback


def roll_text(r: Roll) -> str:
    parts = [f"{r.die} {r.value}"]
    parts += [f"{m.value:+d} ({m.why}, {m.rule})" for m in r.modifiers]
    total = r.value + sum(m.value for m in r.modifiers)
    text = " ".join(parts)
    if r.modifiers:
        text += f" = {total}"
    if r.target is not None:
        text += f" vs {r.target}"
    if r.outcome:
        text += f": {r.outcome}"
    return f"{r.purpose} [{text}]"


def _rolls(event: Event) -> str:
    return ("; " + "; ".join(roll_text(r) for r in event.rolls)) if event.rolls else ""


def _sensors_committed(event: E.SensorsCommitted) -> str:
    if event.entries is None:
        return f"The {event.side} side sealed its sensor commitment."
    quiet = sum(1 for e in event.entries if not e.active)
    return f"The {event.side} side sealed its sensor commitment ({len(event.entries) - quiet} active)."


def _sensors_revealed(event: E.SensorsRevealed) -> str:
    active = [e.vessel for e in event.entries if e.active]
    return "Sensor commitments revealed; active sensors: " + (", ".join(active) if active else "none") + "."


def _detection_attempted(event: E.DetectionAttempted) -> str:
    target = event.target or (f"hex {event.hex.q},{event.hex.r}" if event.hex else "a contact")
    if not event.success:
        return f"{_who(event.vessel)} failed to detect {target}{_rolls(event)}."
    kept = f" (lock range {event.rating} hexes)" if event.rating else ""
    return f"{_who(event.vessel)} detected and locked {target}{kept}{_rolls(event)}."


def _lock_taken(event: E.LockTaken) -> str:
    return f"{_who(event.vessel)} locked a TTA on {_who(event.target, 'a vessel')}."


def _locks_lost(event: E.LocksLost) -> str:
    pairs = ", ".join(f"{_who(x.vessel)} on {_who(x.target, 'a vessel')}" for x in event.losses)
    return f"Locks lost ({event.reason}): {pairs}."


def _all_stopped(event: E.AllStopped) -> str:
    facing = FACING_NAMES[event.facing] if event.facing is not None else "its facing"
    return f"{event.vessel} went to All Stop facing {facing}."


def _moved(event: E.Moved) -> str:
    where = f"{event.hex.q},{event.hex.r}"
    if event.path is None:
        return f"{event.vessel} moved to hex {where}."
    facing = FACING_NAMES[event.facing] if event.facing is not None else "?"
    return f"{event.vessel} moved {''.join(event.path) or 'nowhere'} to hex {where} facing {facing}."


def _launched(event: E.Launched) -> str:
    where = f"hex {event.hex.q},{event.hex.r}"
    facing = f" facing {FACING_NAMES[event.facing]}" if event.facing is not None else ""
    return (
        f"{_who(event.craft, 'a small craft')} launched from {_who(event.vessel)}'s hangar into {where}{facing} "
        "(ASC-CRAFT-1)."
    )


def _recovered(event: E.Recovered) -> str:
    return f"{_who(event.craft, 'a small craft')} went back aboard {_who(event.vessel)} (ASC-R-30)."


def _phase_ended(event: E.PhaseEnded) -> str:
    return f"The {event.side} side ended the phase."


def _phase_changed(event: E.PhaseChanged) -> str:
    return f"Turn {event.turn}: {event.phase.replace('_', ' ')} phase."


def _fire_declared(event: E.FireDeclared) -> str:
    d = event.declaration
    kind = "point defence" if d.point_defence else "fire"
    return f"{d.vessel} declared {kind} with {d.weapon} at {d.target}."


def _shot_resolved(event: E.ShotResolved) -> str:
    weapon = f" with {event.weapon}" if event.weapon else ""
    text = f"{_who(event.vessel)} fired{weapon} at {_who(event.target, 'a vessel')}: {event.outcome}"
    if event.note:
        text += f" ({event.note})"
    landed = [s for s in event.strikes if not s.blocked]
    blocked = len(event.strikes) - len(landed)
    if event.strikes:
        text += f", {len(landed)} strike(s) landed, {blocked} blocked by screens"
    if event.missile_killed:
        text += ", missile killed"
    return text + _rolls(event) + "."


def _damage_taken(event: E.DamageTaken) -> str:
    return f"{event.vessel} takes its damage: {', '.join(event.notes) or 'no effect'}."


def _backup_took_over(event: E.BackupTookOver) -> str:
    return f"{event.vessel}'s backup {event.system} took over."


def _repairs_rolled(event: E.RepairsRolled) -> str:
    done = sum(1 for r in event.results if r.success)
    return f"{event.vessel}'s damage control repaired {done} of {len(event.results)} point(s){_rolls(event)}."


def _continuing_damage(event: E.ContinuingDamage) -> str:
    return f"{event.vessel} suffers {event.damage} continuing hull damage."


def _vessel_destroyed(event: E.VesselDestroyed) -> str:
    return f"{event.vessel} was destroyed" + (f" ({event.cause})." if event.cause else ".")


def _game_ended(event: E.GameEnded) -> str:
    return f"The battle is over: {event.reason}" + (f"; {event.winner} wins." if event.winner else ".")


SENTENCES: dict[type[Event], Callable[[Any], str]] = {
    E.SensorsCommitted: _sensors_committed,
    E.SensorsRevealed: _sensors_revealed,
    E.DetectionAttempted: _detection_attempted,
    E.LockTaken: _lock_taken,
    E.LocksLost: _locks_lost,
    E.AllStopped: _all_stopped,
    E.Moved: _moved,
    E.Launched: _launched,
    E.Recovered: _recovered,
    E.PhaseEnded: _phase_ended,
    E.PhaseChanged: _phase_changed,
    E.FireDeclared: _fire_declared,
    E.ShotResolved: _shot_resolved,
    E.DamageTaken: _damage_taken,
    E.BackupTookOver: _backup_took_over,
    E.RepairsRolled: _repairs_rolled,
    E.ContinuingDamage: _continuing_damage,
    E.VesselDestroyed: _vessel_destroyed,
    E.GameEnded: _game_ended,
}


def explain(event: Event) -> str:
    sentence = SENTENCES.get(type(event))
    return sentence(event) if sentence else str(type(event).__struct_config__.tag or type(event).__name__)
