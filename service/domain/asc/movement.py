"""Movement phases: All Stop, moves with manoeuvre-class turn costs, stacks (ASC-MOV)."""

from __future__ import annotations

import heapq
from fractions import Fraction

from service.domain.core import Actor, RuleViolation
from service.domain.core.acc import Acc
from service.domain.core.hexgrid import Hex

from .commands import AllStop, Move
from .condition import can_drive, controls
from .events import AllStopped, Moved
from .paths import steps_for, trace
from .scenario import TURN_COST, movement_allowance, stutterwarps
from .sensors import audit_locks
from .sight import live_vessel, own_vessel
from .state import State


def _movement_side(state: State, side: str) -> None:
    if state.phase != f"{side}_movement":
        raise RuleViolation("ASC-MOV-2", f"the {side} side moves only in its own movement phase, not {state.phase}")


def check_all_stop(state: State, cmd: AllStop, actor: Actor) -> str:
    side = live_vessel(state, cmd.vessel, "ASC-MOV-4")
    _movement_side(state, side)
    if cmd.vessel in state.moved:
        raise RuleViolation("ASC-MOV-4", f"{cmd.vessel} has already moved; All Stop is declared before moving")
    if not 0 <= cmd.facing <= 5:
        raise RuleViolation("ASC-MOV-4", "facing must be 0..5")
    spec, st = state.specs[cmd.vessel], state.status[cmd.vessel]
    if cmd.facing != st.facing:
        if not stutterwarps(spec):
            raise RuleViolation("ASC-MOV-1", f"{cmd.vessel} has no stardrive and cannot turn")
        ok, rule, why = can_drive(spec, st)
        if not ok:
            raise RuleViolation(rule, f"{cmd.vessel} cannot turn: {why}")
        if st.bridge_out:
            raise RuleViolation("ASC-MOV-5", f"{cmd.vessel}'s bridge is destroyed: no course changes")
    return side


def all_stop(out: Acc[State], cmd: AllStop, actor: Actor) -> None:
    check_all_stop(out.state, cmd, actor)
    out.add(AllStopped(vessel=cmd.vessel, facing=cmd.facing))


def path_cost(path: tuple[str, ...], turn_cost: Fraction) -> Fraction:
    """ASC-MOV-2: one point per hex forward, the class's cost per hexside turned; fractions accumulate."""
    return sum((Fraction(1) if step == "F" else turn_cost for step in path), Fraction(0))


def group_limits(state: State, group: list[str]) -> tuple[int, Fraction]:
    """ASC-MOV-3: a stack moves at its slowest member's MA and least manoeuvrable class."""
    ma = min(movement_allowance(state.specs[v]) for v in group)
    cost = max(TURN_COST[state.specs[v].manoeuvre] for v in group)
    return ma, cost


def steps_of(state: State, cmd: Move) -> tuple[str, ...]:
    """The move's steps: its ``path``, or the cheapest turns and steps through its ``hexes`` to ``facing``."""
    if not cmd.hexes and cmd.facing is None:
        return tuple(cmd.path)
    if cmd.path:
        raise RuleViolation("ASC-MOV-2", "give either a path of steps or hexes (and a facing), not both")
    if cmd.facing is not None and not 0 <= cmd.facing <= 5:
        raise RuleViolation("ASC-MOV-2", "facing must be 0..5")
    st = state.status[cmd.vessel]
    steps = steps_for(st.hex, st.facing, cmd.hexes, cmd.facing)
    if isinstance(steps, int):
        h = cmd.hexes[steps + (1 if cmd.hexes[0] == st.hex else 0)]
        raise RuleViolation("ASC-MOV-2", f"hex {h.q},{h.r} is not adjacent to the hex before it on the path")
    return steps


def check_move(state: State, cmd: Move, actor: Actor) -> tuple[str, list[str], tuple[str, ...]]:
    side = live_vessel(state, cmd.vessel, "ASC-MOV-2")
    _movement_side(state, side)
    path = steps_of(state, cmd)
    group = _stack(state, cmd, actor, side)
    for v in group:
        if v in state.moved and state.status[v].all_stop:
            raise RuleViolation("ASC-MOV-4", f"{v} is at All Stop: movement allowance 0")
        if v in state.moved:
            raise RuleViolation("ASC-MOV-3", f"{v} has already completed its move this phase")
    if path:
        for v in group:
            _can_move(state, v, path)
    ma, turn_cost = group_limits(state, group)
    cost = path_cost(path, turn_cost)
    if cost > ma:
        raise RuleViolation("ASC-MOV-2", f"that path costs {cost} movement points; the allowance is {ma}")
    start = state.status[cmd.vessel]
    hexes, _ = trace(start.hex, start.facing, path)
    for h in hexes:
        if h.distance_to(Hex(0, 0)) > state.map_radius:
            raise RuleViolation("ASC-MOV-2", f"the path leaves the map at {h.q},{h.r} (ruling ASC-R-6)")
    return side, group, path


def _stack(state: State, cmd: Move, actor: Actor, side: str) -> list[str]:
    """ASC-MOV-3: the vessel and the others of its side in the same hex and facing moving with it."""
    group = [cmd.vessel]
    for other in cmd.stack:
        own_vessel(state, actor, other, "ASC-MOV-3")
        if state.specs[other].side != side or other in group:
            raise RuleViolation("ASC-MOV-3", f"{other!r} cannot be stacked with {cmd.vessel}")
        if (
            state.status[other].hex != state.status[cmd.vessel].hex
            or state.status[other].facing != state.status[cmd.vessel].facing
        ):
            raise RuleViolation("ASC-MOV-3", f"{other} is not stacked with {cmd.vessel} (same hex and facing)")
        group.append(other)
    return group


def _can_move(state: State, v: str, path: tuple[str, ...]) -> None:
    """A stardrive (ASC-MOV-1), a working drive, power and computer (ASC-MOV-5, ASC-DMG-4), control for a
    remote (ASC-CRAFT-2), and a bridge for any turn (ASC-MOV-5)."""
    spec, st = state.specs[v], state.status[v]
    if not stutterwarps(spec):
        raise RuleViolation("ASC-MOV-1", f"{v} has no stardrive: movement allowance 0")
    ok, rule, why = can_drive(spec, st)
    if not ok:
        raise RuleViolation(rule, f"{v} cannot move: {why}")
    if spec.controller is not None and not controls(state, spec.controller, v):
        raise RuleViolation("ASC-CRAFT-2", f"{v} is not under control: a remote moves only under control")
    if st.bridge_out and any(step != "F" for step in path):
        raise RuleViolation("ASC-MOV-5", f"{v}'s bridge is destroyed: it may only move straight ahead")


def move(out: Acc[State], cmd: Move, actor: Actor) -> None:
    _, group, path = check_move(out.state, cmd, actor)
    st = out.state.status[cmd.vessel]
    hexes, facing = trace(st.hex, st.facing, path)
    for v in group:
        out.add(Moved(vessel=v, hex=hexes[-1], facing=facing, path=path))
    audit_locks(out, "out of sensor range after movement")


def reachable(state: State, vessel: str) -> dict[tuple[Hex, int], tuple[str, ...]]:
    """The cheapest path to every (hex, facing) the vessel can end on this phase (for options)."""
    st = state.status[vessel]
    ma, turn_cost = group_limits(state, [vessel])
    best: dict[tuple[Hex, int], Fraction] = {(st.hex, st.facing): Fraction(0)}
    paths: dict[tuple[Hex, int], tuple[str, ...]] = {(st.hex, st.facing): ()}
    heap: list[tuple[Fraction, int, Hex, int]] = [(Fraction(0), 0, st.hex, st.facing)]
    counter = 1
    while heap:
        cost, _, h, f = heapq.heappop(heap)
        if cost > best.get((h, f), cost):
            continue
        for step in ("F", "L", "R"):
            if step == "F":
                nh, nf, nc = h.neighbour(f), f, cost + 1
                if nh.distance_to(Hex(0, 0)) > state.map_radius:
                    continue
            else:
                nh, nf, nc = h, (f + (1 if step == "R" else -1)) % 6, cost + turn_cost
            if nc > ma or nc >= best.get((nh, nf), Fraction(10**6)):
                continue
            best[(nh, nf)] = nc
            paths[(nh, nf)] = (*paths[(h, f)], step)
            heapq.heappush(heap, (nc, counter, nh, nf))
            counter += 1
    return paths
