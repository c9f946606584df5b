"""Who can see which vessel, how a viewer names it, and the decide-side helpers built on that."""

from __future__ import annotations

from service.domain.core import Actor, NotYourPiece, RuleViolation, Viewer

from .scenario import SIDES, stutterwarps
from .state import State, enemy


def observer(viewer: Viewer) -> str | None:
    """None for the umpire (sees all), the side for a seat, "spectator" otherwise."""
    if viewer.is_umpire:
        return None
    if viewer.kind == "seat" and viewer.seat in SIDES:
        return viewer.seat
    return "spectator"


def detected_by(state: State, side: str, vid: str) -> bool:
    """A side has detected a vessel while one of its vessels holds a lock on it, or it radiates (ASC-DET-2)."""
    if vid in state.auto_detected.get(side, ()):
        return True
    for holder, locks in state.locks.items():
        if state.specs[holder].side == side and any(lk.target == vid for lk in locks):
            return True
    return False


def visible(state: State, obs: str | None, vid: str | None) -> bool:
    """ASC-HID-1: may this observer see the vessel's identity, stats, facing and damage?"""
    if obs is None:
        return vid is not None and vid in state.specs
    if vid is None or vid not in state.specs:
        return False
    spec = state.specs[vid]
    if obs == spec.side:
        return True
    if vid in state.wrecks.get(obs, ()):
        return True
    if state.status[vid].destroyed or state.status[vid].aboard is not None:
        return False  # a craft aboard its carrier is not in the battle (ASC-CRAFT-1)
    if obs == "spectator":
        return detected_by(state, enemy(spec.side), vid)
    return detected_by(state, obs, vid)


def seen_by(state: State, vid: str) -> tuple[str, ...]:
    """The observers (sides, spectators) who see the vessel now: who sees it destroyed (ruling ASC-R-17)."""
    return tuple(o for o in (*SIDES, "spectator") if visible(state, o, vid))


def token(state: State, obs: str | None, vid: str) -> str | None:
    if obs is None:
        return None
    return state.tokens.get(obs, {}).get(vid)


def is_bogey(state: State, obs: str | None, vid: str) -> bool:
    """ASC-DET-1: an undetected stutterwarping vessel shows as a bogey (hex only)."""
    spec, st = state.specs[vid], state.status[vid]
    return (
        obs is not None and not visible(state, obs, vid) and stutterwarps(spec) and not st.destroyed and not st.aboard
    )


def ref(state: State, obs: str | None, vid: str | None) -> str | None:
    """How the observer names a vessel: its id if visible, its bogey token, or nothing."""
    if vid is None:
        return None
    if visible(state, obs, vid):
        return vid
    if state.status[vid].aboard is not None:
        return None  # a recovered craft's old token says nothing more (ruling ASC-R-33)
    return token(state, obs, vid)


def resolve(state: State, side: str, name: str, umpire: bool = False) -> str | None:
    """A target named by a side (id of a visible vessel, or a bogey token); None if it names nothing."""
    if name in state.specs and (umpire or visible(state, side, name)):
        return name
    for vid, tok in state.tokens.get(side, {}).items():
        if tok == name and is_bogey(state, side, vid):
            return vid
    return None


def own_vessel(state: State, actor: Actor, vid: str, rule: str, aboard_ok: bool = False) -> str:
    """The side of a further vessel a command names (a stack member, a commit entry); the same 403 for an
    enemy, an undetected or an unknown id (ASC-HID-1)."""
    spec = state.specs.get(vid)
    if not actor.is_umpire and (spec is None or spec.side != actor.seat):
        raise NotYourPiece("ASC-HID-1", f"vessel {vid!r} is not one of yours")
    return live_vessel(state, vid, rule, aboard_ok)


def live_vessel(state: State, vid: str, rule: str, aboard_ok: bool = False) -> str:
    """The side of the vessel a command acts for. Whose piece it is the decide skeleton has checked
    (ASC-HID-1); only the umpire can get here naming a vessel that does not exist."""
    spec = state.specs.get(vid)
    if spec is None:
        raise RuleViolation(rule, f"no vessel {vid!r}")
    st = state.status[vid]
    if st.destroyed:
        raise RuleViolation(rule, f"vessel {vid!r} is destroyed")
    if st.aboard is not None and not aboard_ok:
        raise RuleViolation("ASC-CRAFT-1", f"{vid} is aboard {st.aboard}: launch it first")
    return spec.side


def named_side(side: str, rule: str) -> str:
    """The side a command names (whose side it is the decide skeleton has checked)."""
    if side not in SIDES:
        raise RuleViolation(rule, f"no side {side!r} (advantaged or disadvantaged)")
    return side


def still_in_phase(state: State, side: str) -> None:
    """ASC-SEQ-1: a side that has ended the phase takes no further action in it."""
    if side in state.done:
        label = state.phase.replace("_", " ")
        raise RuleViolation("ASC-SEQ-1", f"the {side} side has ended the {label} phase")
