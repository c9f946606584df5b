"""Engineering (SF-RND-2): actions are declared (collected), then all resolve when the phase closes."""

from __future__ import annotations

from service.domain.core import Dice, Modifier, RuleViolation
from service.domain.core.acc import Acc

from . import commands as C
from .checks import check, crew_mods
from .events import EngineeringDeclared, EngineeringResolved
from .scenario import ARCS
from .state import ARRAYS, CONDITIONS, EngAction, GameState

PATCHABLE = ("life_support", "sensors", *ARRAYS, "engines", "power_core")
PATCH_DC = {1: 10, 2: 15, 3: 20}  # glitching / malfunctioning / wrecked, + 2 × tier


def diverted_points(state: GameState, ship: str) -> int:
    return state.specs[ship].pcu * 5 // 100  # 5% of the power core units, rounded down


def declare(state: GameState, cmd: C.Patch | C.Divert) -> EngineeringDeclared:
    if isinstance(cmd, C.Patch):
        return _declare_patch(state, cmd)
    ship = state.ships[state.crew[cmd.seat].ship]
    if ship.condition("power_core") >= 2:
        raise RuleViolation("SF-DMG-5", "a malfunctioning or wrecked power core allows no push action (divert)")
    if cmd.to == "engines":
        if cmd.shields:
            raise RuleViolation("SF-RND-2", "a divert to the engines splits no shield points")
        return EngineeringDeclared(action=EngAction(seat=cmd.seat, action="divert", to="engines"))
    if cmd.to != "shields":
        raise RuleViolation("SF-RND-2", f"divert to 'engines' or 'shields', not {cmd.to!r}")
    split = _shield_split(state, cmd)
    return EngineeringDeclared(action=EngAction(seat=cmd.seat, action="divert", to="shields", shields=split))


def _declare_patch(state: GameState, cmd: C.Patch) -> EngineeringDeclared:
    ship = state.ships[state.crew[cmd.seat].ship]
    if cmd.system not in PATCHABLE:
        raise RuleViolation("SF-RND-2", f"no system {cmd.system!r}; one of {PATCHABLE}")
    if ship.condition(cmd.system) == 0:
        raise RuleViolation("SF-RND-2", f"{cmd.system} has no damage left to patch")
    return EngineeringDeclared(action=EngAction(seat=cmd.seat, action="patch", system=cmd.system))


def _shield_split(state: GameState, cmd: C.Divert) -> dict[str, int]:
    """SF-RND-2: a divert to the shields splits exactly 5% of the PCU over the quadrants (the zeros dropped)."""
    for q, n in cmd.shields.items():
        if q not in ARCS or n < 0:
            raise RuleViolation("SF-RND-2", f"shield split {q!r}: {n} is not a quadrant and a non-negative number")
    ship = state.crew[cmd.seat].ship
    points = diverted_points(state, ship)
    if sum(cmd.shields.values()) != points:
        pcu = state.specs[ship].pcu
        raise RuleViolation("SF-RND-2", f"split exactly {points} shield points (5% of {pcu} PCU)")
    return {q: n for q, n in cmd.shields.items() if n}


def resolve(acc: Acc[GameState], dice: Dice) -> None:
    for action in acc.state.declared:
        st = acc.state
        crew = st.crew[action.seat]
        ship = st.ships[crew.ship]
        if not ship.active:
            continue
        spec = st.specs[crew.ship]
        skill = Modifier("SF-RND-2", "Engineering", st.members[action.seat].engineering)
        if action.action == "patch" and action.system is not None:
            level = ship.condition(action.system)
            if level == 0:
                continue  # another engineer already patched it
            dc = spec.dc(PATCH_DC[level])
            # SF-R-6: the power core's own condition does not hinder patching it (it would, any other system)
            mods, fail = crew_mods(st, action.seat, None, power_core=action.system != "power_core")
            roll, margin = check(
                dice, f"patch {action.system} ({CONDITIONS[level]})", "SF-RND-2", dc, [skill, *mods], fail
            )
            ok = margin >= 0
            patched = ship.patched.get(action.system, 0) + (1 if ok else 0)
            acc.add(
                EngineeringResolved(
                    seat=action.seat,
                    ship=crew.ship,
                    action="patch",
                    dc=dc,
                    success=ok,
                    system=action.system,
                    patched=patched,
                    rolls=(roll,) if roll else (),
                )
            )
            continue
        dc = spec.dc(10)
        mods, fail = crew_mods(st, action.seat, None)
        roll, margin = check(dice, f"divert power to the {action.to}", "SF-RND-2", dc, [skill, *mods], fail)
        ok = margin >= 0
        rolls = (roll,) if roll else ()
        if action.to == "engines":
            acc.add(
                EngineeringResolved(
                    seat=action.seat,
                    ship=crew.ship,
                    action="divert",
                    dc=dc,
                    success=ok,
                    to="engines",
                    speed_bonus=2 if ok else ship.speed_bonus,
                    rolls=rolls,
                )
            )
            continue
        shields, lost = dict(ship.shields), 0
        if ok:
            room = spec.max_shields - sum(shields.values())
            for q in ARCS:
                n = action.shields.get(q, 0)
                add = max(0, min(n, room))
                shields[q] = shields.get(q, 0) + add
                room -= add
                lost += n - add
        acc.add(
            EngineeringResolved(
                seat=action.seat,
                ship=crew.ship,
                action="divert",
                dc=dc,
                success=ok,
                to="shields",
                shields=shields,
                lost=lost,
                rolls=rolls,
            )
        )
