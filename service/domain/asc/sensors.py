"""Sensor commit (sealed), detection attempts, TTA locks and their loss (ASC-SEQ-2, ASC-DET)."""

from __future__ import annotations

from msgspec.structs import replace

from service.domain.core import Actor, Dice, Modifier, Roll, RuleViolation
from service.domain.core.acc import Acc
from service.domain.core.hexgrid import Hex

from .commands import CommitSensors, Detect, LockOn, SensorSetting
from .condition import (
    best_active_rating,
    in_contact,
    passive_signature,
    power_shutdown,
    sensor_working,
)
from .events import DetectionAttempted, LockRef, LocksLost, LockTaken, PhaseChanged, SensorsCommitted, SensorsRevealed
from .scenario import SIDES, SensorSpec, stutterwarps
from .sight import is_bogey, live_vessel, named_side, own_vessel, resolve, still_in_phase, visible
from .state import CommitEntry, State, vessels_of

# ------------------------------------------------------------------------------------ sensor commit


def check_commit(state: State, cmd: CommitSensors, actor: Actor) -> tuple[CommitEntry, ...]:
    side = named_side(cmd.side, "ASC-SEQ-2")
    if side in state.commits:
        raise RuleViolation("ASC-SEQ-2", f"the {side} side has already committed its sensors this turn")
    given: dict[str, CommitEntry] = {}
    for s in cmd.vessels:
        if s.vessel in given:
            raise RuleViolation("ASC-SEQ-2", f"vessel {s.vessel!r} is listed twice")
        own_vessel(state, actor, s.vessel, "ASC-SEQ-2")
        if state.specs[s.vessel].side != side:
            raise RuleViolation("ASC-SEQ-2", f"vessel {s.vessel!r} is not on the {side} side")
        given[s.vessel] = _commit_entry(state, s)
    return tuple(given.get(v, CommitEntry(vessel=v)) for v in vessels_of(state, side))


def _commit_entry(state: State, s: SensorSetting) -> CommitEntry:
    """One vessel's setting: active sensors need a working active sensor and power (ASC-DMG-3); a screen
    0..the current maximum, with power (ASC-SCR-3) and not at All Stop (ASC-MOV-4)."""
    spec, st = state.specs[s.vessel], state.status[s.vessel]
    if s.active:
        if not any(x.type == "active" and sensor_working(st, x.id) for x in spec.sensors):
            raise RuleViolation("ASC-SEQ-2", f"{s.vessel} has no working active sensor")
        if power_shutdown(spec, st):
            raise RuleViolation("ASC-DMG-3", f"{s.vessel}'s power plant is shut down: no active sensors")
    if s.screen < 0 or s.screen > st.screen_max:
        raise RuleViolation("ASC-SEQ-2", f"screen setting must be 0..{st.screen_max} for {s.vessel}")
    if s.screen > 0 and power_shutdown(spec, st):
        raise RuleViolation("ASC-SCR-3", f"{s.vessel} has no power for screens")
    if s.screen > 0 and st.all_stop:
        raise RuleViolation("ASC-MOV-4", f"{s.vessel} is at All Stop and cannot use screens")
    return CommitEntry(vessel=s.vessel, active=s.active, screen=s.screen)


def default_commit(state: State, side: str) -> tuple[CommitEntry, ...]:
    return tuple(CommitEntry(vessel=v) for v in vessels_of(state, side))


def reveal(out: Acc[State]) -> None:
    """Both sides have committed: reveal together, then the detection phase begins."""
    entries = tuple(e for side in SIDES for e in out.state.commits.get(side, ()))
    out.add(SensorsRevealed(entries=entries))
    out.add(PhaseChanged(turn=out.state.turn, phase="detection"))


def commit(out: Acc[State], cmd: CommitSensors, actor: Actor) -> None:
    entries = check_commit(out.state, cmd, actor)
    out.add(SensorsCommitted(side=cmd.side, entries=entries))
    if all(s in out.state.commits for s in SIDES):
        reveal(out)


# ---------------------------------------------------------------------------------------- detection


def _no_contact(name: str) -> RuleViolation:
    return RuleViolation("ASC-DET-3", f"no undetected contact {name!r} for this vessel")


def check_detect(state: State, cmd: Detect, actor: Actor) -> tuple[str, str | None, int, int]:
    """Returns (side, target or None for an empty hex scan, distance, signature)."""
    side = live_vessel(state, cmd.vessel, "ASC-DET-3")
    still_in_phase(state, side)
    sensor = _free_sensor(state, cmd)
    if (cmd.target is None) == (cmd.hex is None):
        raise RuleViolation("ASC-DET-3", "name either a target or a hex to scan")
    target: str | None
    if cmd.target is not None:
        named = _contact(state, side, cmd, actor.is_umpire)
        target, where = named, state.status[named].hex
    else:
        assert cmd.hex is not None
        where = cmd.hex
        target = _hidden_in_hex(state, side, where, sensor.type)
    distance = state.status[cmd.vessel].hex.distance_to(where)
    if distance >= sensor.rating:
        raise RuleViolation(
            "ASC-DET-3",
            f"{cmd.target or 'that hex'} is {distance} hex{'' if distance == 1 else 'es'} away; the {sensor.type} "
            f"sensor {sensor.id} needs less than {sensor.rating} hexes",
        )
    return side, target, distance, (_signature(state, target, sensor.type) if target else 0)


def _free_sensor(state: State, cmd: Detect) -> SensorSpec:
    """ASC-DET-3/6: a working sensor not yet used this phase, a free operator, the computer and TAC up, and
    for an active sensor, committed active sensors and power (ASC-SEQ-2, ASC-DMG-3)."""
    spec, st = state.specs[cmd.vessel], state.status[cmd.vessel]
    sensor = next((s for s in spec.sensors if s.id == cmd.sensor), None)
    if sensor is None:
        raise RuleViolation("ASC-DET-3", f"{cmd.vessel} has no sensor {cmd.sensor!r}")
    if not sensor_working(st, sensor.id):
        raise RuleViolation("ASC-DET-6", f"sensor {sensor.id} is wrecked (no antenna left)")
    if f"{cmd.vessel}/{cmd.sensor}" in state.sensors_used:
        raise RuleViolation("ASC-DET-3", f"sensor {sensor.id} has already tried a detection this phase")
    used = sum(1 for u in state.sensors_used if u.split("/", 1)[0] == cmd.vessel)
    operators = len(spec.sensors) if spec.operators is None else spec.operators
    if used >= operators:
        raise RuleViolation("ASC-DET-3", f"{cmd.vessel} has no free sensor operator ({operators} in all)")
    if st.computer_out:
        raise RuleViolation("ASC-DMG-4", f"{cmd.vessel}'s computer is down: no scans")
    if st.tac_out:
        raise RuleViolation("ASC-DMG-4", f"{cmd.vessel}'s TAC is destroyed: no new detections")
    if sensor.type == "active":
        if not st.active:
            raise RuleViolation("ASC-SEQ-2", f"{cmd.vessel} did not commit its active sensors this turn")
        if power_shutdown(spec, st):
            raise RuleViolation("ASC-DMG-3", f"{cmd.vessel}'s power plant is shut down: no active locks")
    return sensor


def _contact(state: State, side: str, cmd: Detect, umpire: bool) -> str:
    """A named contact: an undetected enemy (bogey token or visible id), not radiating (ASC-DET-2), not
    already locked by this vessel (ASC-DET-5); a hidden one is refused like no contact at all."""
    assert cmd.target is not None
    target = resolve(state, side, cmd.target, umpire)
    if target is None or state.specs[target].side == side or state.status[target].destroyed:
        raise _no_contact(cmd.target)
    if target in state.auto_detected.get(side, ()):
        raise RuleViolation(
            "ASC-DET-2", f"{cmd.target} radiates actively and is detected automatically: lock on it instead"
        )
    if any(lk.target == target for lk in state.locks.get(cmd.vessel, ())):
        raise RuleViolation("ASC-DET-5", f"{cmd.vessel} already holds a lock on {cmd.target!r}")
    return target


def _hidden_in_hex(state: State, side: str, where: Hex, sensor_type: str) -> str | None:
    """Ruling ASC-R-2: a hex scan finds the hidden enemy without stardrive (never a bogey) with the highest
    signature there, if any (a craft aboard is not in the battle)."""
    hidden = [
        v
        for v in state.specs
        if state.specs[v].side != side
        and not state.status[v].destroyed
        and state.status[v].hex == where
        and not stutterwarps(state.specs[v])
        and not visible(state, side, v)
        and state.status[v].aboard is None
    ]
    return max(hidden, key=lambda v: (_signature(state, v, sensor_type), v), default=None)


def _signature(state: State, vid: str, sensor_type: str) -> int:
    spec, st = state.specs[vid], state.status[vid]
    return spec.active_signature if sensor_type == "active" else passive_signature(spec, st)


def detect(out: Acc[State], cmd: Detect, actor: Actor, dice: Dice) -> None:
    state = out.state
    side, target, _, sig = check_detect(state, cmd, actor)
    spec = state.specs[cmd.vessel]
    sensor = next(s for s in spec.sensors if s.id == cmd.sensor)
    skill = sensor.operator_skill if sensor.operator_skill is not None else spec.crew_quality
    mods = [Modifier("ASC-DET-3", "operator skill", skill)]
    if target is not None:
        kind = "active" if sensor.type == "active" else "passive"
        mods.append(Modifier("ASC-DET-4", f"target {kind} signature", sig))
    roll = dice.roll_high(10, f"detection with {sensor.id}", "ASC-DET-3", 10, tuple(mods), "detected", "not detected")
    success = target is not None and roll.outcome == "detected"
    if target is None:
        roll = _replace_outcome(roll, "nothing found")
    out.add(
        DetectionAttempted(
            side=side,
            vessel=cmd.vessel,
            sensor=cmd.sensor,
            target=target,
            hex=cmd.hex,
            success=success,
            rating=_lock_rating(state, cmd.vessel, sensor.rating) if success else 0,
            rolls=(roll,),
        )
    )


def _replace_outcome(roll: Roll, outcome: str) -> Roll:
    return replace(roll, outcome=outcome)


def _lock_rating(state: State, holder: str, fallback: int) -> int:
    """ASC-DET-5 ruling: the best working active sensor, committed or not; else the detecting sensor."""
    best = best_active_rating(state.specs[holder], state.status[holder])
    return best if best is not None else fallback


# -------------------------------------------------------------------------------------------- locks


def check_lock(state: State, cmd: LockOn, actor: Actor) -> tuple[str, str, int]:
    side = live_vessel(state, cmd.vessel, "ASC-DET-5")
    still_in_phase(state, side)
    st = state.status[cmd.vessel]
    if st.computer_out:
        raise RuleViolation("ASC-DMG-4", f"{cmd.vessel}'s computer is down: no locks")
    if st.tac_out:
        raise RuleViolation("ASC-DMG-4", f"{cmd.vessel}'s TAC is destroyed: no locks")
    target = resolve(state, side, cmd.target, actor.is_umpire)
    if (
        target is None
        or not visible(state, side, target)
        or state.specs[target].side == side
        or state.status[target].destroyed
    ):
        raise RuleViolation("ASC-FIRE-2", f"no detected target {cmd.target!r}")
    if any(lk.target == target for lk in state.locks.get(cmd.vessel, ())):
        raise RuleViolation("ASC-DET-5", f"{cmd.vessel} already holds a lock on {target}")
    radiating = target in state.auto_detected.get(side, ())
    partners = [
        h
        for h, locks in state.locks.items()
        if state.specs[h].side == side and any(lk.target == target for lk in locks) and in_contact(state, cmd.vessel, h)
    ]
    if not radiating and not partners:
        raise RuleViolation("ASC-DET-5", f"no ship in contact with {cmd.vessel} has detected {target}")
    spec = state.specs[cmd.vessel]
    ratings = [s.rating for s in spec.sensors if sensor_working(st, s.id)]
    rating = _lock_rating(state, cmd.vessel, max(ratings, default=1))
    if st.hex.distance_to(state.status[target].hex) > rating:
        raise RuleViolation("ASC-DET-5", f"{target} is beyond {cmd.vessel}'s sensor range ({rating})")
    return side, target, rating


def lock_on(out: Acc[State], cmd: LockOn, actor: Actor) -> None:
    _, target, rating = check_lock(out.state, cmd, actor)
    out.add(LockTaken(vessel=cmd.vessel, target=target, rating=rating))


def lock_losses(state: State) -> list[LockRef]:
    """ASC-DET-5 and ASC-DMG-4: locks lost to range, a downed computer or TAC, or destruction."""
    losses: list[LockRef] = []
    for holder, locks in sorted(state.locks.items()):
        st = state.status[holder]
        for lk in locks:
            tst = state.status.get(lk.target)
            gone = (
                st.destroyed
                or tst is None
                or tst.destroyed
                or st.aboard is not None
                or tst.aboard is not None
                or st.computer_out
                or st.tac_out
                or st.hex.distance_to(tst.hex) > _lock_rating(state, holder, lk.rating)
            )
            if gone:
                losses.append(LockRef(vessel=holder, target=lk.target))
    return losses


def audit_locks(out: Acc[State], reason: str) -> None:
    losses = lock_losses(out.state)
    if losses:
        out.add(LocksLost(losses=tuple(losses), reason=reason))


def detection_candidates(state: State, side: str, vessel: str) -> list[str]:
    """Names this side may give a detection target: bogey tokens and visible enemies not yet locked by
    ``vessel`` (never a vessel radiating actively: it is detected already, ASC-DET-2)."""
    names = []
    for vid in state.specs:
        if state.specs[vid].side == side or state.status[vid].destroyed:
            continue
        if vid in state.auto_detected.get(side, ()) or any(lk.target == vid for lk in state.locks.get(vessel, ())):
            continue
        if is_bogey(state, side, vid):
            names.append(state.tokens[side][vid])
        elif visible(state, side, vid):
            names.append(vid)
    return names
