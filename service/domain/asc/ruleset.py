"""The ASC ruleset object the registry loads ("service.domain.asc:RULESET"): wiring only, no logic."""

from __future__ import annotations

from typing import Any

from service.domain.core import Actor, Clock, Command, Dice, Event, RulesetBase, Viewer
from service.domain.core.bot import RandomBot
from service.domain.core.choices import Form, Option
from service.domain.core.drawing import Drawing

from . import explain as _explain
from . import options as _options
from . import view as _view
from . import visibility
from .bot import AscBot
from .commands import COMMANDS
from .decide import decide
from .events import EVENTS
from .evolve import evolve
from .scenario import SIDES, Setup, validate
from .state import State, initial_state


class AscRuleset(RulesetBase):
    name = "asc"
    hidden_information = True  # ASC-HID-1: bogeys, sealed sensor commits and fire declarations
    version = "1.0"
    title = "ASC: 2300AD hex space combat with sensors, sealed commitments and hidden ships"
    setup_type = Setup
    state_type = State
    command_types = COMMANDS
    event_types = EVENTS
    scenario_package = "service.domain.asc.scenarios"
    bots = {"random": RandomBot(), "rules": AscBot()}

    def validate_setup(self, setup: Setup) -> None:
        validate(setup)

    def seats(self, setup: Setup) -> list[str]:
        return list(SIDES)

    def initial_state(self, setup: Setup) -> State:
        return initial_state(setup)

    def clock(self, state: State) -> Clock:
        return Clock(state.turn, state.phase)

    def is_over(self, state: State) -> bool:
        return state.over

    def result(self, state: State) -> str | None:
        return state.result

    def decide(self, state: State, command: Command, actor: Actor, dice: Dice) -> list[Event]:
        return decide(state, command, actor, dice)

    def evolve(self, state: State, event: Event) -> State:
        return evolve(state, event)

    def options(self, state: State, viewer: Viewer) -> list[Option]:
        return _options.options(state, viewer)

    def forms(self, state: State, viewer: Viewer) -> list[Form]:
        return _options.forms(state, viewer)

    def redact(self, event: Event, viewer: Viewer, state: State) -> Event | None:
        return visibility.redact(event, viewer, state)

    def redact_setup(self, setup: dict[str, Any], viewer: Viewer) -> dict[str, Any]:
        return visibility.redact_setup(setup, viewer)

    def view(self, state: State, viewer: Viewer) -> dict[str, Any]:
        return _view.view(state, viewer)

    def draw(self, state: State, viewer: Viewer) -> Drawing:
        return _view.draw(state, viewer)

    def explain(self, event: Event) -> str:
        return _explain.explain(event)


RULESET = AscRuleset()
