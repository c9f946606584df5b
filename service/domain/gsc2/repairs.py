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
    """GSC2-WIN-1, checked at the end of the repairs phase; with three or more sides the battle goes on while
    two of them have a ship in the fight, and at the turn limit the most hull wins (GSC2-R-23)."""
    alive = {s: state.active(s) for s in state.sides}
    hull = {s: sum(x.hull for x in alive[s]) for s in state.sides}
    standing = [s for s in state.sides if alive[s]]
    if not standing:
        either = "either" if len(state.sides) == 2 else "any"
        return GameOver(winner=None, reason=f"no ship is left on {either} side: a draw", hull=hull)
    if len(standing) == 1:
        [side] = standing
        gone = " or ".join(state.enemies(side))
        return GameOver(winner=side, reason=f"no {gone} ship remains in the fight", hull=hull)
    if state.turn_limit is not None and state.turn >= state.turn_limit:
        most = max(hull.values())
        first = [s for s in state.sides if hull[s] == most]
        if len(first) > 1:
            return GameOver(winner=None, reason=f"turn limit {state.turn_limit}: equal hull points, a draw", hull=hull)
        w = first[0]
        return GameOver(
            winner=w, reason=f"turn limit {state.turn_limit}: {w} has more surviving hull points", hull=hull
        )
    return None
