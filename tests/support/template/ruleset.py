"""The template ruleset object the registry loads ("tests.support.template:RULESET"): it only names the parts."""

from __future__ import annotations

from typing import Any

from service.domain.core import Actor, Clock, Command, Dice, Event, RulesetBase, Viewer
from service.domain.core.bot import RandomBot
from service.domain.core.choices import Form, Option
from service.domain.core.drawing import Drawing

from . import options as choosing
from . import state as folding
from . import view as viewing
from .bot import TemplateBot
from .commands import COMMANDS
from .decide import decide
from .events import EVENTS
from .evolve import evolve
from .explain import explain
from .scenario import SAMPLES, Scenario, validate_scenario
from .state import GameState


class TemplateRuleset(RulesetBase):
    name = "template"
    version = "1.0"
    title = "Template — two ships trade shots (the smallest ruleset in the common shape)"
    scenario_package = SAMPLES
    hidden_information = False  # everything is on the table
    setup_type = Scenario
    state_type = GameState
    command_types = COMMANDS
    event_types = EVENTS
    bots = {"random": RandomBot(), "rules": TemplateBot()}

    def validate_setup(self, setup: Scenario) -> None:
        validate_scenario(setup)

    def seats(self, setup: Scenario) -> list[str]:
        return list(setup.sides)

    def initial_state(self, setup: Scenario) -> GameState:
        return folding.initial_state(setup)

    def clock(self, state: GameState) -> Clock:
        return folding.clock(state)

    def decide(self, state: GameState, command: Command, actor: Actor, dice: Dice) -> list[Event]:
        return decide(state, command, actor, dice)

    def evolve(self, state: GameState, event: Event) -> GameState:
        return evolve(state, event)

    def options(self, state: GameState, viewer: Viewer) -> list[Option]:
        return choosing.options(state, viewer)

    def forms(self, state: GameState, viewer: Viewer) -> list[Form]:
        return choosing.forms(state, viewer)

    def view(self, state: GameState, viewer: Viewer) -> dict[str, Any]:
        return viewing.view(state, viewer)

    def draw(self, state: GameState, viewer: Viewer) -> Drawing:
        return viewing.draw(state, viewer)

    def is_over(self, state: GameState) -> bool:
        return state.over

    def explain(self, event: Event) -> str:
        return explain(event)
