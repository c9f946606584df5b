"""An event accumulator: decide() folds each event as it emits it, so later steps see earlier facts."""

from __future__ import annotations

from collections.abc import Callable

from service.domain.core import Event

from .state import GameState


class Acc:
    """decide() folds each event as it emits it, so later steps see earlier facts."""

    def __init__(self, state: GameState, evolve: Callable[[GameState, Event], GameState]) -> None:
        self.state = state
        self.events: list[Event] = []
        self._evolve = evolve

    def add(self, *events: Event) -> None:
        for e in events:
            self.events.append(e)
            self.state = self._evolve(self.state, e)
