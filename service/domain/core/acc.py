"""The event accumulator every decider uses: each emitted event is folded at once, so later steps of
the same command see the facts of earlier ones (a hit, then the damage it caused, then the check)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from .protocol import Event

S = TypeVar("S")


class Acc(Generic[S]):
    def __init__(self, state: S, evolve: Callable[[S, Event], S]) -> None:
        self.state = state
        self.events: list[Event] = []
        self._evolve = evolve

    def add(self, *events: Event) -> None:
        for event in events:
            self.events.append(event)
            self.state = self._evolve(self.state, event)
