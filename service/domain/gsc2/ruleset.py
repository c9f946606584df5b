"""The GSC2 ruleset the registry loads ("service.domain.gsc2:RULESET"): a declaration naming the parts."""

from __future__ import annotations

from operator import attrgetter

from service.domain.core.bot import RandomBot
from service.domain.core.spec import RulesetSpec

from . import explain, options, view
from .bot import RulesBot
from .commands import COMMANDS
from .decide import decide
from .events import EVENTS
from .evolve import evolve
from .scenario import SAMPLES, Scenario, validate_scenario
from .state import GameState, clock, initial_state


def seats(setup: Scenario) -> list[str]:
    return list(setup.sides)


RULESET: RulesetSpec[GameState, Scenario] = RulesetSpec(
    name="gsc2",
    version="1.0",
    title="GSC2 — space combat with beams, missiles and boarding",
    hidden_information=False,  # everything is on the table: any seat may fork a what-if game
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
    explain=explain.explain,
    bots={"random": RandomBot(), "rules": RulesBot()},
)
