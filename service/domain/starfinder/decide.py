"""decide(state, command, actor, dice): whose seat, which phase, then the rule; roll, and return the facts (then
the automatic steps). The game-over and spectator guards run before, in core.guards.guarded_decide."""

from __future__ import annotations

from service.domain.core import Actor, Command, Dice, Event, NotYourPiece, RuleViolation
from service.domain.core.acc import Acc

from . import commands as C
from . import crew as crew_actions
from . import engineering, gunnery, movement
from .events import Passed
from .evolve import evolve
from .flow import advance, force, open_battle, opening_wait
from .roles import may_act
from .state import GameState


def decide(state: GameState, cmd: Command, actor: Actor, dice: Dice) -> list[Event]:
    acc = Acc(state, evolve)
    if isinstance(cmd, C.ForcePhase):
        if not actor.is_umpire:
            raise NotYourPiece("SF-R-2", "only the umpire forces a phase on")
        open_battle(acc)
        force(acc, dice)
        return acc.events
    seat = getattr(cmd, "seat", "")
    crew = state.crew.get(seat)
    if crew is None:
        raise RuleViolation("SF-ROLE-4", f"no crew seat {seat!r}")
    if not actor.is_umpire and actor.seat != seat:
        raise NotYourPiece("SF-ROLE-4", f"{actor.label} cannot act for {seat}")
    if isinstance(cmd, C.ChangeRole):
        event: Event = crew_actions.change_role(state, cmd)
    elif crew.role == "passenger":
        raise RuleViolation("SF-ROLE-1", f"{seat} is a passenger and acts in no phase")
    elif isinstance(cmd, C.BattleStations):
        event = crew_actions.battle_stations(state, crew.ship, seat)
    elif isinstance(cmd, C.Pass) and opening_wait(state):
        if not state.ships[crew.ship].active:
            raise RuleViolation("SF-MOV-4", f"{crew.ship} is {state.ships[crew.ship].status}")
        open_battle(acc)  # SF-R-21: the crew begins the battle; the empty engineering phase resolves at once
        advance(acc, dice)
        return acc.events
    else:
        may_act(state, type(cmd), seat)
        open_battle(acc)
        _act(acc, cmd, seat, crew.ship, dice)
        advance(acc, dice)
        return acc.events
    open_battle(acc)
    acc.add(event)
    advance(acc, dice)  # a role change or battle stations may be what the game waited for (SF-R-21)
    return acc.events


def _act(acc: Acc[GameState], cmd: Command, seat: str, ship: str, dice: Dice) -> None:
    if isinstance(cmd, C.Pass):
        acc.add(Passed(seat=seat, phase=acc.state.phase))
    elif isinstance(cmd, C.Patch | C.Divert):
        acc.add(engineering.declare(acc.state, cmd))
    elif isinstance(cmd, C.Move | C.Evade | C.Flyby):
        movement.move(acc, cmd, ship, dice)
    elif isinstance(cmd, C.STUNTS):
        movement.stunt(acc, cmd, ship, dice)
    elif isinstance(cmd, C.Scan | C.LockOn | C.Countermeasures):
        acc.add(crew_actions.science(acc.state, cmd, dice))
    elif isinstance(cmd, C.Fire):
        gunnery.fire(acc, cmd, dice)
    elif isinstance(cmd, C.Encourage):
        acc.add(crew_actions.encourage(acc.state, cmd, dice))
    else:  # pragma: no cover - every command type is handled above
        raise RuleViolation("SF-RND-1", f"unknown command {type(cmd).__name__}")
