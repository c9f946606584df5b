"""The template ruleset the registry loads ("tests.support.template:RULESET"): a declaration naming the parts."""

from __future__ import annotations

from operator import attrgetter

from service.domain.core.bot import RandomBot
from service.domain.core.spec import RulesetSpec

from . import options, view
from .bot import TemplateBot
from .commands import COMMANDS
from .decide import decide
from .events import EVENTS
from .evolve import evolve
from .explain import explain
from .scenario import SAMPLES, Scenario, validate_scenario
from .state import GameState, clock, initial_state


def seats(setup: Scenario) -> list[str]:
    return list(setup.sides)


def a_tie_is_a_draw(state: GameState) -> str | None:
    """TPL-3: a game that ends with no ship wrecked (the turn limit) names no winner."""
    if state.over and state.winner is not None and all(h > 0 for h in state.hull.values()):
        return f"{state.winner} wins with no ship wrecked ({state.result})"
    return None


def the_winner_is_afloat(state: GameState) -> str | None:
    """TPL-3: the winner is the side whose ship is not wrecked."""
    if state.winner is not None and state.hull.get(state.winner, 0) <= 0:
        return f"{state.winner} wins with its ship wrecked"
    return None


RULESET: RulesetSpec[GameState, Scenario] = RulesetSpec(
    name="template",
    version="1.0",
    title="Template — two ships trade shots (the smallest ruleset in the common shape)",
    hidden_information=False,  # everything is on the table
    setup_type=Scenario,
    state_type=GameState,
    command_types=COMMANDS,
    event_types=EVENTS,
    scenario_package=SAMPLES,
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
    explain=explain,
    bots={"random": RandomBot(), "rules": TemplateBot()},
    properties={"TPL-3": a_tie_is_a_draw, "TPL-3 winner": the_winner_is_afloat},
)
