"""Damage control phase: damage lands, backups take over, repairs, continuing damage (ASC-DC, ASC-DC-4)."""

from __future__ import annotations

from msgspec.structs import replace

from service.domain.core import Actor, Dice, Modifier, RuleViolation
from service.domain.core.acc import Acc

from .commands import Repair
from .condition import power_destroyed
from .damage import REPAIRABLE, apply_strikes, hull_destroyed
from .events import BackupTookOver, ContinuingDamage, DamageTaken, RepairRoll, RepairsRolled, VesselDestroyed
from .scenario import VesselSpec
from .sensors import audit_locks
from .sight import live_vessel, seen_by, still_in_phase
from .state import State, Status


def _destroy(out: Acc[State], vid: str, cause: str) -> None:
    out.add(VesselDestroyed(vessel=vid, cause=cause, seen_by=seen_by(out.state, vid)))
    for craft in sorted(v for v, st in out.state.status.items() if st.aboard == vid and not st.destroyed):
        # ruling ASC-R-32: craft aboard are lost with their carrier (seen only by those who see them)
        out.add(VesselDestroyed(vessel=craft, cause=f"lost aboard {vid}", seen_by=seen_by(out.state, craft)))


def open_phase(out: Acc[State]) -> None:
    """Steps 1 and 2 of ASC-DC-4: apply the fire phase's damage, then backups take over."""
    for vid in sorted(set(out.state.pending) | set(out.state.missiles_hit)):
        if out.state.status[vid].destroyed:
            continue
        spec = out.state.specs[vid]
        if vid in out.state.missiles_hit:
            _destroy(out, vid, "missile killed by a hit")
            continue
        st, notes = apply_strikes(spec, out.state.status[vid], out.state.pending[vid])
        out.add(DamageTaken(vessel=vid, status=st, notes=tuple(notes)))
        if hull_destroyed(spec, st):
            _destroy(out, vid, "hull collapsed")
    for vid in sorted(out.state.specs):
        st = out.state.status[vid]
        if st.destroyed:
            continue
        backups = out.state.specs[vid].backups
        for system, flag, has in (
            ("databus", "computer_out", backups.databus),
            ("tac", "tac_out", backups.tac),
            ("bridge", "bridge_out", backups.bridge),
        ):
            if getattr(st, flag) and has and system not in st.backups_used:
                repair = {k: v for k, v in st.repair.items() if not (system == "databus" and k == "computer")}
                st = replace(st, **{flag: False}, backups_used=(*st.backups_used, system), repair=repair)
                out.add(BackupTookOver(vessel=vid, system=system, status=st))
    audit_locks(out, "damage to computer, TAC or TTAs")


def outstanding(spec: VesselSpec, st: Status) -> list[str]:
    """Locations this vessel could repair now (ASC-DC-2)."""
    locs = []
    if st.power_plant_damage > 0 and not power_destroyed(spec, st):
        locs.append("power_plant")
    for key, points in sorted(st.repair.items()):
        if points > 0 and key != "power_plant":
            locs.append(key)
    if st.continuing:
        locs.append("continuing")
    return locs


def check_repair(state: State, cmd: Repair, actor: Actor) -> None:
    side = live_vessel(state, cmd.vessel, "ASC-DC-1")
    still_in_phase(state, side)
    spec, st = state.specs[cmd.vessel], state.status[cmd.vessel]
    if cmd.vessel in state.repaired:
        raise RuleViolation("ASC-DC-1", f"{cmd.vessel}'s teams have already rolled this phase")
    if st.engineering_out:
        raise RuleViolation("ASC-DMG-4", f"{cmd.vessel}'s engineering is destroyed: no further damage control")
    if not cmd.locations:
        raise RuleViolation("ASC-DC-1", "assign at least one team")
    if len(cmd.locations) > st.dc_teams:
        raise RuleViolation("ASC-DC-1", f"{cmd.vessel} has {st.dc_teams} damage control teams")
    can = outstanding(spec, st)
    for loc in cmd.locations:
        base = loc.split(":", 1)[0]
        if base not in REPAIRABLE:
            raise RuleViolation("ASC-DC-2", f"{loc!r} cannot be repaired in battle")
        if loc == "power_plant" and power_destroyed(spec, st):
            raise RuleViolation("ASC-DMG-3", "a destroyed power plant cannot be repaired")
        if loc not in can:
            raise RuleViolation("ASC-DC-2", f"{cmd.vessel} has no damage to repair at {loc!r}")


def repair(out: Acc[State], cmd: Repair, actor: Actor, dice: Dice) -> None:
    check_repair(out.state, cmd, actor)
    spec, st = out.state.specs[cmd.vessel], out.state.status[cmd.vessel]
    results = []
    rolls = []
    for loc in cmd.locations:
        mods = [Modifier("ASC-DC-1", "crew quality", spec.crew_quality)]
        if loc == "power_plant":
            mods.append(Modifier("ASC-DC-1", "repairing the power plant", 4))
        roll = dice.roll_high(
            10, f"repair {loc}", "ASC-DC-1", 11, tuple(m for m in mods if m.value), "repaired", "not repaired"
        )
        rolls.append(roll)
        ok = roll.outcome == "repaired"
        results.append(RepairRoll(location=loc, success=ok))
        if ok:
            st = _repair_point(spec, st, loc)
    out.add(RepairsRolled(vessel=cmd.vessel, results=tuple(results), status=st, rolls=tuple(rolls)))


def _repair_point(spec: VesselSpec, st: Status, loc: str) -> Status:
    """One success repairs one point (ASC-DC-4); a location is fixed when all its points are."""
    if loc == "power_plant":
        return replace(st, power_plant_damage=max(0, st.power_plant_damage - 1))
    if loc == "continuing":
        if not st.continuing:
            return st
        first = st.continuing[0] - 1
        rest = st.continuing[1:]
        return replace(st, continuing=((first, *rest) if first > 0 else rest))
    points = st.repair.get(loc, 0) - 1
    repair = dict(st.repair)
    if points > 0:
        repair[loc] = points
        return replace(st, repair=repair)
    repair.pop(loc, None)
    st = replace(st, repair=repair)
    if loc == "computer":
        return replace(st, computer_out=False)
    if loc == "drive":
        return replace(st, drive_out=False)
    if loc == "hangar":
        return replace(st, hangars_out=0)
    if loc.startswith("missile_bay:"):
        return replace(st, bays_out=tuple(b for b in st.bays_out if b != loc.split(":", 1)[1]))
    return st


def close_phase(out: Acc[State]) -> None:
    """Step 4 of ASC-DC-4: continuing damage, after the repair rolls."""
    for vid in sorted(out.state.specs):
        st = out.state.status[vid]
        if st.destroyed or not st.continuing:
            continue
        spec = out.state.specs[vid]
        n = len(st.continuing)
        st = replace(st, hull_damage=st.hull_damage + n)
        out.add(ContinuingDamage(vessel=vid, damage=n, status=st))
        if hull_destroyed(spec, st):
            _destroy(out, vid, "continuing damage")
    audit_locks(out, "vessels lost")
