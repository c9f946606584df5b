"""The ASC ruleset the registry loads ("service.domain.asc:RULESET"): a declaration naming the parts."""

from __future__ import annotations

from operator import attrgetter

from service.domain.core import Clock, Viewer
from service.domain.core.bot import RandomBot
from service.domain.core.spec import RulesetSpec

from . import explain, options, sight, view, visibility
from .bot import AscBot
from .commands import COMMANDS
from .decide import decide
from .events import EVENTS
from .evolve import evolve
from .scenario import SIDES, Setup, validate
from .state import State, initial_state


def seats(setup: Setup) -> list[str]:
    return list(SIDES)


def secrets(state: State, viewer: Viewer) -> list[str]:
    """ASC-HID-1: the ids and names of the vessels this viewer cannot see now (the conformance kit looks
    for them in everything the viewer is served)."""
    obs = sight.observer(viewer)
    hidden = [vid for vid in state.specs if not sight.visible(state, obs, vid)]
    return [*hidden, *(state.specs[vid].name for vid in hidden)]


def clock(state: State) -> Clock:
    return Clock(state.turn, state.phase)


RULESET: RulesetSpec[State, Setup] = RulesetSpec(
    name="asc",
    version="1.0",
    title="ASC: 2300AD hex space combat with sensors, sealed commitments and hidden ships",
    hidden_information=True,  # ASC-HID-1: bogeys, sealed sensor commits and fire declarations
    setup_type=Setup,
    state_type=State,
    command_types=COMMANDS,
    event_types=EVENTS,
    scenario_package="service.domain.asc.scenarios",
    validate_setup=validate,
    seats=seats,
    initial_state=initial_state,
    clock=clock,
    decide=decide,
    evolve=evolve,
    is_over=attrgetter("over"),
    result=attrgetter("result"),
    options=options.options,
    forms=options.forms,
    redact=visibility.redact,
    redact_setup=visibility.redact_setup,
    secrets=secrets,
    view=view.view,
    draw=view.draw,
    explain=explain.explain,
    bots={"random": RandomBot(), "rules": AscBot()},
)
