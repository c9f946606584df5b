"""Hit location tables, armour saves, and applying damage with every effect (ASC-LOC, ASC-DMG)."""

from __future__ import annotations

from collections.abc import Callable

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
PICKED_FIXTURES = {"sensor": "sensor array", "missile_bay": "missile bay"}  # fixture -> what the pick names


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
        return _turret_strike(dice, spec, st, damage, rolls)
    if where == "surface":
        return _surface_strike(dice, spec, st, damage, rolls)
    if where == "critical":
        return _critical_strike(dice, spec, st, damage, rolls)
    return Strike(damage=damage, location=where)


def _turret_strike(dice: Dice, spec: VesselSpec, st: Status, damage: int, rolls: list[Roll]) -> Strike:
    """ASC-LOC-5: which working mount is hit; a jack turret's hit may be saved by armour (ASC-LOC-4)."""
    mounts = working_mounts(spec, st)
    if not mounts:
        return Strike(damage=damage, location="hull")
    mount = _pick(dice, mounts, "weapon mount", "ASC-LOC-5", rolls)
    jack = any(t.id == mount and t.type == "jack" for t in spec.turrets)
    if jack and _armour_save(dice, spec, st, damage, rolls):
        return Strike(damage=damage, location="hull", part=mount, saved=True)
    return Strike(damage=damage, location="turret", part=mount)


def _surface_strike(dice: Dice, spec: VesselSpec, st: Status, damage: int, rolls: list[Roll]) -> Strike:
    """ASC-LOC-2: which surface fixture is hit; a sensor array or missile bay is picked among those left."""
    surface = dice.roll(10, "surface fixture", "ASC-LOC-2")
    fixture = SURFACE[surface.value]
    rolls.append(replace(surface, outcome=fixture))
    if fixture in PICKED_FIXTURES:
        parts = _fixture_parts(spec, st, fixture)
        if not parts:
            return Strike(damage=damage, location="hull")
        part = _pick(dice, parts, PICKED_FIXTURES[fixture], "ASC-DMG-4", rolls)
        return Strike(damage=damage, location=fixture, part=part)
    if _fixture_missing(spec, st, fixture):
        return Strike(damage=damage, location="hull")
    return Strike(damage=damage, location=fixture)


def _fixture_parts(spec: VesselSpec, st: Status, fixture: str) -> list[str]:
    """The sensor arrays still working, or every missile bay."""
    if fixture == "sensor":
        return [s.id for s in spec.sensors if s.id not in st.sensors_lost]
    return [b.id for b in spec.missile_bays]


def _fixture_missing(spec: VesselSpec, st: Status, fixture: str) -> bool:
    """The vessel has none of this fixture (or none left), so the hit goes to the hull."""
    return (
        fixture == "remote_communicator"
        and remote_comms(spec, st) == 0
        or fixture == "screen_generator"
        and st.screen_max == 0
        or fixture == "hangar"
        and spec.hangars == 0
        or fixture == "tta"
        and spec.ttas - st.ttas_lost <= 0
    )


def _critical_strike(dice: Dice, spec: VesselSpec, st: Status, damage: int, rolls: list[Roll]) -> Strike:
    """ASC-LOC-3: an armour save first (ASC-LOC-4), then which system; a carrier's TAC or a flagship's
    bridge may lose its split-off compartment instead (ASC-LOC-5)."""
    if _armour_save(dice, spec, st, damage, rolls):
        return Strike(damage=damage, location="hull", saved=True)
    crit = dice.roll(10, "critical hit", "ASC-LOC-3")
    system = CRITICAL[crit.value]
    rolls.append(replace(crit, outcome=system))
    if system == "tac" and spec.carrier or system == "bridge" and spec.flagship:
        system = _split_off(dice, system, rolls)
    return Strike(damage=damage, location=system)


def _split_off(dice: Dice, system: str, rolls: list[Roll]) -> str:
    """ASC-LOC-5: on a 6+ the hit lands in the split-off compartment (fighter control, flag communications)."""
    split = dice.roll(10, "split-off compartment", "ASC-LOC-5", 6)
    hit_split = split.value >= 6
    compartment = "fighter_control" if system == "tac" else "flag_communications"
    rolls.append(replace(split, outcome=compartment if hit_split else system))
    return compartment if hit_split else system


def _add(d: dict[str, int], key: str, n: int) -> dict[str, int]:
    out = dict(d)
    out[key] = out.get(key, 0) + n
    return out


def apply_strikes(spec: VesselSpec, st: Status, strikes: tuple[Strike, ...]) -> tuple[Status, list[str]]:
    """ASC-DMG-1..4: the vessel's status after the fire phase's damage, and what happened, in words (one
    step per location, ``EFFECTS``; a location without a step, or a strike without its part, does nothing)."""
    notes: list[str] = []
    for s in strikes:
        effect = EFFECTS.get(s.location)
        if effect is None or (s.location in NEEDS_PART and not s.part):
            continue
        st, note = effect(spec, st, s)
        if note:
            notes.append(note)
    if st.hull_damage >= spec.hull:
        notes.append("hull collapsed")
    return st, notes


Effect = Callable[[VesselSpec, Status, Strike], tuple[Status, str]]
NEEDS_PART = ("turret", "sensor", "missile_bay")


def _hull(spec: VesselSpec, st: Status, s: Strike) -> tuple[Status, str]:
    d = s.damage
    st = replace(st, hull_damage=st.hull_damage + d)
    return st, f"{d} hull" + (" (armour save)" if s.saved else "")


def _power_plant(spec: VesselSpec, st: Status, s: Strike) -> tuple[Status, str]:
    """ASC-DMG-3: a shutdown drops screens and active sensors at once."""
    d = s.damage
    was_destroyed = power_destroyed(spec, st)
    st = replace(st, power_plant_damage=min(spec.power_plant, st.power_plant_damage + d))
    note = f"{d} power plant" + (" (destroyed)" if power_destroyed(spec, st) else "")
    if power_shutdown(spec, st) and not was_destroyed:
        st = replace(st, screen=0, active=False)
    return st, note


def _damage_control(spec: VesselSpec, st: Status, s: Strike) -> tuple[Status, str]:
    return replace(st, dc_teams=max(0, st.dc_teams - 1)), "a damage control team killed"


def _turret(spec: VesselSpec, st: Status, s: Strike) -> tuple[Status, str]:
    assert s.part is not None
    if s.part not in st.mounts_lost:
        st = replace(st, mounts_lost=(*st.mounts_lost, s.part))
    return st, f"mount {s.part} unusable for the battle"


def _sensor(spec: VesselSpec, st: Status, s: Strike) -> tuple[Status, str]:
    """ASC-DET-6: a redundant antenna goes first, then the sensor."""
    assert s.part is not None
    sensor = next(x for x in spec.sensors if x.id == s.part)
    lost = st.antennas_lost.get(s.part, 0)
    if lost < sensor.redundant_antennas:
        st = replace(st, antennas_lost=_add(st.antennas_lost, s.part, 1))
        return st, f"sensor {s.part} lost a redundant antenna"
    if s.part not in st.sensors_lost:
        st = replace(st, sensors_lost=(*st.sensors_lost, s.part))
        return st, f"sensor {s.part} wrecked"
    return st, ""


def _remote_communicator(spec: VesselSpec, st: Status, s: Strike) -> tuple[Status, str]:
    return replace(st, remote_comms_lost=st.remote_comms_lost + 1), "a remote communicator destroyed"


def _screen_generator(spec: VesselSpec, st: Status, s: Strike) -> tuple[Status, str]:
    new_max = max(0, st.screen_max - 1)
    st = replace(st, screen_max=new_max, screen=min(st.screen or 0, new_max))
    return st, f"screen generator hit: max screen {new_max}"


def _missile_bay(spec: VesselSpec, st: Status, s: Strike) -> tuple[Status, str]:
    assert s.part is not None
    d = s.damage
    missiles = dict(st.missiles)
    missiles[s.part] = max(0, missiles.get(s.part, 0) - 1)
    bays_out = st.bays_out if s.part in st.bays_out else (*st.bays_out, s.part)
    st = replace(st, missiles=missiles, bays_out=bays_out, repair=_add(st.repair, f"missile_bay:{s.part}", d))
    return st, f"missile bay {s.part} out, one missile lost"


def _hangar(spec: VesselSpec, st: Status, s: Strike) -> tuple[Status, str]:
    """ASC-DMG-4: no launches until repaired, one small craft unflyable (ruling ASC-R-31)."""
    d = s.damage
    st = replace(
        st,
        hangars_out=min(spec.hangars, st.hangars_out + 1),
        small_craft=max(0, st.small_craft - 1),
        repair=_add(st.repair, "hangar", d),
    )
    return st, "a hangar out, one small craft unflyable"


def _tta(spec: VesselSpec, st: Status, s: Strike) -> tuple[Status, str]:
    return replace(st, ttas_lost=min(spec.ttas, st.ttas_lost + 1)), "a TTA unusable for the battle"


def _computer(spec: VesselSpec, st: Status, s: Strike) -> tuple[Status, str]:
    return replace(st, computer_out=True, repair=_add(st.repair, "computer", s.damage)), "computer down"


def _accommodation(spec: VesselSpec, st: Status, s: Strike) -> tuple[Status, str]:
    lost = min(100, st.quarters // 2)
    st = replace(st, quarters=st.quarters - lost, marines=max(0, st.marines - 100))
    return st, f"{lost} quarters lost"


def _cargo(spec: VesselSpec, st: Status, s: Strike) -> tuple[Status, str]:
    return replace(st, cargo=max(0, st.cargo - 1000)), "1000 t of cargo lost"


def _drive(spec: VesselSpec, st: Status, s: Strike) -> tuple[Status, str]:
    st = replace(st, drive_out=True, repair=_add(st.repair, "drive", s.damage))
    return st, "drive hit: cannot move until repaired"


def _continuing(spec: VesselSpec, st: Status, s: Strike) -> tuple[Status, str]:
    return replace(st, continuing=(*st.continuing, s.damage)), "continuing damage"


def _knocked_out(flag: str, note: str) -> Effect:
    """A system out for the battle (or until a backup takes over, ASC-DC-3)."""

    def effect(spec: VesselSpec, st: Status, s: Strike) -> tuple[Status, str]:
        return replace(st, **{flag: True}), note

    return effect


EFFECTS: dict[str, Effect] = {
    "hull": _hull,
    "power_plant": _power_plant,
    "damage_control": _damage_control,
    "turret": _turret,
    "sensor": _sensor,
    "remote_communicator": _remote_communicator,
    "screen_generator": _screen_generator,
    "missile_bay": _missile_bay,
    "hangar": _hangar,
    "tta": _tta,
    "computer": _computer,
    "tac": _knocked_out("tac_out", "TAC destroyed"),
    "bridge": _knocked_out("bridge_out", "bridge destroyed"),
    "fighter_control": _knocked_out("fighter_control_out", "fighter control destroyed"),
    "flag_communications": _knocked_out("flag_comms_out", "flag communications destroyed"),
    "accommodation": _accommodation,
    "engineering": _knocked_out("engineering_out", "engineering destroyed: no further damage control"),
    "cargo": _cargo,
    "drive": _drive,
    "continuing": _continuing,
}


def hull_destroyed(spec: VesselSpec, st: Status) -> bool:
    return st.hull_damage >= spec.hull
