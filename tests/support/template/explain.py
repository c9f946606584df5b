"""explain: one sentence per event type (SENTENCES), agreeing with the state it describes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.domain.core import Event

from . import events as E


def _fired(ev: E.Fired) -> str:
    roll = ev.rolls[0].value if ev.rolls else "?"
    result = f"hits for {ev.power} (hull {ev.hull})" if ev.hit else "misses"
    return f"{ev.side} fires at {ev.target} with power {ev.power}: d6 {roll} needs {3 + ev.power}+, {result}."


SENTENCES: dict[type[Event], Callable[[Any], str]] = {
    E.Fired: _fired,
    E.Held: lambda ev: f"{ev.side} holds fire this turn.",
    E.TurnStarted: lambda ev: f"Turn {ev.turn} begins.",
    E.GameOver: lambda ev: f"The game is over: {ev.winner + ' wins' if ev.winner else 'a draw'} ({ev.reason}).",
}


def explain(ev: Event) -> str:
    return SENTENCES[type(ev)](ev)
