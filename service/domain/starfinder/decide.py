"""decide(state, command, actor, dice): validate, roll, and return the facts (then the automatic steps)."""

from __future__ import annotations

from service.domain.core import Actor, Command, Dice, Event, NotYourPiece, RuleViolation

from . import commands as C
from . import crew as crew_actions
from . import engineering, gunnery, helm
from .acc import Acc
from .events import Passed
from .evolve import evolve
from .flow import advance, awaited, force
from .state import ROLE_PHASE, GameState

ROLE_OF: dict[type, str] = {C.Patch: "engineer", C.Divert: "engineer", C.Fire: "gunner", C.Encourage: "captain",
                            **{k: "pilot" for k in C.MOVES}, **{k: "science_officer" for k in C.SCIENCE}}
# who acts out of turn in the helm and gunnery phases, and the rule that says so
SLOT_RULE = {"pilot": "SF-HELM-4", "science_officer": "SF-HELM-5", "gunner": "SF-GUN-1", "captain": "SF-R-3"}


def decide(state: GameState, cmd: Command, actor: Actor, dice: Dice) -> list[Event]:
    if state.over:
        raise RuleViolation("SF-RND-1", f"the battle is over: {state.result}")
    if actor.kind not in ("seat", "umpire"):
        raise NotYourPiece("SF-ROLE-4", "spectators issue no commands")
    acc = Acc(state, evolve)
    if isinstance(cmd, C.ForcePhase):
        if not actor.is_umpire:
            raise NotYourPiece("SF-R-2", "only the umpire forces a phase on")
        force(acc, dice)
        return acc.events
    seat = getattr(cmd, "seat", "")
    crew = state.crew.get(seat)
    if crew is None:
        raise RuleViolation("SF-ROLE-4", f"no crew seat {seat!r}")
    if not actor.is_umpire and actor.seat != seat:
        raise NotYourPiece("SF-ROLE-4", f"{actor.label} cannot act for {seat}")
    if isinstance(cmd, C.ChangeRole):
        acc.add(crew_actions.change_role(state, cmd))
        return acc.events
    if crew.role == "passenger":
        raise RuleViolation("SF-ROLE-1", f"{seat} is a passenger and acts in no phase")
    if isinstance(cmd, C.BattleStations):
        acc.add(crew_actions.battle_stations(state, crew.ship, seat))
        return acc.events
    _may_act(state, cmd, seat)
    if isinstance(cmd, C.Pass):
        acc.add(Passed(seat=seat, phase=state.phase))
    elif isinstance(cmd, C.Patch | C.Divert):
        acc.add(engineering.declare(state, cmd))
    elif isinstance(cmd, C.Move | C.Evade | C.Flyby):
        helm.move(acc, cmd, crew.ship, dice)
    elif isinstance(cmd, C.STUNTS):
        helm.stunt(acc, cmd, crew.ship, dice)
    elif isinstance(cmd, C.Scan | C.LockOn | C.Countermeasures):
        acc.add(crew_actions.science(state, cmd, dice))
    elif isinstance(cmd, C.Fire):
        gunnery.fire(acc, cmd, dice)
    elif isinstance(cmd, C.Encourage):
        acc.add(crew_actions.encourage(state, cmd, dice))
    else:  # pragma: no cover - every command type is handled above
        raise RuleViolation("SF-RND-1", f"unknown command {type(cmd).__name__}")
    advance(acc, dice)
    return acc.events


def _may_act(state: GameState, cmd: Command, seat: str) -> None:
    """SF-ROLE-2/4, SF-MOV-4, SF-RND-1 and the helm order: may this seat take this action now?"""
    crew = state.crew[seat]
    ship = state.ships[crew.ship]
    if ship.status == "destroyed":
        raise RuleViolation("SF-DMG-6", f"{crew.ship} is destroyed")
    if ship.status == "disabled":
        raise RuleViolation("SF-MOV-4", f"{crew.ship} is disabled and no longer acts")
    role = ROLE_OF.get(type(cmd))
    if role is not None and crew.role != role:
        raise RuleViolation("SF-ROLE-4", f"{seat} is the {crew.role}: {cmd.__struct_config__.tag} is a {role}'s action")
    if crew.role != "captain" and state.phase != ROLE_PHASE[crew.role]:
        raise RuleViolation("SF-ROLE-2", f"the {crew.role} acts in the {ROLE_PHASE[crew.role]} phase, "
                            f"not {state.phase}")
    if crew.acted:
        what = "one captain action per round" if crew.role == "captain" else "one action per round"
        raise RuleViolation("SF-ROLE-2" if crew.role == "captain" else "SF-R-3", f"{seat} has taken its {what}")
    if seat in awaited(state):
        return
    if seat in state.done:
        raise RuleViolation("SF-RND-1", f"{seat} is done with this part of the {state.phase} phase")
    turn = state.slot_ship
    raise RuleViolation(SLOT_RULE[crew.role], f"{crew.ship} acts in the helm order; now it is {turn}'s turn")
