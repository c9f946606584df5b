"""evolve: apply a fact to the state. Total over the event types, pure, never rolls, no rules logic.

``HANDLERS`` has exactly one branch per event type; any other event raises ``UnknownEvent``. Besides the
facts, each handler leaves a ``Mark`` for the drawing (what just happened: view.py decides who sees it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from msgspec.structs import replace

from service.domain.core import Event
from service.domain.core.guards import UnknownEvent

from . import events as E
from .paths import trace
from .state import Lock, Mark, State, Status, enemy

Handler = Callable[[State, Any], State]


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


def _mark(state: State, kind: str, **fields: Any) -> State:
    n = state.marks_n + 1
    mark = Mark(n=n, phase_n=state.phase_n, kind=kind, **fields)
    return replace(state, marks_n=n, marks=(*state.marks, mark))


def _add_lock(state: State, holder: str | None, target: str | None, rating: int) -> State:
    if holder is None or target is None:
        return state
    locks = dict(state.locks)
    current = tuple(lk for lk in locks.get(holder, ()) if lk.target != target)
    locks[holder] = (*current, Lock(target=target, rating=rating))
    return replace(state, locks=locks)


def _committed(state: State, event: E.SensorsCommitted) -> State:
    commits = dict(state.commits)
    commits[event.side] = event.entries or ()
    return replace(state, commits=commits)


def _revealed(state: State, event: E.SensorsRevealed) -> State:
    status = dict(state.status)
    for entry in event.entries:
        if entry.vessel in status:
            status[entry.vessel] = replace(status[entry.vessel], active=entry.active, screen=entry.screen or 0)
    auto: dict[str, tuple[str, ...]] = {}
    for side in ("advantaged", "disadvantaged"):
        auto[side] = tuple(
            e.vessel
            for e in event.entries
            if e.active and e.vessel in state.specs and state.specs[e.vessel].side == enemy(side)
        )
    return replace(state, status=status, commits={}, auto_detected=auto)


def _detection(state: State, event: E.DetectionAttempted) -> State:
    state = replace(state, sensors_used=(*state.sensors_used, f"{event.vessel}/{event.sensor}"))
    if event.success:
        state = _add_lock(state, event.vessel, event.target, event.rating)
    return _mark(
        state,
        "detected" if event.success else "undetected",
        side=event.side,
        source=event.vessel,
        target=event.target,
        hexes=(event.hex,) if event.hex else (),
        rule="ASC-DET-3",
    )


def _lock(state: State, event: E.LockTaken) -> State:
    state = _add_lock(state, event.vessel, event.target, event.rating)
    return _mark(state, "lock", source=event.vessel, target=event.target, rule="ASC-DET-5")


def _locks_lost(state: State, event: E.LocksLost) -> State:
    locks = dict(state.locks)
    for loss in event.losses:
        if loss.vessel in locks:
            locks[loss.vessel] = tuple(lk for lk in locks[loss.vessel] if lk.target != loss.target)
    return replace(state, locks={k: v for k, v in locks.items() if v})


def _all_stopped(state: State, event: E.AllStopped) -> State:
    facing = event.facing if event.facing is not None else state.status[event.vessel].facing
    state = _status(state, event.vessel, all_stop=True, facing=facing, screen=0)
    state = replace(state, moved=(*state.moved, event.vessel))
    return _mark(state, "all_stop", source=event.vessel, rule="ASC-MOV-4")


def _moved(state: State, event: E.Moved) -> State:
    before = state.status[event.vessel]
    hexes = trace(before.hex, before.facing, event.path)[0] if event.path is not None else [before.hex]
    if hexes[-1] != event.hex:
        hexes.append(event.hex)
    facing = event.facing if event.facing is not None else before.facing
    state = _status(state, event.vessel, hex=event.hex, facing=facing, all_stop=False)
    state = replace(state, moved=(*state.moved, event.vessel))
    return _mark(state, "move", source=event.vessel, hexes=tuple(hexes), rule="ASC-MOV-2")


def _launched(state: State, event: E.Launched) -> State:
    """The craft leaves the hangar into the event's hex; every observer on the other side (and spectators)
    gets a new bogey token for it, the next number of their own (ruling ASC-R-33)."""
    craft = event.craft
    if craft is None or craft not in state.status:
        return state
    carrier = state.status[craft].aboard
    facing = event.facing if event.facing is not None else state.status[craft].facing
    state = _status(state, craft, aboard=None, hex=event.hex, facing=facing, all_stop=False)
    side = state.specs[craft].side
    tokens = {o: dict(t) for o, t in state.tokens.items()}
    for observer in (enemy(side), "spectator"):
        mine = tokens.setdefault(observer, {})
        mine[craft] = f"bogey-{1 + max((int(t.split('-')[1]) for t in mine.values()), default=0)}"
    state = replace(state, tokens=tokens, hangar_uses=(*state.hangar_uses, carrier or ""))
    return _mark(state, "launch", source=craft, target=carrier, hexes=(event.hex,), rule="ASC-CRAFT-1")


def _recovered(state: State, event: E.Recovered) -> State:
    craft, carrier = event.craft, event.vessel
    if craft is None or carrier is None or craft not in state.status:
        return state
    where = state.status[craft].hex
    state = _status(state, craft, aboard=carrier, active=False, screen=0, all_stop=False)
    state = replace(state, hangar_uses=(*state.hangar_uses, carrier), moved=(*state.moved, craft))
    return _mark(state, "recover", source=craft, target=carrier, hexes=(where,), rule="ASC-R-30")


def _phase_ended(state: State, event: E.PhaseEnded) -> State:
    return replace(state, done=(*state.done, event.side))


def _phase_changed(state: State, event: E.PhaseChanged) -> State:
    n = state.phase_n + 1
    marks = tuple(m for m in state.marks if m.phase_n >= n - 1)  # this phase's and the last one's
    state = replace(state, turn=event.turn, phase=event.phase, done=(), phase_n=n, marks=marks)
    if event.phase == "detection":
        state = replace(state, sensors_used=())
    if event.phase.endswith("_movement"):
        mover = event.phase.removesuffix("_movement")
        status = dict(state.status)
        for vid, spec in state.specs.items():
            if spec.side == mover and status[vid].all_stop:
                status[vid] = replace(status[vid], all_stop=False)
        state = replace(state, moved=(), status=status, hangar_uses=())
    if event.phase == "damage_control":
        state = replace(state, declarations=(), repaired=())
    return state


def _fire_declared(state: State, event: E.FireDeclared) -> State:
    return replace(state, declarations=(*state.declarations, event.declaration))


def _shot(state: State, event: E.ShotResolved) -> State:
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
    side = state.specs[event.vessel].side
    state = _mark(state, "fire", side=side, source=event.vessel, target=event.target, rule="ASC-FIRE-1")
    amount = sum(s.damage for s in landed)
    return _mark(
        state,
        event.outcome,
        side=side,
        source=event.vessel,
        target=event.target,
        amount=amount if landed else None,
        rule="ASC-FIRE-5",
    )


def _damage(state: State, event: E.DamageTaken) -> State:
    amount = sum(s.damage for s in state.pending.get(event.vessel, ()))
    state = _set_status(state, event.vessel, event.status)
    pending = {k: v for k, v in state.pending.items() if k != event.vessel}
    hit = tuple(m for m in state.missiles_hit if m != event.vessel)
    state = replace(state, pending=pending, missiles_hit=hit)
    return _mark(state, "damage", target=event.vessel, amount=amount, rule="ASC-DMG-1")


def _backup(state: State, event: E.BackupTookOver) -> State:
    return _set_status(state, event.vessel, event.status)


def _continuing(state: State, event: E.ContinuingDamage) -> State:
    state = _set_status(state, event.vessel, event.status)
    return _mark(state, "damage", target=event.vessel, amount=event.damage, rule="ASC-LOC-3")


def _repairs(state: State, event: E.RepairsRolled) -> State:
    state = _set_status(state, event.vessel, event.status)
    state = replace(state, repaired=(*state.repaired, event.vessel))
    return _mark(
        state, "repair", target=event.vessel, amount=sum(1 for r in event.results if r.success), rule="ASC-DC-1"
    )


def _destroyed(state: State, event: E.VesselDestroyed) -> State:
    vid = event.vessel
    where = state.status[vid].hex
    state = _status(state, vid, destroyed=True, active=False, screen=0)
    wrecks = {o: tuple(v) for o, v in state.wrecks.items()}
    for observer in event.seen_by:
        if vid not in wrecks.get(observer, ()):
            wrecks[observer] = (*wrecks.get(observer, ()), vid)
    locks = {h: tuple(lk for lk in ls if lk.target != vid) for h, ls in state.locks.items() if h != vid}
    auto = {s: tuple(v for v in vs if v != vid) for s, vs in state.auto_detected.items()}
    pending = {k: v for k, v in state.pending.items() if k != vid}
    hit = tuple(m for m in state.missiles_hit if m != vid)
    state = replace(
        state,
        wrecks=wrecks,
        locks={h: ls for h, ls in locks.items() if ls},
        auto_detected=auto,
        pending=pending,
        missiles_hit=hit,
    )
    return _mark(state, "destroyed", target=vid, hexes=(where,), rule="ASC-DMG-2")


def _ended(state: State, event: E.GameEnded) -> State:
    return replace(state, over=True, winner=event.winner, result=event.reason)


HANDLERS: dict[type[Event], Handler] = {
    E.SensorsCommitted: _committed,
    E.SensorsRevealed: _revealed,
    E.DetectionAttempted: _detection,
    E.LockTaken: _lock,
    E.LocksLost: _locks_lost,
    E.AllStopped: _all_stopped,
    E.Moved: _moved,
    E.Launched: _launched,
    E.Recovered: _recovered,
    E.PhaseEnded: _phase_ended,
    E.PhaseChanged: _phase_changed,
    E.FireDeclared: _fire_declared,
    E.ShotResolved: _shot,
    E.DamageTaken: _damage,
    E.BackupTookOver: _backup,
    E.RepairsRolled: _repairs,
    E.ContinuingDamage: _continuing,
    E.VesselDestroyed: _destroyed,
    E.GameEnded: _ended,
}


def evolve(state: State, event: Event) -> State:
    handler = HANDLERS.get(type(event))
    if handler is None:
        raise UnknownEvent("asc", event)
    return handler(state, event)
