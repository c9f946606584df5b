"""Hit location tables, armour saves, and applying damage with every effect (ASC-LOC, ASC-DMG)."""

from __future__ import annotations

from msgspec.structs import replace

from service.domain.core import Dice, Roll

from .condition import effective_armour, power_destroyed, power_shutdown, remote_comms, working_mounts
from .scenario import VesselSpec
from .state import Status, Strike

GENERAL = {
    1: "hull",
    2: "hull",
    3: "hull",
    4: "hull",
    5: "power_plant",
    6: "power_plant",
    7: "damage_control",
    8: "surface",
    9: "turret",
    10: "critical",
}
SURFACE = {
    1: "sensor",
    2: "sensor",
    3: "remote_communicator",
    4: "screen_generator",
    5: "missile_bay",
    6: "missile_bay",
    7: "hangar",
    8: "hangar",
    9: "tta",
    10: "tta",
}
CRITICAL = {
    1: "computer",
    2: "tac",
    3: "bridge",
    4: "accommodation",
    5: "engineering",
    6: "cargo",
    7: "drive",
    8: "continuing",
    9: "continuing",
    10: "continuing",
}
REPAIRABLE = ("power_plant", "missile_bay", "hangar", "computer", "drive", "continuing")  # ASC-DC-2


def _pick(dice: Dice, options: list[str], what: str, rule: str, rolls: list[Roll]) -> str:
    """A random choice among parts, recorded as a roll (one die of len(options) sides)."""
    if len(options) == 1:
        return options[0]
    roll = dice.roll(len(options), f"which {what}", rule)
    rolls.append(roll)
    return options[roll.value - 1]


def _armour_save(dice: Dice, spec: VesselSpec, st: Status, damage: int, rolls: list[Roll]) -> bool:
    """ASC-LOC-4: d10 + (damage - 1) <= armour converts the hit to a hull hit."""
    armour = effective_armour(spec, st)
    if armour <= 0:
        return False
    roll = dice.roll(10, "armour save", "ASC-LOC-4", armour)
    saved = roll.value + damage - 1 <= armour
    rolls.append(replace(roll, outcome="saved" if saved else "not saved"))
    return saved


def locate(dice: Dice, spec: VesselSpec, st: Status, damage: int, rolls: list[Roll]) -> Strike:
    """Roll where one strike lands (ASC-LOC-1..5). A fixture the vessel lacks becomes a hull hit."""
    general = dice.roll(10, "hit location", "ASC-LOC-1")
    where = GENERAL[general.value]
    rolls.append(replace(general, outcome=where))
    if where == "power_plant" and spec.power_plant == 0:
        return Strike(damage=damage, location="hull")
    if where == "turret":
        mounts = working_mounts(spec, st)
        if not mounts:
            return Strike(damage=damage, location="hull")
        mount = _pick(dice, mounts, "weapon mount", "ASC-LOC-5", rolls)
        jack = any(t.id == mount and t.type == "jack" for t in spec.turrets)
        if jack and _armour_save(dice, spec, st, damage, rolls):
            return Strike(damage=damage, location="hull", part=mount, saved=True)
        return Strike(damage=damage, location="turret", part=mount)
    if where == "surface":
        surface = dice.roll(10, "surface fixture", "ASC-LOC-2")
        fixture = SURFACE[surface.value]
        rolls.append(replace(surface, outcome=fixture))
        part: str | None = None
        if fixture == "sensor":
            working = [s.id for s in spec.sensors if s.id not in st.sensors_lost]
            if not working:
                return Strike(damage=damage, location="hull")
            part = _pick(dice, working, "sensor array", "ASC-DMG-4", rolls)
        elif fixture == "missile_bay":
            bays = [b.id for b in spec.missile_bays]
            if not bays:
                return Strike(damage=damage, location="hull")
            part = _pick(dice, bays, "missile bay", "ASC-DMG-4", rolls)
        elif (
            fixture == "remote_communicator"
            and remote_comms(spec, st) == 0
            or fixture == "screen_generator"
            and st.screen_max == 0
            or fixture == "hangar"
            and spec.hangars == 0
            or fixture == "tta"
            and spec.ttas - st.ttas_lost <= 0
        ):
            return Strike(damage=damage, location="hull")
        return Strike(damage=damage, location=fixture, part=part)
    if where == "critical":
        if _armour_save(dice, spec, st, damage, rolls):
            return Strike(damage=damage, location="hull", saved=True)
        crit = dice.roll(10, "critical hit", "ASC-LOC-3")
        system = CRITICAL[crit.value]
        rolls.append(replace(crit, outcome=system))
        if system == "tac" and spec.carrier or system == "bridge" and spec.flagship:
            split = dice.roll(10, "split-off compartment", "ASC-LOC-5", 6)
            hit_split = split.value >= 6
            compartment = "fighter_control" if system == "tac" else "flag_communications"
            rolls.append(replace(split, outcome=compartment if hit_split else system))
            if hit_split:
                system = compartment
        return Strike(damage=damage, location=system)
    return Strike(damage=damage, location=where)


def _add(d: dict[str, int], key: str, n: int) -> dict[str, int]:
    out = dict(d)
    out[key] = out.get(key, 0) + n
    return out


def apply_strikes(spec: VesselSpec, st: Status, strikes: tuple[Strike, ...]) -> tuple[Status, list[str]]:
    """ASC-DMG-1..4: the vessel's status after the fire phase's damage, and what happened, in words."""
    notes: list[str] = []
    for s in strikes:
        d, loc = s.damage, s.location
        if loc == "hull":
            st = replace(st, hull_damage=st.hull_damage + d)
            notes.append(f"{d} hull" + (" (armour save)" if s.saved else ""))
        elif loc == "power_plant":
            was_destroyed = power_destroyed(spec, st)
            st = replace(st, power_plant_damage=min(spec.power_plant, st.power_plant_damage + d))
            notes.append(f"{d} power plant" + (" (destroyed)" if power_destroyed(spec, st) else ""))
            if power_shutdown(spec, st) and not was_destroyed:
                st = replace(st, screen=0, active=False)
        elif loc == "damage_control":
            st = replace(st, dc_teams=max(0, st.dc_teams - 1))
            notes.append("a damage control team killed")
        elif loc == "turret" and s.part:
            if s.part not in st.mounts_lost:
                st = replace(st, mounts_lost=(*st.mounts_lost, s.part))
            notes.append(f"mount {s.part} unusable for the battle")
        elif loc == "sensor" and s.part:
            sensor = next(x for x in spec.sensors if x.id == s.part)
            lost = st.antennas_lost.get(s.part, 0)
            if lost < sensor.redundant_antennas:
                st = replace(st, antennas_lost=_add(st.antennas_lost, s.part, 1))
                notes.append(f"sensor {s.part} lost a redundant antenna")
            elif s.part not in st.sensors_lost:
                st = replace(st, sensors_lost=(*st.sensors_lost, s.part))
                notes.append(f"sensor {s.part} wrecked")
        elif loc == "remote_communicator":
            st = replace(st, remote_comms_lost=st.remote_comms_lost + 1)
            notes.append("a remote communicator destroyed")
        elif loc == "screen_generator":
            new_max = max(0, st.screen_max - 1)
            st = replace(st, screen_max=new_max, screen=min(st.screen or 0, new_max))
            notes.append(f"screen generator hit: max screen {new_max}")
        elif loc == "missile_bay" and s.part:
            missiles = dict(st.missiles)
            missiles[s.part] = max(0, missiles.get(s.part, 0) - 1)
            bays_out = st.bays_out if s.part in st.bays_out else (*st.bays_out, s.part)
            st = replace(st, missiles=missiles, bays_out=bays_out, repair=_add(st.repair, f"missile_bay:{s.part}", d))
            notes.append(f"missile bay {s.part} out, one missile lost")
        elif loc == "hangar":
            st = replace(
                st,
                hangars_out=min(spec.hangars, st.hangars_out + 1),
                small_craft=max(0, st.small_craft - 1),
                repair=_add(st.repair, "hangar", d),
            )
            notes.append("a hangar out, one small craft unflyable")
        elif loc == "tta":
            st = replace(st, ttas_lost=min(spec.ttas, st.ttas_lost + 1))
            notes.append("a TTA unusable for the battle")
        elif loc == "computer":
            st = replace(st, computer_out=True, repair=_add(st.repair, "computer", d))
            notes.append("computer down")
        elif loc == "tac":
            st = replace(st, tac_out=True)
            notes.append("TAC destroyed")
        elif loc == "bridge":
            st = replace(st, bridge_out=True)
            notes.append("bridge destroyed")
        elif loc == "fighter_control":
            st = replace(st, fighter_control_out=True)
            notes.append("fighter control destroyed")
        elif loc == "flag_communications":
            st = replace(st, flag_comms_out=True)
            notes.append("flag communications destroyed")
        elif loc == "accommodation":
            lost = min(100, st.quarters // 2)
            st = replace(st, quarters=st.quarters - lost, marines=max(0, st.marines - 100))
            notes.append(f"{lost} quarters lost")
        elif loc == "engineering":
            st = replace(st, engineering_out=True)
            notes.append("engineering destroyed: no further damage control")
        elif loc == "cargo":
            st = replace(st, cargo=max(0, st.cargo - 1000))
            notes.append("1000 t of cargo lost")
        elif loc == "drive":
            st = replace(st, drive_out=True, repair=_add(st.repair, "drive", d))
            notes.append("drive hit: cannot move until repaired")
        elif loc == "continuing":
            st = replace(st, continuing=(*st.continuing, d))
            notes.append("continuing damage")
    if st.hull_damage >= spec.hull:
        notes.append("hull collapsed")
    return st, notes


def hull_destroyed(spec: VesselSpec, st: Status) -> bool:
    return st.hull_damage >= spec.hull
