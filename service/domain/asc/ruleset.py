"""The ASC ruleset object: the decider contract wired to the focused modules."""

from __future__ import annotations

from typing import Any

from service.domain.core import Actor, Clock, Command, Dice, Event, RulesetBase, RuleViolation, Viewer

from . import explain as _explain
from . import visibility
from .commands import (
    COMMAND_TYPES,
    AllStop,
    CommitSensors,
    Detect,
    EndPhase,
    Fire,
    ForcePhase,
    LockOn,
    Move,
    Repair,
)
from .damage_control import repair
from .events import EVENT_TYPES
from .evolve import evolve
from .fire import declare
from .movement import all_stop, move
from .options import options
from .phases import end_phase, force_phase
from .sensors import commit, detect, lock_on
from .sight import Out
from .state import State, initial_state
from .vessels import SIDES, Setup, validate


class AscRuleset(RulesetBase):
    name = "asc"
    hidden_information = True  # ASC-HID-1: bogeys, sealed sensor commits and fire declarations
    version = "1.0"
    title = "ASC: 2300AD hex space combat with sensors, sealed commitments and hidden ships"
    setup_type = Setup
    state_type = State
    command_types = COMMAND_TYPES
    event_types = EVENT_TYPES
    scenario_package = "service.domain.asc.scenarios"

    def validate_setup(self, setup: Setup) -> None:
        validate(setup)

    def seats(self, setup: Any) -> list[str]:
        return list(SIDES)

    def initial_state(self, setup: Any) -> State:
        if isinstance(setup, dict):
            setup = self.parse_setup(setup)
        return initial_state(setup)

    def clock(self, state: State) -> Clock:
        return Clock(state.turn, state.phase)

    def is_over(self, state: State) -> bool:
        return state.over

    def decide(self, state: State, command: Command, actor: Actor, dice: Dice) -> list[Event]:
        if actor.kind == "spectator":
            raise RuleViolation("ASC-HID-1", "spectators cannot issue commands")
        if state.over:
            raise RuleViolation("ASC-SEQ-1", "the battle is over")
        out = Out(state)
        if isinstance(command, CommitSensors):
            commit(out, command, actor)
        elif isinstance(command, Detect):
            detect(out, command, actor, dice)
        elif isinstance(command, LockOn):
            lock_on(out, command, actor)
        elif isinstance(command, AllStop):
            all_stop(out, command, actor)
        elif isinstance(command, Move):
            move(out, command, actor)
        elif isinstance(command, Fire):
            declare(out, command, actor)
        elif isinstance(command, Repair):
            repair(out, command, actor, dice)
        elif isinstance(command, EndPhase):
            end_phase(out, command, actor, dice)
        elif isinstance(command, ForcePhase):
            force_phase(out, actor, dice)
        else:
            raise RuleViolation("ASC-SEQ-1", f"unknown command {type(command).__name__}")
        return out.events

    def evolve(self, state: State, event: Event) -> State:
        return evolve(state, event)

    def options(self, state: State, viewer: Viewer) -> list[Command]:
        return options(state, viewer)

    def redact(self, event: Event, viewer: Viewer, state: State) -> Event | None:
        return visibility.redact(event, viewer, state)

    def redact_setup(self, setup: dict[str, Any], viewer: Viewer) -> dict[str, Any]:
        return visibility.redact_setup(setup, viewer)

    def view(self, state: State, viewer: Viewer) -> dict[str, Any]:
        return visibility.view(state, viewer)

    def explain(self, event: Event) -> str:
        return _explain.explain(event)


RULESET = AscRuleset()
