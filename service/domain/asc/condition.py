"""What a vessel can still do, derived from its data sheet and status (no state changes here)."""

from __future__ import annotations

from .scenario import VesselSpec, parse_signature
from .state import State, Status


def minor_breach(spec: VesselSpec, st: Status) -> bool:
    """ASC-DMG-2: hull at 25% damage or more."""
    return st.hull_damage * 4 >= spec.hull and st.hull_damage > 0


def major_breach(spec: VesselSpec, st: Status) -> bool:
    """ASC-DMG-2: hull at 50% damage or more."""
    return st.hull_damage * 2 >= spec.hull and st.hull_damage > 0


def power_shutdown(spec: VesselSpec, st: Status) -> bool:
    """ASC-DMG-3: power plant at 20% damage or more (a vessel without one has no power to lose)."""
    return spec.power_plant > 0 and st.power_plant_damage * 5 >= spec.power_plant and st.power_plant_damage > 0


def power_destroyed(spec: VesselSpec, st: Status) -> bool:
    return spec.power_plant > 0 and st.power_plant_damage >= spec.power_plant


def at_all_stop(spec: VesselSpec, st: Status) -> bool:
    """Declared All Stop, or the All Stop effects of a power plant shutdown (ASC-MOV-4, ASC-DMG-3)."""
    return st.all_stop or power_shutdown(spec, st)


def effective_armour(spec: VesselSpec, st: Status) -> int:
    """ASC-DMG-2: halved after a minor breach; no saves at all after a major breach."""
    if major_breach(spec, st):
        return 0
    if minor_breach(spec, st):
        return spec.armour // 2
    return spec.armour


def passive_signature(spec: VesselSpec, st: Status) -> int:
    """ASC-DET-4, in the digest's order: base, +1 minor, x2 major, halved at All Stop, + screen."""
    masked, unmasked = parse_signature(spec.passive_signature)
    breached = minor_breach(spec, st)
    sig = unmasked if (unmasked is not None and breached) else masked
    if breached:
        sig += 1
    if major_breach(spec, st):
        sig *= 2
    if at_all_stop(spec, st):
        sig //= 2
    return sig + (st.screen or 0)


def working_ttas(spec: VesselSpec, st: Status) -> int:
    return max(0, spec.ttas - st.ttas_lost)


def has_computer(st: Status) -> bool:
    return not st.computer_out


def has_tac(st: Status) -> bool:
    return not st.tac_out


def sensor_working(st: Status, sensor_id: str) -> bool:
    return sensor_id not in st.sensors_lost


def working_sensors(spec: VesselSpec, st: Status) -> list[str]:
    return [s.id for s in spec.sensors if sensor_working(st, s.id)]


def best_active_rating(spec: VesselSpec, st: Status) -> int | None:
    ratings = [s.rating for s in spec.sensors if s.type == "active" and sensor_working(st, s.id)]
    return max(ratings) if ratings else None


def working_mounts(spec: VesselSpec, st: Status) -> list[str]:
    """Turrets, submunition launchers and missile packs still usable (ASC-LOC-5)."""
    parts = [t.id for t in spec.turrets] + [lnch.id for lnch in spec.launchers] + [b.id for b in spec.missile_bays]
    return [p for p in parts if p not in st.mounts_lost]


def remote_comms(spec: VesselSpec, st: Status) -> int:
    return max(0, spec.remote_communicators - st.remote_comms_lost)


def can_drive(spec: VesselSpec, st: Status) -> tuple[bool, str, str]:
    """(ok, rule, why) for moving or turning at all."""
    if st.drive_out:
        return False, "ASC-MOV-5", "its drive is hit"
    if power_shutdown(spec, st):
        return False, "ASC-MOV-5", "its power plant is shut down"
    if st.computer_out:
        return False, "ASC-DMG-4", "its computer is down"
    return True, "", ""


def control_range(spec: VesselSpec, st: Status) -> int:
    """Ruling ASC-R-29: a controller reaches its remotes as far as its best working sensor tracks them."""
    return max((s.rating for s in spec.sensors if sensor_working(st, s.id)), default=0)


def controls(state: State, controller: str, remote: str) -> bool:
    """ASC-CRAFT-2: the remote is controlled from a live controller with a working communicator, computer and
    TAC (ASC-DMG-4), within its control range (ruling ASC-R-29); a craft aboard is controlled by no one."""
    spec = state.specs[remote]
    if spec.controller != controller:
        return False
    cst, rst = state.status[controller], state.status[remote]
    cspec = state.specs[controller]
    if cst.destroyed or cst.aboard is not None or rst.aboard is not None:
        return False
    if remote_comms(cspec, cst) <= 0 or cst.computer_out or cst.tac_out:
        return False
    return cst.hex.distance_to(rst.hex) <= control_range(cspec, cst)


def flight_control(state: State, carrier: str, craft: str) -> bool:
    """Ruling ASC-R-34: a carrier's fighter keeps in touch through its TAC/flight control (ASC-DMG-4: a
    destroyed TAC or fighter-control compartment cuts fighter communications), within the control range."""
    spec = state.specs[craft]
    if spec.carried_by != carrier or spec.kind != "starship":
        return False
    cst, fst = state.status[carrier], state.status[craft]
    if cst.destroyed or cst.aboard is not None or fst.aboard is not None:
        return False
    if cst.tac_out or cst.fighter_control_out:
        return False
    return cst.hex.distance_to(fst.hex) <= control_range(state.specs[carrier], cst)


def in_contact(state: State, a: str, b: str) -> bool:
    """ASC-DET-5 ruling: same or adjacent hex, or linked through a working remote communicator or a
    carrier's flight control (ruling ASC-R-34)."""
    if a == b:
        return True
    sa, sb = state.status[a], state.status[b]
    if sa.hex.distance_to(sb.hex) <= 1:
        return True
    return controls(state, a, b) or controls(state, b, a) or flight_control(state, a, b) or flight_control(state, b, a)
