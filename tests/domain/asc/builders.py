"""Small scenarios and event shortcuts for ASC rule tests."""

from __future__ import annotations

from typing import Any

from service.domain.asc import RULESET
from service.domain.asc.events import LockTaken, PhaseChanged, SensorsRevealed
from service.domain.asc.state import CommitEntry, State
from service.domain.core import UMPIRE, Actor, Command, Dice, Event, seat
from tests.support.decider import ScriptedDice, given

R = RULESET
ADV, DIS = seat("advantaged"), seat("disadvantaged")


def ship(vid: str, side: str, hex: tuple[int, int] = (0, 0), facing: int = 0, **kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": vid,
        "name": f"The {vid.title()}",
        "side": side,
        "kind": "starship",
        "hex": list(hex),
        "facing": facing,
        "warp_efficiency": 1.5,
        "manoeuvre": "C",
        "active_signature": 3,
        "passive_signature": 2,
        "sensors": [{"id": "pas", "type": "passive", "rating": 5}, {"id": "act", "type": "active", "rating": 4}],
        "ttas": 2,
        "turrets": [{"id": "las", "type": "normal", "arcs": [5, 0, 1], "damage": "1x1"}],
        "screens": 3,
        "armour": 2,
        "hull": 20,
        "power_plant": 10,
        "dc_teams": 2,
        "crew_quality": 0,
    }
    base.update(kw)
    return base


def scenario(*vessels: dict[str, Any], **kw: Any) -> dict[str, Any]:
    return {"name": "test", "map_radius": 10, "vessels": list(vessels), **kw}


def duel(**kw: Any) -> dict[str, Any]:
    """'alpha' (advantaged) and 'bravo' (disadvantaged) in the same hex unless told otherwise."""
    a = ship("alpha", "advantaged", **kw.pop("alpha", {}))
    b = ship("bravo", "disadvantaged", **kw.pop("bravo", {}))
    return scenario(a, b, *kw.pop("extra", ()), **kw)


def phase(name: str, turn: int = 1) -> PhaseChanged:
    return PhaseChanged(turn=turn, phase=name)


def reveal(*entries: tuple[str, bool, int]) -> SensorsRevealed:
    return SensorsRevealed(entries=tuple(CommitEntry(vessel=v, active=a, screen=s) for v, a, s in entries))


def lock(holder: str, target: str, rating: int = 5) -> LockTaken:
    return LockTaken(vessel=holder, target=target, rating=rating)


def state_of(setup: dict[str, Any], *events: Event) -> State:
    return given(R, setup, events)


def run(
    state: State, command: Command, actor: Actor = UMPIRE, dice: list[int] | None = None
) -> tuple[State, list[Event]]:
    """Decide and fold; ``dice`` scripts the faces (all must be used)."""
    d: Dice = ScriptedDice(dice or [])
    events = R.decide(state, command, actor, d)
    if isinstance(d, ScriptedDice):
        assert d.unused == [], f"unused scripted dice {d.unused}"
    for e in events:
        state = R.evolve(state, e)
    return state, events


def of(events: list[Event], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def damaged(state: State, vid: str, **changes: Any) -> Event:
    """A DamageTaken fact that sets status fields (to put a vessel in a damaged condition)."""
    from msgspec.structs import replace

    from service.domain.asc.events import DamageTaken

    return DamageTaken(vessel=vid, status=replace(state.status[vid], **changes))


def fire_phase(setup: dict[str, Any], *events: Event) -> State:
    return state_of(setup, phase("fire"), *events)


def resolve(state: State, *fires: Command, dice: list[int] | None = None) -> tuple[State, list[Event]]:
    """Declare the shots (as umpire), then force the fire phase to resolve with scripted dice."""
    from service.domain.asc.commands import ForcePhase

    for f in fires:
        state, _ = run(state, f)
    return run(state, ForcePhase(), dice=dice)
