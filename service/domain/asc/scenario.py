"""Vessel data sheets (the digest's "Scenario data") and the numbers derived from them."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any, ClassVar, Literal

import msgspec

from service.domain.core import InvalidScenario
from service.domain.core.hexgrid import Hex

SIDES = ("advantaged", "disadvantaged")
Side = Literal["advantaged", "disadvantaged"]
Kind = Literal["starship", "missile", "drone", "buoy", "satellite"]
Manoeuvre = Literal["A+", "A", "B", "C", "D", "E"]
TurretType = Literal["normal", "masked", "jack", "gun_tower", "warhead"]
WeaponType = Literal["laser", "particle_beam", "det"]

# ASC-MOV-2: movement points to turn one hexside.
TURN_COST: dict[str, Fraction] = {
    "A+": Fraction(0),
    "A": Fraction(1, 3),
    "B": Fraction(1, 2),
    "C": Fraction(1),
    "D": Fraction(2),
    "E": Fraction(3),
}
# ASC-FIRE-3: arcs per turret type ("warhead": a missile's or drone's warhead bears all round, ASC-R-9).
ARC_COUNT = {"normal": 3, "masked": 3, "jack": 2, "gun_tower": 4, "warhead": 6}
ENERGY_WEAPONS = ("laser", "particle_beam")
CRAFT_KINDS = ("starship", "drone")  # ASC-CRAFT-1: a carried fighter is a starship (the text's definition)

_DAMAGE = re.compile(r"^([1-9][0-9]*)x([1-9][0-9]*)$")
_ROF = re.compile(r"^([1-9][0-9]*)(?:/([1-9][0-9]*))?$")
_SIG = re.compile(r"^([0-9]+)(?:\(([0-9]+)\))?$")


class Strict(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


class SensorSpec(Strict, frozen=True):
    id: str
    type: Literal["active", "passive"]
    rating: int
    redundant_antennas: int = 0
    operator_skill: int | None = None  # default: the crew quality


class TurretSpec(Strict, frozen=True):
    id: str
    type: TurretType = "normal"
    arcs: tuple[int, ...] = (5, 0, 1)  # relative to the vessel's facing, 0 = dead ahead
    weapon: str = "laser"
    weapon_type: WeaponType = "laser"
    mounts: int = 1
    targeting: int = 0
    damage: str = "1x1"
    utes: bool = False


class LauncherSpec(Strict, frozen=True):
    """A submunition launcher (ASC-FIRE-7)."""

    id: str
    weapon: str = "submunition"
    weapon_type: WeaponType = "det"
    rounds: int = 1
    rof: str = "1"
    targeting: int = 0
    damage: str = "1x1"


class MissileBaySpec(Strict, frozen=True):
    id: str
    missiles: int = 0


class Backups(Strict, frozen=True):
    databus: bool = False
    tac: bool = False
    bridge: bool = False


class VesselSpec(Strict, frozen=True):
    HASH_NEUTRAL: ClassVar[frozenset[str]] = frozenset({"carried_by"})  # added after battle files were exported

    id: str
    name: str
    side: Side
    kind: Kind = "starship"
    hex: Hex = Hex(0, 0)
    facing: int = 0
    warp_efficiency: float = 0.0
    manoeuvre: Manoeuvre = "C"
    active_signature: int = 0
    passive_signature: int | str = 0  # x, or masked "x(y)"
    sensors: tuple[SensorSpec, ...] = ()
    operators: int | None = None  # None: every sensor has an operator (digest ruling)
    ttas: int = 0
    turrets: tuple[TurretSpec, ...] = ()
    launchers: tuple[LauncherSpec, ...] = ()
    missile_bays: tuple[MissileBaySpec, ...] = ()
    screens: int = 0
    armour: int = 0
    hull: int = 1
    power_plant: int = 0
    dc_teams: int = 0
    crew_quality: int = 0
    target_profile: int = 0
    target_computer: int = 0
    backups: Backups = Backups()
    hangars: int = 0
    small_craft: int = 0
    remote_communicators: int = 0
    accommodation: int = 0
    marines: int = 0
    cargo: int = 0
    controller: str | None = None  # for remotes: the vessel controlling it
    carried_by: str | None = None  # a small craft: the carrier whose hangar it starts in (ASC-CRAFT-1)
    carrier: bool = False
    flagship: bool = False
    atmospheric: bool = False  # in a planet's atmosphere (ASC-FIRE-5)


class Setup(Strict, frozen=True):
    name: str
    description: str = ""
    map_radius: int = 10
    turn_limit: int = 12
    side_names: dict[str, str] = {}
    planet_hexes: tuple[Hex, ...] = ()
    victory: str = "Destroy or drive off every enemy starship."
    turn_limit_winner: Side | None = None  # who wins when the turn limit is reached with both sides in it (ASC-R-8)
    vessels: tuple[VesselSpec, ...] = ()


# ---------------------------------------------------------------------------------------- parsing


def parse_damage(text: str) -> tuple[int, int]:
    m = _DAMAGE.match(text)
    if not m:
        raise ValueError(f"damage {text!r} is not of the form AxB")
    return int(m.group(1)), int(m.group(2))


def parse_rof(text: str) -> Fraction:
    m = _ROF.match(text)
    if not m:
        raise ValueError(f"ROF {text!r} is not a number or a fraction like 1/3")
    value = Fraction(int(m.group(1)), int(m.group(2) or 1))
    if value > 1:
        raise ValueError(f"ROF {text!r} is above one shot per turn")
    return value


def parse_signature(value: int | str) -> tuple[int, int | None]:
    """Passive signature -> (value, unmasked value or None when the vessel is not masked)."""
    if isinstance(value, int):
        if value < 0:
            raise ValueError("signature must not be negative")
        return value, None
    m = _SIG.match(value.replace(" ", ""))
    if not m:
        raise ValueError(f"passive signature {value!r} is not x or x(y)")
    return int(m.group(1)), (int(m.group(2)) if m.group(2) is not None else None)


def movement_allowance(spec: VesselSpec) -> int:
    """ASC-MOV-1: round-half-up(warp efficiency x 2); no stardrive = 0."""
    if spec.warp_efficiency <= 0:
        return 0
    doubled = Fraction(str(spec.warp_efficiency)) * 2
    return int(doubled + Fraction(1, 2))


def stutterwarps(spec: VesselSpec) -> bool:
    """Has a stardrive, so it always shows as a bogey (ASC-DET-1)."""
    return spec.warp_efficiency > 0


def bogey_order_key(spec: VesselSpec) -> tuple[int, int, str]:
    """Tokens are numbered by starting hex; ties by a hash so the token order does not spell ids."""
    return (spec.hex.q, spec.hex.r, hashlib.sha256(spec.id.encode()).hexdigest())


# ------------------------------------------------------------------------------------- validation


def _check(cond: bool, path: str, detail: str) -> None:
    if not cond:
        raise InvalidScenario(path, detail)


def validate(setup: Setup) -> None:
    _check(setup.map_radius >= 1, "map_radius", "must be at least 1")
    _check(setup.turn_limit >= 1, "turn_limit", "must be at least 1")
    for key in setup.side_names:
        _check(key in SIDES, f"side_names.{key}", "sides are 'advantaged' and 'disadvantaged'")
    ids: dict[str, VesselSpec] = {}
    for i, v in enumerate(setup.vessels):
        p = f"vessels[{i}]"
        _check(bool(v.id) and not v.id.startswith("bogey-"), f"{p}.id", "must be non-empty, not 'bogey-…'")
        _check(v.id not in ids, f"{p}.id", f"duplicate vessel id {v.id!r}")
        ids[v.id] = v
        _check_vessel(setup, v, p)
    for i, v in enumerate(setup.vessels):
        if v.controller is not None:
            _check_controller(v, ids, f"vessels[{i}].controller")
    _check_carried(setup, ids)
    for side in SIDES:
        _check(any(v.side == side for v in setup.vessels), "vessels", f"no vessel on the {side} side")


_COUNTS = (
    "ttas",
    "armour",
    "dc_teams",
    "hangars",
    "small_craft",
    "remote_communicators",
    "accommodation",
    "marines",
    "cargo",
    "power_plant",
)


def _parses(parse: Callable[[Any], object], value: Any, path: str) -> None:
    """A text field its parser accepts; the parser's complaint becomes the scenario's."""
    try:
        parse(value)
    except ValueError as exc:
        raise InvalidScenario(path, str(exc)) from exc


def _check_vessel(setup: Setup, v: VesselSpec, p: str) -> None:
    """One vessel's own numbers, then its parts (part ids unique within the vessel), then its setting."""
    _check(bool(v.name), f"{p}.name", "must not be empty")
    _check(v.hex.distance_to(Hex(0, 0)) <= setup.map_radius, f"{p}.hex", "is off the map")
    _check(0 <= v.facing <= 5, f"{p}.facing", "must be 0..5 (N, NE, SE, S, SW, NW)")
    _check(v.warp_efficiency >= 0, f"{p}.warp_efficiency", "must not be negative")
    _check(v.active_signature >= 0, f"{p}.active_signature", "must not be negative")
    _parses(parse_signature, v.passive_signature, f"{p}.passive_signature")
    for name in _COUNTS:
        _check(getattr(v, name) >= 0, f"{p}.{name}", "must not be negative")
    _check(v.hull >= 1, f"{p}.hull", "must be at least 1")
    _check(0 <= v.screens <= 9, f"{p}.screens", "max screen rating is 0..9 (ASC-SCR-3)")
    _check(v.operators is None or v.operators >= 0, f"{p}.operators", "must not be negative")
    if v.kind in ("starship", "drone"):
        _check(v.power_plant >= 1, f"{p}.power_plant", f"a {v.kind} needs a power plant")
    part_ids: set[str] = set()
    _check_sensors(v, p, part_ids)
    _check_turrets(v, p, part_ids)
    _check_launchers(v, p, part_ids)
    _check_missile_bays(v, p, part_ids)
    if v.atmospheric:
        _check(v.hex in setup.planet_hexes, f"{p}.atmospheric", "an atmospheric vessel must be in a planet hex")


def _check_part_id(part_id: str, path: str, part_ids: set[str]) -> None:
    _check(part_id not in part_ids, f"{path}.id", f"duplicate part id {part_id!r}")
    part_ids.add(part_id)


def _check_sensors(v: VesselSpec, p: str, part_ids: set[str]) -> None:
    for j, s in enumerate(v.sensors):
        sp = f"{p}.sensors[{j}]"
        _check_part_id(s.id, sp, part_ids)
        _check(s.rating >= 1, f"{sp}.rating", "must be at least 1 hex")
        _check(s.redundant_antennas >= 0, f"{sp}.redundant_antennas", "must not be negative")


def _check_turrets(v: VesselSpec, p: str, part_ids: set[str]) -> None:
    for j, t in enumerate(v.turrets):
        tp = f"{p}.turrets[{j}]"
        _check_part_id(t.id, tp, part_ids)
        _check(1 <= t.mounts <= 4, f"{tp}.mounts", "mount count is 1..4")
        _parses(parse_damage, t.damage, f"{tp}.damage")
        want = ARC_COUNT[t.type]
        _check(
            len(set(t.arcs)) == len(t.arcs) == want,
            f"{tp}.arcs",
            f"a {t.type} turret covers exactly {want} distinct arcs",
        )
        _check(all(0 <= a <= 5 for a in t.arcs), f"{tp}.arcs", "arcs are 0..5")
        _check(_contiguous(t.arcs), f"{tp}.arcs", "arcs must be adjacent to each other")
        _check(
            t.type != "warhead" or v.kind in ("missile", "drone"),
            f"{tp}.type",
            "only missiles and drones carry warheads",
        )


def _check_launchers(v: VesselSpec, p: str, part_ids: set[str]) -> None:
    for j, lnch in enumerate(v.launchers):
        lp = f"{p}.launchers[{j}]"
        _check_part_id(lnch.id, lp, part_ids)
        _check(lnch.rounds >= 0, f"{lp}.rounds", "must not be negative")
        _parses(parse_rof, lnch.rof, f"{lp}.rof")
        _parses(parse_damage, lnch.damage, f"{lp}.damage")


def _check_missile_bays(v: VesselSpec, p: str, part_ids: set[str]) -> None:
    for j, b in enumerate(v.missile_bays):
        bp = f"{p}.missile_bays[{j}]"
        _check_part_id(b.id, bp, part_ids)
        _check(b.missiles >= 0, f"{bp}.missiles", "must not be negative")


def _check_controller(v: VesselSpec, ids: dict[str, VesselSpec], p: str) -> None:
    """A remote's controller: a manned vessel of its own side."""
    assert v.controller is not None
    c = ids.get(v.controller)
    _check(c is not None, p, f"no vessel {v.controller!r}")
    assert c is not None
    _check(c.side == v.side, p, "a remote is controlled from its own side")
    _check(c.id != v.id and c.controller is None, p, "the controller must be a manned vessel")
    _check(v.kind in ("missile", "drone", "buoy", "satellite"), p, "only remotes have a controller")


def _check_carried(setup: Setup, ids: dict[str, VesselSpec]) -> None:
    """ASC-CRAFT-1: small craft start aboard a carrier of their own side with a hangar, no more of them than
    its ``small_craft``; a fighter (a starship) or a drone with a stardrive; a carried drone is controlled
    from its carrier (ruling ASC-R-29)."""
    aboard: dict[str, int] = {}
    for i, v in enumerate(setup.vessels):
        if v.carried_by is None:
            continue
        p = f"vessels[{i}].carried_by"
        c = ids.get(v.carried_by)
        _check(c is not None and c.side == v.side, p, f"no vessel {v.carried_by!r} on the {v.side} side")
        assert c is not None
        _check(c.carried_by is None and c.id != v.id, p, "a carrier is not itself carried")
        _check(c.hangars >= 1, p, f"{c.id} has no hangar")
        _check(v.kind in CRAFT_KINDS and stutterwarps(v), p, "small craft are fighters or drones with a stardrive")
        if v.kind == "drone":
            _check(v.controller == c.id, f"vessels[{i}].controller", "a carried drone is controlled from its carrier")
        aboard[c.id] = aboard.get(c.id, 0) + 1
        _check(aboard[c.id] <= c.small_craft, p, f"{c.id} carries at most {c.small_craft} small craft")


def _contiguous(arcs: tuple[int, ...]) -> bool:
    if len(arcs) in (0, 6):
        return True
    s = set(arcs)
    starts = [a for a in s if (a - 1) % 6 not in s]
    return len(starts) == 1
