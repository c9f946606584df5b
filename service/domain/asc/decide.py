"""decide: one path per command, each in its rule module. The game-over and spectator guards run before
this, in ``core.guards.guarded_decide``; each path checks whose piece, which phase, then the rule."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.domain.core import Actor, Command, Dice, Event, RuleViolation
from service.domain.core.acc import Acc

from . import commands as C
from .damage_control import repair
from .evolve import evolve
from .fire import declare
from .movement import all_stop, move
from .phases import end_phase, force_phase
from .sensors import commit, detect, lock_on
from .state import State

Path = Callable[[Acc[State], Any, Actor, Dice], None]

PATHS: dict[type[Command], Path] = {
    C.CommitSensors: lambda acc, cmd, actor, _dice: commit(acc, cmd, actor),
    C.Detect: detect,
    C.LockOn: lambda acc, cmd, actor, _dice: lock_on(acc, cmd, actor),
    C.AllStop: lambda acc, cmd, actor, _dice: all_stop(acc, cmd, actor),
    C.Move: lambda acc, cmd, actor, _dice: move(acc, cmd, actor),
    C.Fire: lambda acc, cmd, actor, _dice: declare(acc, cmd, actor),
    C.Repair: repair,
    C.EndPhase: end_phase,
    C.ForcePhase: lambda acc, _cmd, actor, dice: force_phase(acc, actor, dice),
}


def decide(state: State, command: Command, actor: Actor, dice: Dice) -> list[Event]:
    path = PATHS.get(type(command))
    if path is None:
        raise RuleViolation("ASC-SEQ-1", f"unknown command {type(command).__name__}")
    acc: Acc[State] = Acc(state, evolve)
    path(acc, command, actor, dice)
    return acc.events
