"""d20 checks and their modifiers: crew skill, critical conditions (SF-DMG-5), encouragement, AC and TL."""

from __future__ import annotations

from service.domain.core import Dice, Modifier, Roll

from .scenario import MANOEUVRABILITY, SIZES
from .state import CONDITIONS, GameState

PENALTY = {1: -2, 2: -4}  # glitching, malfunctioning (SF-DMG-5)


def total(roll: Roll) -> int:
    return roll.value + sum(m.value for m in roll.modifiers)


def condition_mods(state: GameState, ship: str, system: str) -> tuple[list[Modifier], bool]:
    """The penalty a system's condition puts on a check using it, and whether the check fails outright."""
    level = state.ships[ship].condition(system)
    name = system.replace("_", " ")
    if level >= 3:
        return [], True
    if level:
        return [Modifier("SF-DMG-5", f"{name} {CONDITIONS[level]}", PENALTY[level])], False
    return [], False


def crew_mods(
    state: GameState, seat: str, system: str | None, *, power_core: bool = True
) -> tuple[list[Modifier], bool]:
    """Modifiers every crew check aboard takes: the system used, the power core (not for the captain), the
    captain's encouragement (SF-R-4). Returns (modifiers, automatic failure)."""
    crew = state.crew[seat]
    mods: list[Modifier] = []
    fail = False
    systems = [system] if system else []
    if power_core and crew.role != "captain" and system != "power_core":
        systems.append("power_core")
    for sysname in systems:
        m, f = condition_mods(state, crew.ship, sysname)
        mods += m
        fail = fail or f
    if crew.bonus:
        mods.append(Modifier("SF-R-4", "the captain's encouragement", crew.bonus))
    return mods, fail


def piloting_check_mods(state: GameState, seat: str, rule: str) -> tuple[list[Modifier], bool]:
    """Every Piloting check of a ship (the helm order, each stunt): the pilot's Piloting, the ship's maximum
    speed (SF-HELM-2) and manoeuvrability (SF-HELM-3) — "a starship's maximum speed modifies Piloting checks for
    that starship" — then the engines, the power core and the captain's encouragement (SF-R-6, SF-R-4)."""
    spec = state.specs[state.crew[seat].ship]
    mods = [
        Modifier(rule, "Piloting", state.members[seat].piloting),
        Modifier("SF-HELM-2", f"speed {spec.speed}", speed_modifier(spec.speed)),
        Modifier("SF-HELM-3", f"{spec.maneuverability} manoeuvrability", MANOEUVRABILITY[spec.maneuverability][1]),
    ]
    extra, fail = crew_mods(state, seat, "engines")
    return [m for m in mods if m.value] + extra, fail


def speed(state: GameState, ship: str) -> int:
    return state.specs[ship].speed + state.ships[ship].speed_bonus


def half_speed(state: GameState, ship: str) -> int:
    return speed(state, ship) // 2  # general ruling: "half speed" rounds down


def speed_modifier(speed: int) -> int:
    """SF-HELM-2, with SF-HELM-2's ruling for odd speeds (the next even speed up)."""
    if speed <= 4:
        return 2
    if speed <= 6:
        return 1
    if speed <= 10:
        return 0
    if speed <= 12:
        return -1
    return -2


def turn_distance(state: GameState, ship: str) -> int:
    return MANOEUVRABILITY[state.specs[ship].maneuverability][0]


def defence(state: GameState, ship: str, kind: str) -> tuple[int, list[Modifier]]:
    """SF-GUN-7: AC = 10 + pilot ranks + armour + size; TL = 10 + pilot ranks + countermeasures + size; plus stunts."""
    spec = state.specs[ship]
    pilot = state.pilot(ship)
    mods = [Modifier("SF-GUN-7", "base", 10)]
    if pilot and pilot.piloting_ranks:
        mods.append(Modifier("SF-GUN-7", "pilot's Piloting ranks", pilot.piloting_ranks))
    if kind == "AC" and spec.armor:
        mods.append(Modifier("SF-GUN-7", "armour", spec.armor))
    if kind == "TL" and spec.countermeasures:
        mods.append(Modifier("SF-GUN-7", "defensive countermeasures", spec.countermeasures))
    if SIZES[spec.size]:
        mods.append(Modifier("SF-GUN-7", f"size {spec.size}", SIZES[spec.size]))
    d = state.ships[ship].defence
    if d:
        mods.append(Modifier("SF-GUN-7", "stunt effects until the next round", d))
    return sum(m.value for m in mods), mods


def check(dice: Dice, purpose: str, rule: str, dc: int, mods: list[Modifier], fail: bool) -> tuple[Roll | None, int]:
    """Roll d20 + mods against dc; an automatic failure rolls nothing. Returns (roll, margin = total − dc)."""
    if fail:
        return None, -1
    roll = dice.roll_high(20, purpose, rule, dc, tuple(mods))
    return roll, total(roll) - dc


def total_of(mods: list[Modifier]) -> int:
    return sum(m.value for m in mods)
