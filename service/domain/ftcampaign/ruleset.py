"""The Full Thrust campaign ruleset object the registry loads: the decider contract wired to its modules
(no logic of its own)."""

from __future__ import annotations

from typing import Any

from service.domain.core import Actor, Clock, Command, Dice, Event, RulesetBase, Viewer
from service.domain.core.bot import Bot, RandomBot
from service.domain.core.choices import Form, Option
from service.domain.core.drawing import Drawing

from . import commands as C
from . import decide as _decide
from . import events as _events
from . import explain as _explain
from . import options as _options
from . import scenario as _scenario
from . import standing as _standing
from . import view as _view
from . import visibility
from .bot import CampaignBot
from .evolve import evolve
from .state import Economy, State


class FtCampaignRuleset(RulesetBase):
    name = "ftcampaign"
    version = "1.0"
    title = "Full Thrust club campaign: star map, economy, sealed moves and linked battles"
    hidden_information = True
    setup_type = _scenario.Setup
    state_type = State
    command_types = C.COMMANDS
    event_types = _events.EVENTS
    scenario_package = "service.domain.ftcampaign.scenarios"
    bots: dict[str, Bot] = {"random": RandomBot(), "rules": CampaignBot()}

    def validate_setup(self, setup: _scenario.Setup) -> None:
        _scenario.validate(setup)

    def seats(self, setup: Any) -> list[str]:
        if isinstance(setup, dict):
            setup = self.parse_setup(setup)
        return [p.id for p in setup.players]

    def initial_state(self, setup: Any) -> State:
        if isinstance(setup, dict):
            setup = self.parse_setup(setup)
        order = tuple(p.id for p in setup.players)
        return State(
            setup=setup,
            order=order,
            radius=setup.map_side - 1,
            economies={p: Economy() for p in order},
            intel={p: {} for p in order},
        )

    def clock(self, state: State) -> Clock:
        return Clock(state.turn, state.phase)

    def is_over(self, state: State) -> bool:
        return state.over

    def result(self, state: State) -> str | None:
        return _standing.result(state)

    def decide(self, state: State, command: Command, actor: Actor, dice: Dice) -> list[Event]:
        return _decide.decide(state, command, actor, dice)

    def evolve(self, state: State, event: Event) -> State:
        return evolve(state, event)

    def options(self, state: State, viewer: Viewer) -> list[Option]:
        return _options.options(state, viewer)

    def forms(self, state: State, viewer: Viewer) -> list[Form]:
        return _options.forms(state, viewer)

    def draw(self, state: State, viewer: Viewer) -> Drawing:
        return _view.draw(state, viewer)

    def redact(self, event: Event, viewer: Viewer, state: State) -> Event | None:
        return visibility.redact(event, viewer, state)

    def redact_setup(self, setup: dict[str, Any], viewer: Viewer) -> dict[str, Any]:
        return visibility.redact_setup(setup, viewer)

    def view(self, state: State, viewer: Viewer) -> dict[str, Any]:
        return _view.view(state, viewer)

    def explain(self, event: Event) -> str:
        return _explain.explain(event)


RULESET = FtCampaignRuleset()
