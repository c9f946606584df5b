"""decide(state, command, actor, dice) on the core skeleton (core.decider): whose seat, which phase, then the
rule; roll, and return the facts, then the automatic steps (``flow.advance``). The game-over and spectator
guards run before, in core.guards.guarded_decide.

Whose piece: every crew command names its ``seat``; a seat's credentials act only for that seat (SF-ROLE-4);
the umpire acts for any seat and alone forces a phase on (SF-R-2). Which phase is the role's rule, not the
command's (SF-ROLE-2: an engineer acts in engineering, a pilot and a science officer in helm, a gunner in
gunnery, the captain in any one phase), so it is checked after the seat's role, in ``roles.may_act``, which
refuses with ``WrongPhase`` (a pilot's fire in engineering is first a pilot firing, SF-ROLE-4); options use
the same check."""

from __future__ import annotations

from typing import Any

from service.domain.core import Actor, Command, Dice, RuleViolation
from service.domain.core.acc import Acc
from service.domain.core.decider import Decider, Path

from . import commands as C
from . import crew as crew_actions
from . import engineering, gunnery, movement
from .events import Passed
from .evolve import evolve
from .flow import advance, force, open_battle, opening_wait
from .roles import may_act
from .state import Crew, GameState

SEAT_RULE = "SF-ROLE-4"
PHASE_RULE = "SF-ROLE-2"


def owner(state: GameState, cmd: Any) -> str | None:
    """The seat a crew command acts for (None: no such seat, which the handler refuses under SF-ROLE-4)."""
    seat = getattr(cmd, "seat", None)
    return seat if seat in state.crew else None


def _crew(state: GameState, cmd: Any) -> Crew:
    crew = state.crew.get(cmd.seat)
    if crew is None:
        raise RuleViolation(SEAT_RULE, f"no crew seat {cmd.seat!r}")
    return crew


def _in_role(state: GameState, cmd: Any) -> Crew:
    crew = _crew(state, cmd)
    if crew.role == "passenger":
        raise RuleViolation("SF-ROLE-1", f"{cmd.seat} is a passenger and acts in no phase")
    return crew


def force_phase(acc: Acc[GameState], cmd: C.ForcePhase, actor: Actor, dice: Dice) -> None:
    open_battle(acc)
    force(acc, dice)


def change_role(acc: Acc[GameState], cmd: C.ChangeRole, actor: Actor, dice: Dice) -> None:
    _crew(acc.state, cmd)
    event = crew_actions.change_role(acc.state, cmd)
    open_battle(acc)
    acc.add(event)  # a role change may be what the game waited for (SF-R-21)


def battle_stations(acc: Acc[GameState], cmd: C.BattleStations, actor: Actor, dice: Dice) -> None:
    crew = _in_role(acc.state, cmd)
    event = crew_actions.battle_stations(acc.state, crew.ship, cmd.seat)
    open_battle(acc)
    acc.add(event)


def pass_(acc: Acc[GameState], cmd: C.Pass, actor: Actor, dice: Dice) -> None:
    state = acc.state
    crew = _in_role(state, cmd)
    if opening_wait(state):
        if not state.ships[crew.ship].active:
            raise RuleViolation("SF-MOV-4", f"{crew.ship} is {state.ships[crew.ship].status}")
        open_battle(acc)  # SF-R-21: the crew begins the battle; the empty engineering phase resolves at once
        return
    may_act(state, C.Pass, cmd.seat)
    open_battle(acc)
    acc.add(Passed(seat=cmd.seat, phase=acc.state.phase))


def _action(act: Any) -> Any:
    """A role's action: the seat in a role, free to act now (roles.may_act), then the action's own rule."""

    def run(acc: Acc[GameState], cmd: Any, actor: Actor, dice: Dice) -> None:
        crew = _in_role(acc.state, cmd)
        may_act(acc.state, type(cmd), cmd.seat)
        open_battle(acc)
        act(acc, cmd, crew.ship, dice)

    return run


def _engineering(acc: Acc[GameState], cmd: Any, ship: str, dice: Dice) -> None:
    acc.add(engineering.declare(acc.state, cmd))


def _science(acc: Acc[GameState], cmd: Any, ship: str, dice: Dice) -> None:
    acc.add(crew_actions.science(acc.state, cmd, dice))


def _fire(acc: Acc[GameState], cmd: C.Fire, ship: str, dice: Dice) -> None:
    gunnery.fire(acc, cmd, dice)


def _encourage(acc: Acc[GameState], cmd: C.Encourage, ship: str, dice: Dice) -> None:
    acc.add(crew_actions.encourage(acc.state, cmd, dice))


PATHS: dict[type[Command], Path[GameState]] = {
    C.ForcePhase: Path(force_phase, umpire_only=True, seat_rule="SF-R-2"),
    C.ChangeRole: Path(change_role),
    C.BattleStations: Path(battle_stations),
    C.Pass: Path(pass_),
    C.Patch: Path(_action(_engineering)),
    C.Divert: Path(_action(_engineering)),
    C.Move: Path(_action(movement.move)),
    C.Evade: Path(_action(movement.move)),
    C.Flyby: Path(_action(movement.move)),
    **{k: Path(_action(movement.stunt)) for k in C.STUNTS if k not in (C.Evade, C.Flyby)},
    **{k: Path(_action(_science)) for k in C.SCIENCE},
    C.Fire: Path(_action(_fire)),
    C.Encourage: Path(_action(_encourage)),
}

DECIDER: Decider[GameState] = Decider(
    paths=PATHS,
    evolve=evolve,
    owner=owner,
    phase=lambda state: state.phase,
    seat_rule=SEAT_RULE,
    phase_rule=PHASE_RULE,
    after=advance,
)
decide = DECIDER
