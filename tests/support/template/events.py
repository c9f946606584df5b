"""Events: facts only, every die in ``rolls`` (the events layer lifts them into the envelope)."""

from __future__ import annotations

from service.domain.core import Event


class Fired(Event, frozen=True, tag="template.fired"):
    side: str
    target: str
    power: int
    hit: bool
    hull: int  # the target's hull after the shot


class Held(Event, frozen=True, tag="template.held"):
    side: str


class TurnStarted(Event, frozen=True, tag="template.turn_started"):
    turn: int


class GameOver(Event, frozen=True, tag="template.game_over"):
    winner: str | None
    reason: str


EVENTS = (Fired, Held, TurnStarted, GameOver)
