"""evolve: apply a fact to the state. Total, pure, never rolls, no rules logic."""

from __future__ import annotations

from msgspec.structs import replace

from service.domain.core import Event

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
from .state import Lock, State, Status, enemy


def _status(state: State, vid: str, **changes: object) -> State:
    if vid not in state.status:
        return state
    status = dict(state.status)
    status[vid] = replace(status[vid], **changes)
    return replace(state, status=status)


def _set_status(state: State, vid: str, new: Status) -> State:
    if vid not in state.status:
        return state
    status = dict(state.status)
    status[vid] = new
    return replace(state, status=status)


def _add_lock(state: State, holder: str | None, target: str | None, rating: int) -> State:
    if holder is None or target is None:
        return state
    locks = dict(state.locks)
    current = tuple(lk for lk in locks.get(holder, ()) if lk.target != target)
    locks[holder] = (*current, Lock(target=target, rating=rating))
    return replace(state, locks=locks)


def evolve(state: State, event: Event) -> State:
    if isinstance(event, SensorsCommitted):
        commits = dict(state.commits)
        commits[event.side] = event.entries or ()
        return replace(state, commits=commits)
    if isinstance(event, SensorsRevealed):
        status = dict(state.status)
        for entry in event.entries:
            if entry.vessel in status:
                status[entry.vessel] = replace(status[entry.vessel], active=entry.active, screen=entry.screen or 0)
        auto: dict[str, tuple[str, ...]] = {}
        for side in ("advantaged", "disadvantaged"):
            auto[side] = tuple(
                e.vessel for e in event.entries
                if e.active and e.vessel in state.specs and state.specs[e.vessel].side == enemy(side)
            )
        return replace(state, status=status, commits={}, auto_detected=auto)
    if isinstance(event, DetectionAttempted):
        used = (*state.sensors_used, f"{event.vessel}/{event.sensor}")
        state = replace(state, sensors_used=used)
        if event.success:
            state = _add_lock(state, event.vessel, event.target, event.rating)
        return state
    if isinstance(event, LockTaken):
        return _add_lock(state, event.vessel, event.target, event.rating)
    if isinstance(event, LocksLost):
        locks = dict(state.locks)
        for loss in event.losses:
            if loss.vessel in locks:
                locks[loss.vessel] = tuple(lk for lk in locks[loss.vessel] if lk.target != loss.target)
        return replace(state, locks={k: v for k, v in locks.items() if v})
    if isinstance(event, AllStopped):
        facing = event.facing if event.facing is not None else state.status[event.vessel].facing
        state = _status(state, event.vessel, all_stop=True, facing=facing, screen=0)
        return replace(state, moved=(*state.moved, event.vessel))
    if isinstance(event, Moved):
        facing = event.facing if event.facing is not None else state.status[event.vessel].facing
        state = _status(state, event.vessel, hex=event.hex, facing=facing, all_stop=False)
        return replace(state, moved=(*state.moved, event.vessel))
    if isinstance(event, PhaseEnded):
        return replace(state, done=(*state.done, event.side))
    if isinstance(event, PhaseChanged):
        state = replace(state, turn=event.turn, phase=event.phase, done=())
        if event.phase == "detection":
            state = replace(state, sensors_used=())
        if event.phase.endswith("_movement"):
            mover = event.phase.removesuffix("_movement")
            status = dict(state.status)
            for vid, spec in state.specs.items():
                if spec.side == mover and status[vid].all_stop:
                    status[vid] = replace(status[vid], all_stop=False)
            state = replace(state, moved=(), status=status)
        if event.phase == "damage_control":
            state = replace(state, declarations=(), repaired=())
        return state
    if isinstance(event, FireDeclared):
        return replace(state, declarations=(*state.declarations, event.declaration))
    if isinstance(event, ShotResolved):
        if event.vessel is None or event.target is None:
            return state
        if event.screen_after is not None:
            state = _status(state, event.target, screen=event.screen_after)
        landed = tuple(s for s in event.strikes if not s.blocked)
        if landed:
            pending = dict(state.pending)
            pending[event.target] = (*pending.get(event.target, ()), *landed)
            state = replace(state, pending=pending)
        if event.missile_killed and not event.point_defence:
            state = replace(state, missiles_hit=(*state.missiles_hit, event.target))
        if event.launcher_turn is not None and event.weapon is not None:
            st = state.status[event.vessel]
            rounds = dict(st.rounds)
            rounds[event.weapon] = rounds.get(event.weapon, 0) - 1
            last = dict(st.last_launch)
            last[event.weapon] = event.launcher_turn
            state = _status(state, event.vessel, rounds=rounds, last_launch=last)
        return state
    if isinstance(event, DamageTaken):
        state = _set_status(state, event.vessel, event.status)
        pending = {k: v for k, v in state.pending.items() if k != event.vessel}
        hit = tuple(m for m in state.missiles_hit if m != event.vessel)
        return replace(state, pending=pending, missiles_hit=hit)
    if isinstance(event, BackupTookOver | ContinuingDamage):
        return _set_status(state, event.vessel, event.status)
    if isinstance(event, RepairsRolled):
        state = _set_status(state, event.vessel, event.status)
        return replace(state, repaired=(*state.repaired, event.vessel))
    if isinstance(event, VesselDestroyed):
        vid = event.vessel
        state = _status(state, vid, destroyed=True, active=False, screen=0)
        wrecks = {o: tuple(v) for o, v in state.wrecks.items()}
        for observer in event.seen_by:
            if vid not in wrecks.get(observer, ()):
                wrecks[observer] = (*wrecks.get(observer, ()), vid)
        locks = {
            h: tuple(lk for lk in ls if lk.target != vid) for h, ls in state.locks.items() if h != vid
        }
        auto = {s: tuple(v for v in vs if v != vid) for s, vs in state.auto_detected.items()}
        pending = {k: v for k, v in state.pending.items() if k != vid}
        hit = tuple(m for m in state.missiles_hit if m != vid)
        return replace(
            state, wrecks=wrecks, locks={h: ls for h, ls in locks.items() if ls}, auto_detected=auto,
            pending=pending, missiles_hit=hit,
        )
    if isinstance(event, GameEnded):
        return replace(state, over=True, winner=event.winner)
    return state
