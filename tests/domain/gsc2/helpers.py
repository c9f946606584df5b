"""Builders for GSC2 decider tests: tiny scenarios, states at a phase, scripted dice."""

from __future__ import annotations

from typing import Any

import msgspec

from service.domain.core import UMPIRE, seat
from service.domain.core.choices import option_commands
from service.domain.core.plane import Point
from service.domain.gsc2 import RULESET as R
from service.domain.gsc2 import events as E
from service.domain.gsc2.state import GameState
from service.domain.gsc2.values import Order
from tests.support.decider import ScriptedDice, apply, given
from tests.support.decider import when as _when

RED, BLUE = seat("red"), seat("blue")


def ship(id: str, side: str, x: float = 0.0, y: float = 0.0, heading: float = 0.0, **kw: Any) -> dict[str, Any]:
    s: dict[str, Any] = {
        "id": id,
        "name": id.capitalize(),
        "side": side,
        "size": 5,
        "hull": 10,
        "armor": 4,
        "speed": 8,
        "turn_distance": 4,
        "crew": 4,
        "x": x,
        "y": y,
        "heading": heading,
        "chart": [["drive"]] * 10,
    }
    s.update(kw)
    return s


def beam(
    id: str = "b1", klass: str = "light", weapons: int = 1, damage: int = 1, targeting: int = 5, arc: str = "T"
) -> dict[str, Any]:
    return {"id": id, "class": klass, "weapons": weapons, "damage": damage, "targeting": targeting, "arc": arc}


def scenario(*ships: dict[str, Any], **kw: Any) -> dict[str, Any]:
    return {"name": "test", "sides": ["red", "blue"], "ships": list(ships), **kw}


def when(ruleset: Any, state: GameState, command: Any, actor: Any = UMPIRE, dice: list[int] | None = None) -> list[Any]:
    """Decide with scripted dice only: a command given no dice must roll none, and every scripted die
    must be rolled (a test that scripts a die the rule never rolls proves less than it claims)."""
    scripted = ScriptedDice(dice or [])
    events = _when(ruleset, state, command, actor, scripted)
    assert not scripted.unused, f"{command} left scripted dice unrolled: {scripted.unused}"
    return events


def started(raw: dict[str, Any], dice: list[int] | None = None) -> GameState:
    """Turn 1, movement phase, after gsc2.start (equal fleets roll off: script the dice)."""
    state = given(R, raw)
    return apply(R, state, when(R, state, _start()(), UMPIRE, dice if dice is not None else [6, 2]))


def _start() -> type:
    from service.domain.gsc2.commands import Start

    return Start


def at_phase(state: GameState, phase: str, order: Order | None = None) -> GameState:
    state = R.evolve(state, E.PhaseStarted(turn=state.turn, phase=phase))
    return R.evolve(state, E.OrderSet(order=order)) if order else state


def moved(state: GameState, ship_id: str, distance: float, turns: int = 0) -> GameState:
    """Given: the ship moved ``distance`` inches straight this turn (a fact, as the log would hold it)."""
    s = state.ships[ship_id]
    end = s.pos.advanced(s.heading, distance)
    return R.evolve(
        state,
        E.ShipMoved(
            ship=ship_id,
            path=(s.pos, end),
            heading=s.heading,
            distance=distance,
            moved=distance,
            turns=turns,
            paid_turns=0,
            since_turn=distance,
            move_left=0.0,
            finished=True,
        ),
    )


def place(state: GameState, ship_id: str, x: float, y: float, heading: float | None = None) -> GameState:
    s = state.ships[ship_id]
    ships = dict(state.ships)
    ships[ship_id] = msgspec.structs.replace(s, pos=Point(x, y), heading=s.heading if heading is None else heading)
    return msgspec.structs.replace(state, ships=ships)


def offered(state: GameState, viewer: Any) -> list[Any]:
    """The bare commands of the options (labels are checked where they matter)."""
    return option_commands(R.options(state, viewer))


def tag(ev: object) -> str:
    return type(ev).__struct_config__.tag  # type: ignore[attr-defined]


def of(events: list[Any], cls: type) -> list[Any]:
    return [e for e in events if isinstance(e, cls)]


__all__ = [
    "R",
    "E",
    "RED",
    "BLUE",
    "UMPIRE",
    "ScriptedDice",
    "apply",
    "given",
    "when",
    "ship",
    "beam",
    "scenario",
    "started",
    "at_phase",
    "moved",
    "place",
    "tag",
    "of",
    "offered",
]
