"""Damage: shields, hull, damage threshold, critical damage, disabled and destroyed (SF-DMG-1..6)."""

from __future__ import annotations

from service.domain.core import Dice, Roll

from .events import Crit, DamageApplied
from .geometry import arcs_of, swap
from .state import SYSTEMS, GameState

ARC_DIE = ("forward", "aft", "port", "starboard")  # d4 for the weapons array struck


def roll_damage(dice: Dice, notation: str, linked: bool, what: str) -> tuple[int, list[Roll]]:
    n, sides = (int(x) for x in notation.split("d"))
    rolls = [dice.roll(sides, f"damage ({what})", "SF-DMG-1") for _ in range(n * (2 if linked else 1))]
    return sum(r.value for r in rolls), rolls


def struck(state: GameState, target: str, source_hex: object, pick: str | None) -> tuple[tuple[str, ...], str | None]:
    """SF-DMG-1: the target's quadrants facing the attacker and the one struck (None: the attacker must pick)."""
    t = state.ships[target]
    options = arcs_of(t.hex, t.facing, source_hex)  # type: ignore[arg-type]
    if len(options) == 1:
        return options, options[0]
    return options, pick if pick in options else None


def weakest(state: GameState, target: str, options: tuple[str, ...]) -> str:
    """SF-R-7: an automatic attacker on a boundary strikes the quadrant with the fewest shield points."""
    t = state.ships[target]
    return min(options, key=lambda q: (t.shields.get(shield_quadrant(state, target, q), 0), options.index(q)))


def shield_quadrant(state: GameState, target: str, quadrant: str) -> str:
    """SF-STUNT-2: a rolled ship's port shields guard starboard and vice versa, until the next round."""
    return swap(quadrant) if state.ships[target].rolled and state.phase == "gunnery" else quadrant


def apply_hit(
    state: GameState, target: str, attacker: str, weapon: str, quadrant: str, damage: int, natural20: bool, dice: Dice
) -> DamageApplied:
    t = state.ships[target]
    spec = state.specs[target]
    q = shield_quadrant(state, target, quadrant)
    shield = t.shields.get(q, 0)
    absorbed = min(shield, damage)  # SF-DMG-2
    excess = damage - absorbed
    blocked = 0 < excess <= spec.dt  # SF-DMG-3
    hull_damage = 0 if blocked else excess
    hull = t.hull - hull_damage
    rolls: list[Roll] = []
    crits: list[Crit] = []
    if hull_damage:
        ct = spec.critical_threshold
        count = 0
        if ct:
            count = (spec.hp - hull) // ct - (spec.hp - t.hull) // ct  # SF-DMG-5: one roll per multiple crossed
        if natural20:
            count += 1
        conditions = dict(t.conditions)
        for n in range(count):
            crit, more = _critical(conditions, dice, f"critical damage {n + 1} of {count} to {spec.label}")
            rolls += more
            if crit is not None:
                crits.append(crit)
                conditions[crit.system] = crit.after
    if hull < -spec.hp:
        status = "destroyed"  # SF-DMG-6: total damage exceeds twice the Hull Points
    elif hull <= 0:
        status = "disabled"  # SF-DMG-4
    else:
        status = t.status
    if t.status == "destroyed":
        status = "destroyed"
    return DamageApplied(
        target=target,
        attacker=attacker,
        weapon=weapon,
        quadrant=q,
        damage=damage,
        absorbed=absorbed,
        shield=shield - absorbed,
        hull_damage=hull_damage,
        blocked_by_dt=blocked,
        hull=hull,
        crits=tuple(crits),
        status=status,
        rolls=tuple(rolls),
    )


def _table(value: int) -> int:
    if value <= 10:
        return 0
    if value <= 30:
        return 1
    if value <= 60:
        return 2
    if value <= 80:
        return 3
    return 4


def _critical(conditions: dict[str, int], dice: Dice, purpose: str) -> tuple[Crit | None, list[Roll]]:
    """d% on the critical table; a wrecked system passes the hit down the table (SF-DMG-5)."""
    roll = dice.roll(100, purpose, "SF-DMG-5")
    rolls = [roll]
    start = _table(roll.value)
    for k in range(len(SYSTEMS)):
        system = SYSTEMS[(start + k) % len(SYSTEMS)]
        if system == "weapons":
            arc_roll = dice.roll(4, "weapons array struck (1 forward, 2 aft, 3 port, 4 starboard)", "SF-DMG-5")
            rolls.append(arc_roll)
            system = f"weapons_{ARC_DIE[arc_roll.value - 1]}"
        before = conditions.get(system, 0)
        if before < 3:
            return Crit(system=system, before=before, after=before + 1), _outcome(rolls, system, before + 1)
    return None, _outcome(rolls, "nothing (every system is wrecked)", 3)


def _outcome(rolls: list[Roll], system: str, level: int) -> list[Roll]:
    from msgspec.structs import replace

    from .state import CONDITIONS

    first = replace(rolls[0], outcome=f"{system.replace('_', ' ')} {CONDITIONS[level]}")
    return [first, *rolls[1:]]
