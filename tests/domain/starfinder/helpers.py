"""Builders for Starfinder decider tests: tiny scenarios, states at a phase or slot, scripted dice."""

from __future__ import annotations

from typing import Any

import msgspec

from service.domain.core import UMPIRE, Dice, seat
from service.domain.core.hexgrid import Hex
from service.domain.starfinder import RULESET as R
from service.domain.starfinder import commands as C
from service.domain.starfinder import events as E
from service.domain.starfinder.state import GameState
from tests.support.decider import ScriptedDice, apply, given, then_violation
from tests.support.decider import when as decide_when

FULL_CREW = ("captain", "pilot", "engineer", "gunner", "science_officer")


def when(ruleset: Any, state: Any, command: Any, actor: Any = UMPIRE, dice: Any = None) -> list[Any]:
    """tests.support.decider.when, and every scripted die must be rolled (a test scripts only what it uses)."""
    if dice is None or isinstance(dice, Dice):
        return decide_when(ruleset, state, command, actor, dice)
    scripted = ScriptedDice(dice)
    events = decide_when(ruleset, state, command, actor, scripted)
    assert not scripted.unused, f"scripted dice never rolled: {scripted.unused}"
    return events


def crew(id: str, role: str, **kw: Any) -> dict[str, Any]:
    return {"id": id, "role": role, **kw}


def weapon(id: str = "laser", arc: str = "forward", damage: str = "2d4", **kw: Any) -> dict[str, Any]:
    return {"id": id, "arc": arc, "damage": damage, **kw}


def ship(id: str, side: str, hex: tuple[int, int] = (0, 0), facing: int = 0, **kw: Any) -> dict[str, Any]:
    s: dict[str, Any] = {
        "id": id,
        "side": side,
        "tier": 1,
        "size": "Medium",
        "speed": 8,
        "maneuverability": "average",
        "hp": 30,
        "hex": list(hex),
        "facing": facing,
        "pcu": 80,
        "battle_stations": True,
        "shields": {"forward": 5, "starboard": 5, "aft": 5, "port": 5},
        "weapons": [weapon()],
        "crew": [
            crew("captain", "captain"),
            crew("pilot", "pilot", piloting=5, piloting_ranks=2),
            crew("engineer", "engineer", engineering=5),
            crew("gunner", "gunner", gunnery=4),
            crew("science", "science_officer", computers=5),
        ],
    }
    s.update(kw)
    return s


def scenario(*ships: dict[str, Any], **kw: Any) -> dict[str, Any]:
    return {"name": "test", "sides": ["pact", "corsairs"], "ships": list(ships), **kw}


def duel(
    a_kw: dict[str, Any] | None = None,
    b_kw: dict[str, Any] | None = None,
    b_hex: tuple[int, int] = (0, -4),
    b_facing: int = 3,
) -> GameState:
    """Ship a (pact) at the origin facing N; ship b (corsairs) ahead of it facing S; the battle has opened
    (round 1's engineering phase has started, SF-R-21)."""
    return opened(
        given(
            R,
            scenario(
                ship("a", "pact", **(a_kw or {})), ship("b", "corsairs", hex=b_hex, facing=b_facing, **(b_kw or {}))
            ),
        )
    )


def opened(state: GameState) -> GameState:
    """Given: the first command has opened round 1's engineering phase (SF-R-21)."""
    return R.evolve(state, E.PhaseStarted(round=1, phase="engineering"))


def at(state: GameState, phase: str, order: tuple[str, ...] = ("a", "b"), slot: int = 0) -> GameState:
    """Given: the round has reached ``phase`` (and, in helm or gunnery, ``order[slot]``'s turn)."""
    state = R.evolve(state, E.PhaseStarted(round=state.round, phase=phase))
    if phase != "engineering":
        state = R.evolve(state, E.HelmOrderSet(order=order, results={k: 0 for k in order}))
        state = R.evolve(state, E.SlotOpened(phase=phase, slot=slot, ship=order[slot]))
    return state


def place(state: GameState, ship_id: str, q: int, r: int, facing: int | None = None, **changes: Any) -> GameState:
    s = state.ships[ship_id]
    new = msgspec.structs.replace(s, hex=Hex(q, r), facing=s.facing if facing is None else facing, **changes)
    return msgspec.structs.replace(state, ships={**state.ships, ship_id: new})


def of(events: list[Any], cls: type) -> list[Any]:
    return [e for e in events if isinstance(e, cls)]


A = {
    r: seat(f"a/{n}")
    for r, n in (
        ("captain", "captain"),
        ("pilot", "pilot"),
        ("engineer", "engineer"),
        ("gunner", "gunner"),
        ("science", "science"),
    )
}
B = {
    r: seat(f"b/{n}")
    for r, n in (
        ("captain", "captain"),
        ("pilot", "pilot"),
        ("engineer", "engineer"),
        ("gunner", "gunner"),
        ("science", "science"),
    )
}

__all__ = [
    "A",
    "B",
    "C",
    "E",
    "R",
    "UMPIRE",
    "ScriptedDice",
    "apply",
    "at",
    "crew",
    "duel",
    "given",
    "of",
    "opened",
    "place",
    "scenario",
    "seat",
    "ship",
    "then_violation",
    "weapon",
    "when",
]
