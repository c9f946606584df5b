"""decide: the core decide skeleton (core.decider) with one path per command, each handled in its rule
module. The game-over and spectator guards run before this (``core.guards.guarded_decide``); the
skeleton then refuses an unknown command (UNKNOWN-COMMAND), a piece that is not the seat's (ASC-HID-1)
and a command out of its phase, before the handler checks its own rule.

Hidden information (ASC-HID-1): a seat naming a vessel that does not exist is refused exactly as when it
names an enemy vessel (the same 403, rule and words), so a refusal never tells a seat that a vessel it
cannot see exists."""

from __future__ import annotations

from typing import Any

from service.domain.core import Actor, Command, Dice, Event, NotYourPiece
from service.domain.core.decider import Decider, Path

from . import commands as C
from .damage_control import repair
from .evolve import evolve
from .fire import declare
from .movement import all_stop, move
from .phases import end_phase, force_phase
from .scenario import SIDES
from .sensors import commit, detect, lock_on
from .smallcraft import launch, recover
from .state import State, enemy

SEAT_RULE = "ASC-HID-1"
MOVEMENT = ("disadvantaged_movement", "advantaged_movement")


def owner(state: State, cmd: Any) -> str | None:
    """The side whose piece the command uses: the side it names, or the side of the vessel it names
    (None when it names no such side or vessel: the handler then says what is missing)."""
    if isinstance(cmd, (C.CommitSensors, C.EndPhase)):
        return cmd.side if cmd.side in SIDES else None
    spec = state.specs.get(getattr(cmd, "vessel", ""))
    return spec.side if spec is not None else None


PATHS: dict[type[Command], Path[State]] = {
    C.CommitSensors: Path(lambda acc, cmd, actor, _d: commit(acc, cmd, actor), ("sensors",), "ASC-SEQ-1"),
    C.Detect: Path(detect, ("detection",), "ASC-SEQ-1"),
    C.LockOn: Path(lambda acc, cmd, actor, _d: lock_on(acc, cmd, actor), ("detection", "fire"), "ASC-SEQ-1"),
    C.AllStop: Path(lambda acc, cmd, actor, _d: all_stop(acc, cmd, actor), MOVEMENT, "ASC-MOV-2"),
    C.Move: Path(lambda acc, cmd, actor, _d: move(acc, cmd, actor), MOVEMENT, "ASC-MOV-2"),
    C.Launch: Path(lambda acc, cmd, actor, _d: launch(acc, cmd, actor), MOVEMENT, "ASC-CRAFT-1"),
    C.Recover: Path(lambda acc, cmd, actor, _d: recover(acc, cmd, actor), MOVEMENT, "ASC-R-30"),
    C.Fire: Path(lambda acc, cmd, actor, _d: declare(acc, cmd, actor), ("fire",), "ASC-FIRE-1"),
    C.Repair: Path(repair, ("damage_control",), "ASC-DC-1"),
    C.EndPhase: Path(end_phase),
    C.ForcePhase: Path(lambda acc, _cmd, _actor, dice: force_phase(acc, dice), umpire_only=True, seat_rule="ASC-SEQ-1"),
}

DECIDER: Decider[State] = Decider(
    paths=PATHS,
    evolve=evolve,
    owner=owner,
    phase=lambda state: state.phase,
    seat_rule=SEAT_RULE,
    phase_rule="ASC-SEQ-1",
)


def decide(state: State, command: Command, actor: Actor, dice: Dice) -> list[Event]:
    """``DECIDER``, after refusing a seat's unknown vessel id as the skeleton refuses an enemy's."""
    if not actor.is_umpire and type(command) in PATHS and owner(state, command) is None:
        vid = getattr(command, "vessel", None)
        if isinstance(vid, str) and actor.seat in SIDES:
            raise NotYourPiece(SEAT_RULE, f"{actor.label} cannot act for {enemy(actor.seat)}")
    return DECIDER(state, command, actor, dice)
