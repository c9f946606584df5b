"""decide: whose piece, which phase, then the rule; one path per command. The game-over and spectator guards
run before, in core.guards.guarded_decide."""

from __future__ import annotations

from service.domain.core import Actor, Command, Dice, Event, NotYourPiece, RuleViolation
from service.domain.core.acc import Acc

from . import commands as C
from .events import Held
from .evolve import evolve
from .gunnery import end_turn_if_done, fire, may_fire
from .state import GameState


def decide(state: GameState, cmd: Command, actor: Actor, dice: Dice) -> list[Event]:
    acc = Acc(state, evolve)
    if isinstance(cmd, C.ForcePhase):
        if not actor.is_umpire:
            raise NotYourPiece("TPL-4", "only the umpire forces the turn on")
        for side in state.sides:
            if side not in acc.state.done:
                acc.add(Held(side=side))
        end_turn_if_done(acc)
        return acc.events
    side = getattr(cmd, "side", "")
    if side not in state.hull:
        raise RuleViolation("TPL-1", f"no side {side!r}")
    if not actor.is_umpire and actor.seat != side:
        raise NotYourPiece("TPL-1", f"{actor.label} cannot act for {side}")
    if isinstance(cmd, C.Fire):
        may_fire(state, side, cmd.target, cmd.power)
        fire(acc, side, cmd.target, cmd.power, dice)
    elif isinstance(cmd, C.Pass):
        if side in state.done:
            raise RuleViolation("TPL-1", f"{side} has already fired or held fire this turn")
        acc.add(Held(side=side))
    else:  # pragma: no cover - every command type is handled above
        raise RuleViolation("TPL-1", f"unknown command {type(cmd).__name__}")
    end_turn_if_done(acc)
    return acc.events
