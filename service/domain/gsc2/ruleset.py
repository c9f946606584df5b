"""The GSC2 ruleset object the registry loads ("service.domain.gsc2:RULESET"): it only names the parts."""

from __future__ import annotations

from typing import Any

from service.domain.core import Actor, Clock, Command, Dice, Event, RulesetBase, Viewer
from service.domain.core.bot import RandomBot
from service.domain.core.choices import Form, Option
from service.domain.core.drawing import Drawing

from . import explain as explaining
from . import options as choosing
from . import state as folding
from . import view as viewing
from .bot import RulesBot
from .commands import COMMANDS
from .decide import decide
from .events import EVENTS
from .evolve import evolve
from .scenario import SAMPLES, Scenario, validate_scenario
from .state import GameState


class Gsc2Ruleset(RulesetBase):
    name = "gsc2"
    version = "1.0"
    title = "GSC2 — space combat with beams, missiles and boarding"
    scenario_package = SAMPLES
    hidden_information = False  # everything is on the table: any seat may fork a what-if game
    setup_type = Scenario
    state_type = GameState
    command_types = COMMANDS
    event_types = EVENTS
    bots = {"random": RandomBot(), "rules": RulesBot()}

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
        return explaining.explain(event)
