"""The guards every command passes, in one fixed order, before any ruleset rule runs.

boardgame.io's reducer checks the same things the same way for every game: unknown move, game over,
inactive player. Here: the game is over (GAME-OVER), the caller holds no seat (NO-SEAT). The command's
type is checked earlier, when it is decoded (an unknown type never reaches a decider). Each ruleset's
own guards (whose piece, which phase) follow inside its ``decide``.
"""

from __future__ import annotations

from typing import Any

from .dice import Dice
from .errors import NotYourPiece, RuleViolation
from .protocol import Actor, Command, Event, Ruleset, Viewer

GAME_OVER = "GAME-OVER"
NO_SEAT = "NO-SEAT"


class UnknownEvent(TypeError):
    """``evolve`` met an event type it has no branch for: a stored log this code cannot fold."""

    def __init__(self, ruleset: str, event: Event) -> None:
        tag = type(event).__struct_config__.tag
        super().__init__(f"{ruleset}: evolve has no branch for event {tag!r} ({type(event).__name__})")


def guarded_decide(
    ruleset: Ruleset[Any, Any], state: Any, command: Command, actor: Actor, dice: Dice, running: bool = False
) -> list[Event]:
    """What the service calls: the common guards, then the ruleset's decider. ``running``: the caller
    knows ``is_over(state)`` is false (it asked when that state was made), so it is not asked again."""
    if not running and ruleset.is_over(state):
        raise RuleViolation(GAME_OVER, f"the game is over: {ruleset.result(state) or 'finished'}")
    if actor.kind not in ("seat", "umpire"):
        raise NotYourPiece(NO_SEAT, "spectators issue no commands: send a seat or umpire token")
    return ruleset.decide(state, command, actor, dice)


def full_view(ruleset: Ruleset[Any, Any], state: Any, viewer: Viewer) -> dict[str, Any]:
    """What every read path serves: the ruleset's view with its drawing under ``draw``."""
    view = dict(ruleset.view(state, viewer))
    view["draw"] = ruleset.draw(state, viewer)
    return view
