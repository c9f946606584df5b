"""evolve: one handler per event type (HANDLERS); any other event is a log this code cannot fold."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from service.domain.core import Event
from service.domain.core.guards import UnknownEvent

from . import events as E
from .state import GameState, Mark

rep = msgspec.structs.replace


def _fired(state: GameState, ev: E.Fired) -> GameState:
    marks = list(state.marks)
    n = state.mark_no
    for kind, text in (
        ("fire", f"power {ev.power}"),
        ("hit" if ev.hit else "miss", f"{ev.power} damage" if ev.hit else "miss"),
    ):
        n += 1
        marks.append(Mark(n=n, kind=kind, text=text, source=ev.side, target=ev.target, turn=state.turn))
    return rep(
        state, hull={**state.hull, ev.target: ev.hull}, done=(*state.done, ev.side), marks=tuple(marks), mark_no=n
    )


def _held(state: GameState, ev: E.Held) -> GameState:
    return rep(state, done=(*state.done, ev.side))


def _turn_started(state: GameState, ev: E.TurnStarted) -> GameState:
    kept = tuple(m for m in state.marks if m.turn >= ev.turn - 1)  # this turn's and the last turn's shots
    return rep(state, turn=ev.turn, done=(), marks=kept)


def _game_over(state: GameState, ev: E.GameOver) -> GameState:
    return rep(state, over=True, winner=ev.winner, result=ev.reason)


HANDLERS: dict[type[Event], Callable[[GameState, Any], GameState]] = {
    E.Fired: _fired,
    E.Held: _held,
    E.TurnStarted: _turn_started,
    E.GameOver: _game_over,
}


def evolve(state: GameState, ev: Event) -> GameState:
    handler = HANDLERS.get(type(ev))
    if handler is None:
        raise UnknownEvent("template", ev)
    return handler(state, ev)
