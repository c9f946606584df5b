"""What just happened, as the drawing shows it (docs/view-contract.md "effects"), folded into state.

Each effect keeps the audience of the event it comes from (visibility.py): a private event's player, a
local event's witnesses, or everyone for a public one — so a viewer's drawing never shows more than its
event stream.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from msgspec.structs import replace

from service.domain.core import Event

from . import events as E
from .state import Happening, HexT, State, key

KEEP = 24  # effects kept in state; the drawing shows those of this turn and the last


def _h(h: Any) -> str:
    return key(h) if h is not None else "?"


Made = tuple[str, str, HexT | None, str | None, tuple[str, ...] | None, str | None]

MAKERS: dict[type[Event], Callable[[Any], Made | None]] = {
    E.GroupMoved: lambda e: (
        None
        if e.frm is not None and tuple(e.frm) == tuple(e.to)
        else (
            "arrival",
            f"{e.group} arrives at {_h(e.to)}" + (" (stopped short)" if e.stopped_short else ""),
            tuple(e.to),
            e.group,
            (e.player,),
            "FTC-MOV-1",
        )
    ),
    E.Departed: lambda e: (
        "departure",
        f"{e.group} enters FTL for {_h(e.to)}",
        None,
        e.group,
        (e.player,),
        "FTC-ARR-10",
    ),
    E.IntelGathered: lambda e: (
        None
        if not e.sighting.counters
        else (
            "detected",
            f"{len(e.sighting.counters)} counter(s) sighted at {_h(e.hex)}",
            tuple(e.hex),
            None,
            (e.player,),
            "FTC-TG-3",
        )
    ),
    E.BattleStarted: lambda e: (
        "battle",
        f"battle {e.battle.id} at {_h(e.battle.hex)}",
        tuple(e.battle.hex),
        None,
        tuple(e.witnesses),
        "FTC-ARR-6",
    ),
    E.BattleRecorded: lambda e: (
        "battle_over",
        f"battle {e.battle} over: " + (f"{e.victor} wins" if e.victor else "no victor"),
        tuple(e.hex),
        None,
        tuple(e.witnesses),
        "FTC-ARR-8",
    ),
    E.AssaultResolved: lambda e: (
        "assault",
        f"assault at {_h(e.hex)}: {e.result}",
        tuple(e.hex),
        None,
        tuple(e.witnesses),
        "FTC-DEF-1",
    ),
    E.WorldTaken: lambda e: ("captured", f"{e.player} takes {e.world}", None, None, tuple(e.witnesses), "FTC-WLD-5"),
    E.DrivenOff: lambda e: (
        "repulsed",
        f"the defences at {_h(e.hex)} drive off an attack",
        tuple(e.hex),
        None,
        tuple(e.witnesses),
        "FTC-DEF-8",
    ),
    E.WorldScouted: lambda e: ("scouted", f"{e.world} scouted: income {e.income}", None, None, None, "FTC-WLD-5"),
}


def note(state: State, event: Event) -> State:
    """Fold the effect of ``event`` (if it has one) into the state's recent effects."""
    make = MAKERS.get(type(event))
    made = make(event) if make is not None else None
    if made is None:
        return state
    kind, text, at, piece, audience, rule = made
    if at is None and isinstance(event, (E.WorldTaken, E.WorldScouted)):
        q, r = event.world.split(",")
        at = (int(q), int(r))
    n = state.happened + 1
    h = Happening(n=n, turn=state.turn, kind=kind, text=text, hex=at, piece=piece, audience=audience, rule=rule)
    return replace(state, happenings=(*state.happenings[-(KEEP - 1) :], h), happened=n)
