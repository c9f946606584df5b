"""Who may take which action when (SF-ROLE-2/4, SF-MOV-4, SF-R-3, the helm order): shared by decide and options."""

from __future__ import annotations

from service.domain.core import Command, RuleViolation, WrongPhase

from . import commands as C
from .flow import in_turn
from .state import ROLE_PHASE, GameState

ROLE_OF: dict[type[Command], str] = {
    C.Patch: "engineer",
    C.Divert: "engineer",
    C.Fire: "gunner",
    C.Encourage: "captain",
    **{k: "pilot" for k in C.MOVES},
    **{k: "science_officer" for k in C.SCIENCE},
}
# who acts out of turn in the helm and gunnery phases, and the rule that says so
SLOT_RULE = {"pilot": "SF-HELM-4", "science_officer": "SF-HELM-5", "gunner": "SF-GUN-1", "captain": "SF-R-3"}


def may_act(state: GameState, kind: type[Command], seat: str) -> None:
    """May this seat take an action of this kind now? Raises the violation naming the rule if not."""
    crew = state.crew[seat]
    ship = state.ships[crew.ship]
    if ship.status == "destroyed":
        raise RuleViolation("SF-DMG-6", f"{crew.ship} is destroyed")
    if ship.status == "disabled":
        raise RuleViolation("SF-MOV-4", f"{crew.ship} is disabled and no longer acts")
    role = ROLE_OF.get(kind)
    if role is not None and crew.role != role:
        raise RuleViolation(
            "SF-ROLE-4", f"{seat} is the {crew.role}: {kind.__struct_config__.tag} is a {role}'s action"
        )
    if crew.role != "captain" and state.phase != ROLE_PHASE[crew.role]:
        raise WrongPhase("SF-ROLE-2", f"the {crew.role} acts in the {ROLE_PHASE[crew.role]} phase, not {state.phase}")
    if crew.acted:
        what = "one captain action per round" if crew.role == "captain" else "one action per round"
        raise RuleViolation("SF-ROLE-2" if crew.role == "captain" else "SF-R-3", f"{seat} has taken its {what}")
    if in_turn(state, crew):
        return  # the action's own rule decides the rest (a gunner with no shot left hears SF-GUN-2 or SF-GUN-3)
    if seat in state.done:
        raise RuleViolation("SF-RND-1", f"{seat} is done with this part of the {state.phase} phase")
    turn = state.slot_ship
    raise RuleViolation(SLOT_RULE[crew.role], f"{crew.ship} acts in the helm order; now it is {turn}'s turn")


def allowed(state: GameState, kind: type[Command], seat: str) -> bool:
    try:
        may_act(state, kind, seat)
    except RuleViolation:
        return False
    return True
