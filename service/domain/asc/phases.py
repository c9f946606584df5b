"""The six-phase turn (ASC-SEQ-1): who must end each phase and what happens when it changes."""

from __future__ import annotations

from service.domain.core import Actor, Dice, RuleViolation
from service.domain.core.acc import Acc

from .commands import EndPhase
from .damage_control import close_phase, open_phase
from .events import GameEnded, PhaseChanged, PhaseEnded, SensorsCommitted
from .fire import resolve_fire
from .scenario import SIDES
from .sensors import default_commit, reveal
from .sight import named_side
from .state import State, vessels_of


def enders(state: State) -> tuple[str, ...]:
    """The sides that must end the current phase before it changes."""
    if state.phase == "disadvantaged_movement":
        return ("disadvantaged",)
    if state.phase == "advantaged_movement":
        return ("advantaged",)
    return SIDES


def check_end(state: State, cmd: EndPhase, actor: Actor) -> str:
    side = named_side(cmd.side, "ASC-SEQ-1")
    if state.phase == "sensors":
        raise RuleViolation("ASC-SEQ-2", "the sensor commit phase ends when both sides have committed")
    if side not in enders(state):
        raise RuleViolation("ASC-SEQ-1", f"it is not the {side} side's phase ({state.phase})")
    if side in state.done:
        raise RuleViolation("ASC-SEQ-1", f"the {side} side has already ended the {state.phase} phase")
    return side


def end_phase(out: Acc[State], cmd: EndPhase, actor: Actor, dice: Dice) -> None:
    side = check_end(out.state, cmd, actor)
    out.add(PhaseEnded(side=side))
    if all(s in out.state.done for s in enders(out.state)):
        advance(out, dice)


def force_phase(out: Acc[State], dice: Dice) -> None:
    """Umpire only (the decide skeleton refuses a seat, ASC-SEQ-1)."""
    if out.state.phase == "sensors":
        for side in SIDES:
            if side not in out.state.commits:
                out.add(SensorsCommitted(side=side, entries=default_commit(out.state, side)))
        reveal(out)
        return
    for side in enders(out.state):
        if side not in out.state.done:
            out.add(PhaseEnded(side=side))
    advance(out, dice)


def advance(out: Acc[State], dice: Dice) -> None:
    state = out.state
    turn, phase = state.turn, state.phase
    if phase == "detection":
        out.add(PhaseChanged(turn=turn, phase="disadvantaged_movement"))
    elif phase == "disadvantaged_movement":
        out.add(PhaseChanged(turn=turn, phase="advantaged_movement"))
    elif phase == "advantaged_movement":
        out.add(PhaseChanged(turn=turn, phase="fire"))
    elif phase == "fire":
        resolve_fire(out, dice)
        out.add(PhaseChanged(turn=turn, phase="damage_control"))
        open_phase(out)
    elif phase == "damage_control":
        close_phase(out)
        ended = game_result(out.state)
        if ended is not None:
            out.add(ended)
        else:
            out.add(PhaseChanged(turn=turn + 1, phase="sensors"))


def _counts(state: State, vid: str) -> bool:
    """A starship that is not a small craft (ruling ASC-R-32: fighters do not hold the field alone)."""
    spec = state.specs[vid]
    return spec.kind == "starship" and spec.carried_by is None


def game_result(state: State) -> GameEnded | None:
    """Over when a side has no starship (small craft aside, ruling ASC-R-32) left, or after the scenario's last
    turn, won by the side the scenario names for it, if any (ruling ASC-R-8)."""
    fleets = {s: [v for v in vessels_of(state, s) if _counts(state, v)] for s in SIDES}
    if not fleets["advantaged"] and not fleets["disadvantaged"]:
        return GameEnded(winner=None, reason="no starship survives on either side")
    for s in SIDES:
        if not fleets[s]:
            other = "disadvantaged" if s == "advantaged" else "advantaged"
            return GameEnded(winner=other, reason=f"the {s} side has no starship left")
    if state.turn >= state.turn_limit:
        winner = state.turn_limit_winner
        held = f": the {state.side_names.get(winner, winner)} hold out" if winner else ""
        return GameEnded(winner=winner, reason=f"turn limit {state.turn_limit} reached{held}")
    return None
