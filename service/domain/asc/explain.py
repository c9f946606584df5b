"""One human sentence per (possibly redacted) event; it only reads fields the viewer already has."""

from __future__ import annotations

from service.domain.core import Event, Roll
from service.domain.core.hexgrid import FACING_NAMES

from .events import (
    AllStopped,
    BackupTookOver,
    ContinuingDamage,
    DamageTaken,
    DetectionAttempted,
    FireDeclared,
    GameEnded,
    LocksLost,
    LockTaken,
    Moved,
    PhaseChanged,
    PhaseEnded,
    RepairsRolled,
    SensorsCommitted,
    SensorsRevealed,
    ShotResolved,
    VesselDestroyed,
)


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


def explain(event: Event) -> str:
    if isinstance(event, SensorsCommitted):
        if event.entries is None:
            return f"The {event.side} side sealed its sensor commitment."
        quiet = sum(1 for e in event.entries if not e.active)
        return f"The {event.side} side sealed its sensor commitment ({len(event.entries) - quiet} active)."
    if isinstance(event, SensorsRevealed):
        active = [e.vessel for e in event.entries if e.active]
        return "Sensor commitments revealed; active sensors: " + (", ".join(active) if active else "none") + "."
    if isinstance(event, DetectionAttempted):
        target = event.target or (f"hex {event.hex.q},{event.hex.r}" if event.hex else "a contact")
        verdict = "detected and locked" if event.success else "failed to detect"
        return f"{_who(event.vessel)} {verdict} {target}{_rolls(event)}."
    if isinstance(event, LockTaken):
        return f"{_who(event.vessel)} locked a TTA on {_who(event.target, 'a vessel')}."
    if isinstance(event, LocksLost):
        pairs = ", ".join(f"{_who(x.vessel)} on {_who(x.target, 'a vessel')}" for x in event.losses)
        return f"Locks lost ({event.reason}): {pairs}."
    if isinstance(event, AllStopped):
        facing = FACING_NAMES[event.facing] if event.facing is not None else "its facing"
        return f"{event.vessel} went to All Stop facing {facing}."
    if isinstance(event, Moved):
        where = f"{event.hex.q},{event.hex.r}"
        if event.path is None:
            return f"{event.vessel} moved to hex {where}."
        facing = FACING_NAMES[event.facing] if event.facing is not None else "?"
        return f"{event.vessel} moved {''.join(event.path) or 'nowhere'} to hex {where} facing {facing}."
    if isinstance(event, PhaseEnded):
        return f"The {event.side} side ended the phase."
    if isinstance(event, PhaseChanged):
        return f"Turn {event.turn}: {event.phase.replace('_', ' ')} phase."
    if isinstance(event, FireDeclared):
        d = event.declaration
        kind = "point defence" if d.point_defence else "fire"
        return f"{d.vessel} declared {kind} with {d.weapon} at {d.target}."
    if isinstance(event, ShotResolved):
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
    if isinstance(event, DamageTaken):
        return f"{event.vessel} takes its damage: {', '.join(event.notes) or 'no effect'}."
    if isinstance(event, BackupTookOver):
        return f"{event.vessel}'s backup {event.system} took over."
    if isinstance(event, RepairsRolled):
        done = sum(1 for r in event.results if r.success)
        return f"{event.vessel}'s damage control repaired {done} of {len(event.results)} point(s){_rolls(event)}."
    if isinstance(event, ContinuingDamage):
        return f"{event.vessel} suffers {event.damage} continuing hull damage."
    if isinstance(event, VesselDestroyed):
        return f"{event.vessel} was destroyed" + (f" ({event.cause})." if event.cause else ".")
    if isinstance(event, GameEnded):
        return f"The battle is over: {event.reason}" + (f"; {event.winner} wins." if event.winner else ".")
    return str(type(event).__struct_config__.tag or type(event).__name__)
