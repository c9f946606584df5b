"""The GSC2 ruleset object the registry loads ("service.domain.gsc2:RULESET")."""

from __future__ import annotations

from typing import Any

from service.domain.core import Actor, Clock, Command, Dice, Event, RulesetBase, Viewer
from service.domain.core.plane import Point

from .commands import COMMANDS
from .decide import decide
from .events import EVENTS
from .evolve import evolve
from .explain import explain
from .options import options
from .ships import BUILTIN, Scenario, validate_scenario
from .state import GameState, ShipState, Sys, TerrainState
from .view import view


def initial_state(setup: Scenario) -> GameState:
    ships: dict[str, ShipState] = {}
    for spec in setup.ships:
        systems = {"drive": Sys(kind="drive", level=spec.speed, max=spec.speed)}
        for key in BUILTIN:
            n = getattr(spec, key)
            if n > 0:
                systems[key] = Sys(kind=key, level=n, max=n)
        for b in spec.beams:
            systems[b.id] = Sys(kind="beam", level=1, max=1)
        for m in spec.missiles:
            systems[m.id] = Sys(kind="missile", level=1, max=1)
        for s in spec.systems:
            systems[s.id] = Sys(kind=s.kind, level=s.level, max=s.level)
        ships[spec.id] = ShipState(
            id=spec.id, side=spec.side, pos=_pt(spec.x, spec.y), heading=spec.heading, hull=spec.hull,
            crew=spec.crew, sys=systems, missiles_left={m.id: m.carried for m in spec.missiles},
            pods=spec.assault_pods,
        )
    terrain = {t.id: TerrainState(spec=t, pos=_pt(t.x, t.y)) for t in setup.terrain}
    return GameState(sides=tuple(setup.sides), specs={s.id: s for s in setup.ships}, ships=ships, terrain=terrain,
                     table=(setup.table.width, setup.table.height), turn_limit=setup.turn_limit)


def _pt(x: float, y: float) -> Point:
    return Point(float(x), float(y))


class Gsc2Ruleset(RulesetBase):
    name = "gsc2"
    version = "1.0"
    title = "GSC2 — space combat with beams, missiles and boarding"
    scenario_package = "service.domain.gsc2.scenarios"
    hidden_information = False  # everything is on the table: any seat may fork a what-if game
    setup_type = Scenario
    state_type = GameState
    command_types = COMMANDS
    event_types = EVENTS

    def validate_setup(self, setup: Scenario) -> None:
        validate_scenario(setup)

    def seats(self, setup: Scenario) -> list[str]:
        return list(setup.sides)

    def initial_state(self, setup: Scenario) -> GameState:
        return initial_state(setup)

    def clock(self, state: GameState) -> Clock:
        if state.phase == "setup":
            return Clock(1, "movement")
        return Clock(state.turn, state.phase)

    def decide(self, state: GameState, command: Command, actor: Actor, dice: Dice) -> list[Event]:
        return decide(state, command, actor, dice)

    def evolve(self, state: GameState, event: Event) -> GameState:
        return evolve(state, event)

    def options(self, state: GameState, viewer: Viewer) -> list[Command]:
        return options(state, viewer)

    def view(self, state: GameState, viewer: Viewer) -> dict[str, Any]:
        return view(state, viewer)

    def is_over(self, state: GameState) -> bool:
        return state.over

    def explain(self, event: Event) -> str:
        return explain(event)
