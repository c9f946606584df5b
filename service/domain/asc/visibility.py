"""Per-viewer redaction of events, setups and state views (ASC-HID-1, ASC-HID-2)."""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec.structs import replace

from service.domain.core import Event, InvalidScenario, Roll, Viewer

from .condition import at_all_stop, major_breach, minor_breach, passive_signature, power_shutdown
from .events import (
    AllStopped,
    BackupTookOver,
    ContinuingDamage,
    DamageTaken,
    DetectionAttempted,
    FireDeclared,
    LockRef,
    LocksLost,
    LockTaken,
    Moved,
    RepairsRolled,
    SensorsCommitted,
    SensorsRevealed,
    ShotResolved,
    VesselDestroyed,
)
from .sight import detected_by, is_bogey, observer, ref, visible
from .state import CommitEntry, State, enemy, initial_state
from .vessels import SIDES, Setup, movement_allowance, validate


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
    obs = observer(viewer)
    if obs is None:
        return event
    if isinstance(event, SensorsCommitted):
        return event if obs == event.side else replace(event, entries=None)
    if isinstance(event, SensorsRevealed):
        entries = []
        for e in event.entries:
            if e.vessel not in state.specs:
                continue
            if state.specs[e.vessel].side == obs:
                entries.append(e)
            elif e.active and visible(state, obs, e.vessel):
                entries.append(CommitEntry(vessel=e.vessel, active=True, screen=None))
        return replace(event, entries=tuple(entries))
    if isinstance(event, DetectionAttempted):
        if obs == event.side:
            if event.target is not None and visible(state, obs, event.target):
                return event
            shown_target = ref(state, obs, event.target)
            rolls = _strip(event.rolls, ("ASC-DET-4",))
            if shown_target is None:
                # a failed hex scan on a hidden non-bogey reads exactly like a scan of an empty hex
                rolls = tuple(replace(r, outcome="nothing found") if r.rule == "ASC-DET-3" else r for r in rolls)
            return replace(event, target=shown_target, rolls=rolls)
        if not event.success:
            return None  # ruling ASC-R-3: only the searching side learns of a failed attempt
        shown = visible(state, obs, event.vessel)
        return replace(
            event, vessel=ref(state, obs, event.vessel), sensor=event.sensor if shown else None,
            target=ref(state, obs, event.target), rating=event.rating if shown else 0,
            rolls=event.rolls if shown else (),
        )
    if isinstance(event, LockTaken):
        holder, target = ref(state, obs, event.vessel), ref(state, obs, event.target)
        if holder is None and target is None:
            return None
        shown = visible(state, obs, event.vessel)
        return replace(event, vessel=holder, target=target, rating=event.rating if shown else 0)
    if isinstance(event, LocksLost):
        losses = []
        for loss in event.losses:
            v, t = ref(state, obs, loss.vessel), ref(state, obs, loss.target)
            if v is not None or t is not None:
                losses.append(LockRef(vessel=v, target=t))
        return replace(event, losses=tuple(losses)) if losses else None
    if isinstance(event, AllStopped):
        return event if visible(state, obs, event.vessel) else None
    if isinstance(event, Moved):
        if visible(state, obs, event.vessel):
            return event
        if is_bogey(state, obs, event.vessel):
            return replace(event, vessel=state.tokens[obs][event.vessel], facing=None, path=None)
        return None
    if isinstance(event, FireDeclared):
        return event if obs == event.declaration.side else None  # sealed until resolved (ASC-R-4)
    if isinstance(event, ShotResolved):
        return _redact_shot(event, obs, state)
    if isinstance(event, DamageTaken | BackupTookOver | RepairsRolled | ContinuingDamage):
        if not visible(state, obs, event.vessel):
            return None
        if state.specs[event.vessel].side == obs:
            return event
        return replace(event, status=replace(event.status, screen=None))
    if isinstance(event, VesselDestroyed):
        if visible(state, obs, event.vessel):
            return replace(event, seen_by=())
        tok = state.tokens.get(obs, {}).get(event.vessel)
        return replace(event, vessel=tok, cause="", seen_by=()) if tok else None
    return event


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


# ------------------------------------------------------------------------------------------- views


def _builtins(obj: Any) -> Any:
    return msgspec.to_builtins(obj)


def vessel_view(state: State, vid: str, owner: bool, obs: str | None) -> dict[str, Any]:
    spec, st = state.specs[vid], state.status[vid]
    status = _builtins(st)
    sheet = _builtins(spec)
    if not owner and spec.controller is not None:
        sheet["controller"] = ref(state, obs, spec.controller)  # a hidden controller stays hidden
    derived: dict[str, Any] = {
        "movement_allowance": movement_allowance(spec),
        "minor_breach": minor_breach(spec, st),
        "major_breach": major_breach(spec, st),
        "power_shutdown": power_shutdown(spec, st),
        "all_stop_effects": at_all_stop(spec, st),
    }
    if owner:
        derived["passive_signature"] = passive_signature(spec, st)
    else:
        status.pop("screen", None)  # screen settings are known only to their owner (ASC-SEQ-2)
    return {
        "id": vid, "name": spec.name, "side": spec.side, "kind": spec.kind,
        "hex": [st.hex.q, st.hex.r], "facing": st.facing, "destroyed": st.destroyed,
        "spec": sheet, "status": status, "derived": derived,
    }


def view(state: State, viewer: Viewer) -> dict[str, Any]:
    obs = observer(viewer)
    vessels = []
    bogeys: list[dict[str, Any]] = []
    for vid in state.specs:
        if visible(state, obs, vid):
            owner = obs is None or state.specs[vid].side == obs
            vessels.append(vessel_view(state, vid, owner, obs))
        elif is_bogey(state, obs, vid):
            h = state.status[vid].hex
            bogeys.append({"bogey": state.tokens[obs or ""][vid], "hex": [h.q, h.r]})
    bogeys.sort(key=lambda b: int(str(b["bogey"]).split("-")[1]))
    locks = []
    for holder, ls in sorted(state.locks.items()):
        hs = state.specs[holder].side
        if obs is None or obs == hs or (obs == "spectator" and visible(state, obs, holder)):
            locks += [{"vessel": holder, "target": ref(state, obs, lk.target)} for lk in ls]
    out: dict[str, Any] = {
        "ruleset": "asc",
        "scenario": state.scenario,
        "turn": state.turn,
        "phase": state.phase,
        "viewer": viewer.label,
        "map": {"radius": state.map_radius, "planet_hexes": [[h.q, h.r] for h in state.planet_hexes]},
        "sides": {s: {"name": state.side_names.get(s, s), "done": s in state.done,
                      "committed": s in state.commits} for s in SIDES},
        "pending_commitments": [s for s in SIDES if s not in state.commits] if state.phase == "sensors" else [],
        "vessels": vessels,
        "bogeys": bogeys,
        "locks": locks,
        "over": state.over,
        "winner": state.winner,
    }
    if obs in SIDES:
        out["side"] = obs
        out["detected_by_enemy"] = sorted(
            v for v in state.specs if state.specs[v].side == obs and detected_by(state, enemy(obs), v)
        )
        out["my_commitment"] = _builtins(state.commits.get(obs, ()))
        out["my_fire_declarations"] = _builtins(tuple(d for d in state.declarations if d.side == obs))
    elif obs is None:
        out["commitments"] = _builtins(state.commits)
        out["fire_declarations"] = _builtins(state.declarations)
        out["pending_damage"] = _builtins(state.pending)
    return out


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
