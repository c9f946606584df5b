"""Per-viewer redaction of events, setups and state views (ASC-HID-1, ASC-HID-2)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
from msgspec.structs import replace

from service.domain.core import Event, InvalidScenario, Roll, Viewer

from .events import (
    AllStopped,
    BackupTookOver,
    ContinuingDamage,
    DamageTaken,
    DetectionAttempted,
    FireDeclared,
    Launched,
    LockRef,
    LocksLost,
    LockTaken,
    Moved,
    Recovered,
    RepairsRolled,
    SensorsCommitted,
    SensorsRevealed,
    ShotResolved,
    VesselDestroyed,
)
from .scenario import Setup, validate
from .sight import is_bogey, observer, ref, visible
from .state import CommitEntry, State, initial_state


def _strip(rolls: tuple[Roll, ...], drop_rules: tuple[str, ...] = (), hide_target_rules: tuple[str, ...] = ()):
    out = []
    for r in rolls:
        if r.rule in drop_rules:
            continue
        if r.rule in hide_target_rules:
            r = replace(r, target=None)
        out.append(replace(r, modifiers=tuple(m for m in r.modifiers if m.rule not in drop_rules)))
    return tuple(out)


def redact(event: Event, viewer: Viewer, state: State) -> Event | None:
    """The event as this viewer may see it (None: not at all). The umpire sees everything; each event type
    has its own step below (an event type without one is public)."""
    obs = observer(viewer)
    if obs is None:
        return event
    step = REDACTORS.get(type(event))
    return event if step is None else step(event, obs, state)


def _commit(event: SensorsCommitted, obs: str, state: State) -> Event | None:
    """ASC-HID-2: a side's commitment is sealed from everyone else."""
    return event if obs == event.side else replace(event, entries=None)


def _revealed(event: SensorsRevealed, obs: str, state: State) -> Event | None:
    """ASC-HID-2: at the reveal a side learns its own settings and which visible enemies went active."""
    entries = []
    for e in event.entries:
        if e.vessel not in state.specs:
            continue
        if state.specs[e.vessel].side == obs:
            entries.append(e)
        elif e.active and visible(state, obs, e.vessel):
            entries.append(CommitEntry(vessel=e.vessel, active=True, screen=None))
    return replace(event, entries=tuple(entries))


def _detection(event: DetectionAttempted, obs: str, state: State) -> Event | None:
    if obs == event.side:
        return _own_detection(event, obs, state)
    if not event.success:
        return None  # ruling ASC-R-3: only the searching side learns of a failed attempt
    shown = visible(state, obs, event.vessel)
    return replace(
        event,
        vessel=ref(state, obs, event.vessel),
        sensor=event.sensor if shown else None,
        target=ref(state, obs, event.target),
        rating=event.rating if shown else 0,
        rolls=event.rolls if shown else (),
    )


def _own_detection(event: DetectionAttempted, obs: str, state: State) -> Event | None:
    """The searching side's own attempt: in full once it sees the target; else no signature modifier, and
    a failed hex scan on a hidden non-bogey reads exactly like a scan of an empty hex."""
    if event.target is not None and visible(state, obs, event.target):
        return event
    shown_target = ref(state, obs, event.target)
    rolls = _strip(event.rolls, ("ASC-DET-4",))
    if shown_target is None:
        rolls = tuple(replace(r, outcome="nothing found") if r.rule == "ASC-DET-3" else r for r in rolls)
    return replace(event, target=shown_target, rolls=rolls)


def _lock(event: LockTaken, obs: str, state: State) -> Event | None:
    holder, target = ref(state, obs, event.vessel), ref(state, obs, event.target)
    if holder is None and target is None:
        return None
    shown = visible(state, obs, event.vessel)
    return replace(event, vessel=holder, target=target, rating=event.rating if shown else 0)


def _locks_lost(event: LocksLost, obs: str, state: State) -> Event | None:
    losses = []
    for loss in event.losses:
        v, t = ref(state, obs, loss.vessel), ref(state, obs, loss.target)
        if v is not None or t is not None:
            losses.append(LockRef(vessel=v, target=t))
    return replace(event, losses=tuple(losses)) if losses else None


def _all_stopped(event: AllStopped, obs: str, state: State) -> Event | None:
    return event if visible(state, obs, event.vessel) else None


def _moved(event: Moved, obs: str, state: State) -> Event | None:
    """ASC-DET-1: a bogey's move shows as its token reaching a hex (no facing, no path)."""
    if visible(state, obs, event.vessel):
        return event
    if is_bogey(state, obs, event.vessel):
        return replace(event, vessel=state.tokens[obs][event.vessel], facing=None, path=None)
    return None


def _launched(event: Launched, obs: str, state: State) -> Event | None:
    """Ruling ASC-R-33: a craft launched unseen appears as a new bogey in its carrier's hex; the carrier is
    named as the viewer names it (its token when a bogey); nothing at all when neither is seen."""
    craft, carrier = ref(state, obs, event.craft), ref(state, obs, event.vessel)
    if craft is None and carrier is None:
        return None
    seen = visible(state, obs, event.craft)
    return replace(event, vessel=carrier, craft=craft, facing=event.facing if seen else None)


def _recovered(event: Recovered, obs: str, state: State) -> Event | None:
    """Ruling ASC-R-33: an enemy sees a craft go aboard as its bogey token (the one it got at launch), even
    if it had detected it: aboard, the craft's identity is a secret again. Nothing when neither it nor its
    carrier is seen."""
    carrier = ref(state, obs, event.vessel)
    craft = event.craft if visible(state, obs, event.craft) else state.tokens.get(obs, {}).get(event.craft or "")
    if craft is None and carrier is None:
        return None
    return replace(event, vessel=carrier, craft=craft)


def _declared(event: FireDeclared, obs: str, state: State) -> Event | None:
    return event if obs == event.declaration.side else None  # sealed until resolved (ASC-R-4)


def _status(
    event: DamageTaken | BackupTookOver | RepairsRolled | ContinuingDamage, obs: str, state: State
) -> Event | None:
    """Damage to a visible vessel; its screen rating is its owner's alone."""
    if not visible(state, obs, event.vessel):
        return None
    if state.specs[event.vessel].side == obs:
        return event
    return replace(event, status=replace(event.status, screen=None))


def _destroyed(event: VesselDestroyed, obs: str, state: State) -> Event | None:
    if visible(state, obs, event.vessel):
        return replace(event, seen_by=())
    if state.status[event.vessel].aboard is not None:
        return None  # ruling ASC-R-32: a craft lost aboard an unseen hangar is not seen going
    tok = state.tokens.get(obs, {}).get(event.vessel)
    return replace(event, vessel=tok, cause="", seen_by=()) if tok else None


def _redact_shot(event: ShotResolved, obs: str, state: State) -> Event | None:
    if event.vessel is None or event.target is None:
        return event
    firer_side = state.specs[event.vessel].side
    target_side = state.specs[event.target].side
    rolls = event.rolls
    changes: dict[str, Any] = {}
    if obs != target_side:
        rolls = _strip(rolls, hide_target_rules=("ASC-SCR-1", "ASC-SCR-2"))
        changes["screen_after"] = None
    if obs != firer_side and not visible(state, obs, event.vessel):
        rolls = _strip(rolls, drop_rules=("ASC-FIRE-5", "ASC-FIRE-4"))
        # no stats of an unseen firer: which weapon, that it is a submunition launcher or a det missile
        changes.update(weapon=None, launcher_turn=None, firer_destroyed=False)
    firer, target = ref(state, obs, event.vessel), ref(state, obs, event.target)
    if not visible(state, obs, event.target):
        changes.update(strikes=(), screen_after=None)
        rolls = ()
    if firer is None and target is None:
        return None
    return replace(event, vessel=firer, target=target, rolls=rolls, **changes)


REDACTORS: dict[type[Event], Callable[[Any, str, State], Event | None]] = {
    SensorsCommitted: _commit,
    SensorsRevealed: _revealed,
    DetectionAttempted: _detection,
    LockTaken: _lock,
    LocksLost: _locks_lost,
    AllStopped: _all_stopped,
    Moved: _moved,
    Launched: _launched,
    Recovered: _recovered,
    FireDeclared: _declared,
    ShotResolved: _redact_shot,
    DamageTaken: _status,
    BackupTookOver: _status,
    RepairsRolled: _status,
    ContinuingDamage: _status,
    VesselDestroyed: _destroyed,
}


def redact_setup(setup: dict[str, Any], viewer: Viewer) -> dict[str, Any]:
    """The scenario as a non-umpire may see it: own vessels in full, enemies as bogeys at most."""
    obs = observer(viewer)
    if obs is None:
        return setup
    try:
        parsed = msgspec.convert(setup, Setup)
        validate(parsed)
    except (msgspec.ValidationError, InvalidScenario):
        own = [v for v in setup.get("vessels", []) if isinstance(v, dict) and v.get("side") == obs]
        return {k: v for k, v in setup.items() if k != "vessels"} | {"vessels": own, "bogeys": []}
    state = initial_state(parsed)
    own = [v for v in setup.get("vessels", []) if isinstance(v, dict) and v.get("side") == obs]
    bogeys: list[dict[str, Any]] = []
    for vid in state.specs:
        if is_bogey(state, obs, vid):
            h = state.status[vid].hex
            bogeys.append({"bogey": state.tokens[obs][vid], "hex": [h.q, h.r]})
    bogeys.sort(key=lambda b: int(str(b["bogey"]).split("-")[1]))
    return {k: v for k, v in setup.items() if k != "vessels"} | {"vessels": own, "bogeys": bogeys}
