"""The Starfinder ruleset object the registry loads ("service.domain.starfinder:RULESET"): it only names the parts."""

from __future__ import annotations

from typing import Any

from service.domain.core import Actor, Clock, Command, Dice, Event, RulesetBase, Viewer
from service.domain.core.bot import RandomBot
from service.domain.core.choices import Form, Option
from service.domain.core.drawing import Drawing

from .bot import StarfinderBot
from .commands import COMMANDS
from .decide import decide
from .events import EVENTS
from .evolve import evolve
from .explain import explain
from .options import forms, options
from .scenario import Scenario, seats, validate_scenario
from .state import GameState, initial_state
from .view import draw, view


class StarfinderRuleset(RulesetBase):
    name = "starfinder"
    version = "1.0"
    title = "Starfinder starship combat — crews at their stations, hexes, arcs and shields"
    scenario_package = "service.domain.starfinder.scenarios"
    hidden_information = False  # SF-R-1: the scenario and every sheet are public; any seat may fork
    setup_type = Scenario
    state_type = GameState
    command_types = COMMANDS
    event_types = EVENTS
    bots = {"random": RandomBot(), "rules": StarfinderBot()}

    def validate_setup(self, setup: Scenario) -> None:
        validate_scenario(setup)

    def seats(self, setup: Scenario) -> list[str]:
        return seats(setup)

    def initial_state(self, setup: Scenario) -> GameState:
        return initial_state(setup)

    def clock(self, state: GameState) -> Clock:
        return Clock(state.round, state.phase)

    def decide(self, state: GameState, command: Command, actor: Actor, dice: Dice) -> list[Event]:
        return decide(state, command, actor, dice)

    def evolve(self, state: GameState, event: Event) -> GameState:
        return evolve(state, event)

    def options(self, state: GameState, viewer: Viewer) -> list[Option]:
        return options(state, viewer)

    def forms(self, state: GameState, viewer: Viewer) -> list[Form]:
        return forms(state, viewer)

    def draw(self, state: GameState, viewer: Viewer) -> Drawing:
        return draw(state, viewer)

    def view(self, state: GameState, viewer: Viewer) -> dict[str, Any]:
        return view(state, viewer)

    def is_over(self, state: GameState) -> bool:
        return state.over

    def explain(self, event: Event) -> str:
        return explain(event)
