"""The Full Thrust campaign ruleset the registry loads ("service.domain.ftcampaign:RULESET"): a declaration
naming the parts."""

from __future__ import annotations

from operator import attrgetter
from typing import Any

from service.domain.core import Clock, Viewer
from service.domain.core.bot import RandomBot
from service.domain.core.spec import RulesetSpec

from . import commands, events, explain, options, scenario, standing, view, visibility
from .bot import CampaignBot
from .decide import decide
from .evolve import evolve
from .state import Economy, State


def _setup(setup: scenario.Setup | dict[str, Any]) -> scenario.Setup:
    return RULESET.parse_setup(setup) if isinstance(setup, dict) else setup


def seats(setup: scenario.Setup) -> list[str]:
    return [p.id for p in _setup(setup).players]


def initial_state(setup: scenario.Setup) -> State:
    setup = _setup(setup)
    order = tuple(p.id for p in setup.players)
    return State(
        setup=setup,
        order=order,
        radius=setup.map_side - 1,
        economies={p: Economy() for p in order},
        intel={p: {} for p in order},
    )


def secrets(state: State, viewer: Viewer) -> list[Any]:
    """FTC-MOV-1: the other players' sealed orders (what the conformance kit looks for in everything this
    viewer is served). Group compositions and sightings are secret too, but what a player knows of them
    accumulates over the log (the API leak tests' oracle follows it), beyond what one state tells."""
    mine = visibility.observer(viewer)
    return [order for player, orders in state.orders.items() if player != mine for order in orders]


def clock(state: State) -> Clock:
    return Clock(state.turn, state.phase)


RULESET: RulesetSpec[State, scenario.Setup] = RulesetSpec(
    name="ftcampaign",
    version="1.0",
    title="Full Thrust club campaign: star map, economy, sealed moves and linked battles",
    hidden_information=True,
    setup_type=scenario.Setup,
    state_type=State,
    command_types=commands.COMMANDS,
    event_types=events.EVENTS,
    scenario_package="service.domain.ftcampaign.scenarios",
    validate_setup=scenario.validate,
    seats=seats,
    initial_state=initial_state,
    clock=clock,
    decide=decide,
    evolve=evolve,
    is_over=attrgetter("over"),
    result=standing.result,
    options=options.options,
    forms=options.forms,
    redact=visibility.redact,
    redact_setup=visibility.redact_setup,
    secrets=secrets,
    view=view.view,
    draw=view.draw,
    explain=explain.explain,
    bots={"random": RandomBot(), "rules": CampaignBot()},
)
