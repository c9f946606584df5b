"""Science officers (SF-RND-3), the captain (SF-ROLE-2, SF-R-4), role changes (SF-ROLE-3) and battle
stations (SF-ROLE-5)."""

from __future__ import annotations

from service.domain.core import Dice, Modifier, RuleViolation

from . import commands as C
from .checks import check, crew_mods
from .events import BattleStationsDeclared, Encouraged, RoleChangeRequested, ScienceResult
from .scenario import ROLES, SINGLE_ROLES
from .state import GameState

SCIENCE = {
    C.Scan: ("scan", "Computers"),
    C.LockOn: ("lock_on", "Computers"),
    C.Countermeasures: ("countermeasures", "Computers"),
}
ENCOURAGE_DC = 10  # SF-R-4 (published figure)
ROLE_REQUESTS_PER_ROUND = 2  # SF-R-23: a request and one change of mind a round


def change_role(state: GameState, cmd: C.ChangeRole) -> RoleChangeRequested:
    crew = state.crew[cmd.seat]
    if cmd.role not in ROLES:
        raise RuleViolation("SF-ROLE-3", f"unknown role {cmd.role!r}; one of {ROLES}")
    if state.ships[crew.ship].status == "destroyed":
        raise RuleViolation("SF-ROLE-3", f"{crew.ship} is destroyed")
    if (crew.next_role or crew.role) == cmd.role:
        raise RuleViolation("SF-ROLE-3", f"{cmd.seat} already holds {cmd.role} next round")
    if crew.role_requests >= ROLE_REQUESTS_PER_ROUND:
        raise RuleViolation(
            "SF-R-23",
            f"{cmd.seat} has asked for a new role {crew.role_requests} times this round: "
            "the next request waits for the next round",
        )
    if cmd.role in SINGLE_ROLES:
        holders = [
            c.seat for c in state.crew_of(crew.ship) if c.seat != cmd.seat and (c.next_role or c.role) == cmd.role
        ]
        if holders:
            raise RuleViolation("SF-ROLE-1", f"{crew.ship} has one {cmd.role}: {holders[0]} holds it next round")
    return RoleChangeRequested(seat=cmd.seat, role=cmd.role)


def battle_stations(state: GameState, ship: str, seat: str | None) -> BattleStationsDeclared:
    s = state.ships[ship]
    if s.battle_stations:
        raise RuleViolation("SF-ROLE-5", f"{ship} is already at battle stations")
    if s.status != "active":
        raise RuleViolation("SF-MOV-4", f"{ship} is {s.status}")
    seen = tuple(
        k for k, o in state.ships.items() if k != ship and o.status != "destroyed" and o.condition("sensors") < 3
    )
    return BattleStationsDeclared(ship=ship, seat=seat, seen_by=seen)


def check_science(state: GameState, cmd: C.Scan | C.LockOn | C.Countermeasures) -> None:
    """SF-RND-3, SF-R-20: scan any other ship; lock on and countermeasures against an enemy, once a round."""
    crew = state.crew[cmd.seat]
    action, _ = SCIENCE[type(cmd)]
    t = state.ships.get(cmd.target)
    own = state.ships[crew.ship]
    if t is None or cmd.target == crew.ship or t.status == "destroyed":
        raise RuleViolation("SF-RND-3", f"{cmd.target!r} is not another starship on the map")
    if action != "scan" and t.side == own.side:
        raise RuleViolation("SF-RND-3", f"{action.replace('_', ' ')} works against an enemy ship")
    done = own.locks if action == "lock_on" else own.countermeasures if action == "countermeasures" else ()
    if cmd.target in done:
        raise RuleViolation("SF-RND-3", f"{crew.ship} already has {action.replace('_', ' ')} on {cmd.target}")


def science(state: GameState, cmd: C.Scan | C.LockOn | C.Countermeasures, dice: Dice) -> ScienceResult:
    check_science(state, cmd)
    crew = state.crew[cmd.seat]
    action, skill = SCIENCE[type(cmd)]
    own = state.ships[crew.ship]
    dc = state.specs[cmd.target].dc(10)
    mods, fail = crew_mods(state, cmd.seat, "sensors")
    roll, margin = check(
        dice,
        f"{action.replace('_', ' ')} on {state.specs[cmd.target].label}",
        "SF-RND-3",
        dc,
        [Modifier("SF-RND-3", skill, state.members[cmd.seat].computers), *mods],
        fail,
    )
    return ScienceResult(
        seat=cmd.seat,
        ship=crew.ship,
        action=action,
        target=cmd.target,
        dc=dc,
        success=margin >= 0,
        side=own.side,
        rolls=(roll,) if roll else (),
    )


def check_encourage(state: GameState, cmd: C.Encourage) -> None:
    crew = state.crew[cmd.seat]
    other = state.crew.get(cmd.crew)
    if other is None or other.ship != crew.ship or other.seat == cmd.seat or other.role == "passenger":
        raise RuleViolation("SF-R-4", f"{cmd.crew!r} is not another crew member in a role aboard {crew.ship}")


def encourage(state: GameState, cmd: C.Encourage, dice: Dice) -> Encouraged:
    check_encourage(state, cmd)
    mods, fail = crew_mods(state, cmd.seat, "life_support")  # SF-R-4: life support affects the captain
    roll, margin = check(
        dice,
        f"encourage {cmd.crew}",
        "SF-R-4",
        ENCOURAGE_DC,
        [Modifier("SF-R-4", "Diplomacy", state.members[cmd.seat].diplomacy), *mods],
        fail,
    )
    return Encouraged(seat=cmd.seat, crew=cmd.crew, success=margin >= 0, rolls=(roll,) if roll else ())
