"""Small craft: fighters and drones launched from a carrier's hangar as vessels of their own, controlled
and recovered (ASC-CRAFT-1..3, rulings ASC-R-28..34). Once launched a craft moves, senses, is detected and
fires like any other vessel; aboard, it takes no part in the battle."""

from __future__ import annotations

from service.domain.core import Actor, RuleViolation
from service.domain.core.acc import Acc

from .commands import Launch, Recover
from .condition import controls
from .events import Launched, Recovered
from .sensors import audit_locks
from .sight import live_vessel, own_vessel
from .state import State


def aboard(state: State, carrier: str) -> list[str]:
    """The craft in the carrier's hangar, in id order."""
    return sorted(v for v, st in state.status.items() if st.aboard == carrier and not st.destroyed)


def grounded(state: State, carrier: str) -> list[str]:
    """Ruling ASC-R-31: each hangar hit grounds one craft (the carrier's ``small_craft`` count falls by one,
    ASC-DMG-4); the grounded ones are the craft aboard last in id order."""
    hits = state.specs[carrier].small_craft - state.status[carrier].small_craft
    inside = aboard(state, carrier)
    return inside[len(inside) - hits :] if hits > 0 else []


def hangar_uses_left(state: State, carrier: str) -> int:
    """Ruling ASC-R-28: one launch or recovery per working hangar per movement phase (ASC-DMG-4: a hangar
    hit stops launches until repaired)."""
    spec, st = state.specs[carrier], state.status[carrier]
    working = spec.hangars - st.hangars_out
    return working - state.hangar_uses.count(carrier)


def _own_movement_phase(state: State, side: str, rule: str) -> None:
    if state.phase != f"{side}_movement":
        raise RuleViolation(rule, f"the {side} side launches and recovers only in its own movement phase")


def check_launch(state: State, cmd: Launch, actor: Actor) -> str:
    side = live_vessel(state, cmd.vessel, "ASC-CRAFT-1")
    _own_movement_phase(state, side, "ASC-CRAFT-1")
    own_vessel(state, actor, cmd.craft, "ASC-CRAFT-1", aboard_ok=True)
    if state.status[cmd.craft].aboard != cmd.vessel:
        raise RuleViolation("ASC-CRAFT-1", f"{cmd.craft} is not aboard {cmd.vessel}")
    if state.status[cmd.vessel].hangars_out >= state.specs[cmd.vessel].hangars:
        raise RuleViolation("ASC-DMG-4", f"{cmd.vessel}'s hangar is hit: no launches until it is repaired")
    if hangar_uses_left(state, cmd.vessel) <= 0:
        raise RuleViolation("ASC-R-28", f"{cmd.vessel}'s hangars have launched or recovered all they can this phase")
    if cmd.craft in grounded(state, cmd.vessel):
        raise RuleViolation("ASC-R-31", f"{cmd.craft} is grounded: damaged in the hangar and unflyable")
    return side


def launch(out: Acc[State], cmd: Launch, actor: Actor) -> None:
    check_launch(out.state, cmd, actor)
    st = out.state.status[cmd.vessel]
    out.add(Launched(vessel=cmd.vessel, craft=cmd.craft, hex=st.hex, facing=st.facing))


def check_recover(state: State, cmd: Recover, actor: Actor) -> str:
    side = live_vessel(state, cmd.vessel, "ASC-CRAFT-1")
    _own_movement_phase(state, side, "ASC-R-30")
    carrier = state.specs[cmd.vessel].carried_by
    if carrier is None:
        raise RuleViolation("ASC-R-30", f"{cmd.vessel} is not a small craft: it has no hangar to go back to")
    cst = state.status[carrier]
    if cst.destroyed:
        raise RuleViolation("ASC-R-30", f"{cmd.vessel}'s carrier {carrier} is destroyed")
    if cst.hex != state.status[cmd.vessel].hex:
        raise RuleViolation("ASC-R-30", f"{cmd.vessel} must be in {carrier}'s hex to be recovered")
    if cst.hangars_out >= state.specs[carrier].hangars:
        raise RuleViolation("ASC-DMG-4", f"{carrier}'s hangar is hit: no recoveries until it is repaired")
    if hangar_uses_left(state, carrier) <= 0:
        raise RuleViolation("ASC-R-28", f"{carrier}'s hangars have launched or recovered all they can this phase")
    if state.specs[cmd.vessel].controller is not None and not controls(state, carrier, cmd.vessel):
        raise RuleViolation("ASC-CRAFT-2", f"{cmd.vessel} is not under control: it cannot fly into the hangar")
    return side


def recover(out: Acc[State], cmd: Recover, actor: Actor) -> None:
    check_recover(out.state, cmd, actor)
    carrier = out.state.specs[cmd.vessel].carried_by
    assert carrier is not None
    out.add(Recovered(vessel=carrier, craft=cmd.vessel))
    audit_locks(out, "a small craft went back aboard its carrier")
