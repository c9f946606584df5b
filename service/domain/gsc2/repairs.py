"""Repairs (GSC2-REP-1) and victory (GSC2-WIN-1)."""

from __future__ import annotations

import msgspec

from service.domain.core import Dice, RuleViolation

from .commands import Repair
from .events import GameOver, Repaired
from .ships import SYS_RULE
from .state import GameState
from .values import Sys


def repaired(sys: Sys, size: int) -> Sys:
    """One level or hit back."""
    rep = msgspec.structs.replace
    if sys.damaged:
        return rep(sys, damaged=False)
    if sys.hits > 0:
        if SYS_RULE[sys.kind] == "GSC2-SYS-3":  # a small ship's halved drive comes back whole
            return rep(sys, hits=0, level=sys.max)
        return rep(sys, hits=sys.hits - 1)
    return rep(sys, level=min(sys.max, sys.level + 1))


def repair(state: GameState, cmd: Repair, dice: Dice) -> Repaired:
    ship = state.ships[cmd.ship]
    units = ship.level("repair")
    if ship.repairs_used >= units:
        raise RuleViolation("GSC2-REP-1", f"{ship.id} has no repair unit left this turn ({units} in all)")
    sys = ship.sys.get(cmd.system)
    if sys is None:
        raise RuleViolation("GSC2-REP-1", f"{ship.id} has no system {cmd.system!r}")
    if sys.destroyed:
        raise RuleViolation("GSC2-REP-1", f"{cmd.system} is destroyed and cannot be repaired")
    if not sys.repairable:
        raise RuleViolation("GSC2-REP-1", f"{cmd.system} is not damaged")
    roll = dice.roll_under(10, f"repair {cmd.system}", "GSC2-REP-1", 4, success="repaired", failure="failed")
    ok = roll.outcome == "repaired"
    return Repaired(
        ship=ship.id,
        system=cmd.system,
        success=ok,
        sys=repaired(sys, state.specs[ship.id].size) if ok else sys,
        rolls=(roll,),
    )


def victory(state: GameState) -> GameOver | None:
    """GSC2-WIN-1, checked at the end of the repairs phase."""
    alive = {s: state.active(s) for s in state.sides}
    hull = {s: sum(x.hull for x in alive[s]) for s in state.sides}
    a, b = state.sides
    if not alive[a] and not alive[b]:
        return GameOver(winner=None, reason="no ship is left on either side: a draw", hull=hull)
    for side in state.sides:
        if not alive[state.enemy(side)]:
            return GameOver(winner=side, reason=f"no {state.enemy(side)} ship remains in the fight", hull=hull)
    if state.turn_limit is not None and state.turn >= state.turn_limit:
        if hull[a] == hull[b]:
            return GameOver(winner=None, reason=f"turn limit {state.turn_limit}: equal hull points, a draw", hull=hull)
        w = a if hull[a] > hull[b] else b
        return GameOver(
            winner=w, reason=f"turn limit {state.turn_limit}: {w} has more surviving hull points", hull=hull
        )
    return None
