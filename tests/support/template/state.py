"""The folded state: small frozen values, JSON-able (tuples and dicts, no sets)."""

from __future__ import annotations

import msgspec

from service.domain.core import Clock

from .scenario import Scenario


class Mark(msgspec.Struct, frozen=True):
    """A shot drawn briefly (an effect): ``n`` counts every mark of the game, folded in state."""

    n: int
    kind: str  # fire | hit | miss | destroyed
    text: str
    source: str
    target: str
    turn: int


class GameState(msgspec.Struct, frozen=True):
    sides: tuple[str, ...]
    hull: dict[str, int]
    max_hull: int
    turn_limit: int
    turn: int = 1
    done: tuple[str, ...] = ()  # sides that fired or held fire this turn
    marks: tuple[Mark, ...] = ()  # this turn's and the last turn's shots
    mark_no: int = 0
    over: bool = False
    winner: str | None = None
    result: str = ""


def initial_state(setup: Scenario) -> GameState:
    return GameState(
        sides=setup.sides, hull={s: setup.hull for s in setup.sides}, max_hull=setup.hull, turn_limit=setup.turn_limit
    )


def clock(state: GameState) -> Clock:
    return Clock(state.turn, "fire")
