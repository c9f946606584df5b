"""The Starfinder ruleset the registry loads ("service.domain.starfinder:RULESET"): a declaration naming the
parts."""

from __future__ import annotations

from operator import attrgetter

from service.domain.core import Clock
from service.domain.core.bot import RandomBot
from service.domain.core.spec import RulesetSpec

from . import explain, options, view
from .bot import StarfinderBot
from .commands import COMMANDS
from .decide import decide
from .events import EVENTS
from .evolve import evolve
from .scenario import Scenario, seats, validate_scenario
from .state import GameState, initial_state


def clock(state: GameState) -> Clock:
    return Clock(state.round, state.phase)


RULESET: RulesetSpec[GameState, Scenario] = RulesetSpec(
    name="starfinder",
    version="1.0",
    title="Starfinder starship combat — crews at their stations, hexes, arcs and shields",
    hidden_information=False,  # SF-R-1: the scenario and every sheet are public; any seat may fork
    setup_type=Scenario,
    state_type=GameState,
    command_types=COMMANDS,
    event_types=EVENTS,
    scenario_package="service.domain.starfinder.scenarios",
    validate_setup=validate_scenario,
    seats=seats,
    initial_state=initial_state,
    clock=clock,
    decide=decide,
    evolve=evolve,
    is_over=attrgetter("over"),
    options=options.options,
    forms=options.forms,
    view=view.view,
    draw=view.draw,
    explain=explain.explain,
    bots={"random": RandomBot(), "rules": StarfinderBot()},
)
