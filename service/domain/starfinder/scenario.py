"""Scenarios: sides, ships with their full data sheets, crews (each crew member a seat), validated on load."""

from __future__ import annotations

import math
import re
from fractions import Fraction

import msgspec

from service.domain.core import InvalidScenario

ROLES = ("captain", "engineer", "gunner", "pilot", "science_officer", "passenger")  # SF-ROLE-1
SINGLE_ROLES = ("captain", "pilot")  # SF-ROLE-1: single-person roles
SIZES = {"Tiny": 2, "Small": 1, "Medium": 0, "Large": -1, "Huge": -2, "Gargantuan": -4, "Colossal": -8}  # SF-GUN-7
BARREL_ROLL_SIZES = ("Tiny", "Small", "Medium", "Large")  # SF-STUNT-2
# SF-HELM-3: manoeuvrability -> (hexes between turns, piloting modifier)
MANOEUVRABILITY = {"clumsy": (4, -2), "poor": (3, -1), "average": (2, 0), "good": (1, 1), "perfect": (0, 2)}
ARCS = ("forward", "starboard", "aft", "port")  # also the shield quadrants
WEAPON_ARCS = (*ARCS, "turret")
RANGES = {"short": 5, "medium": 10, "long": 20}  # SF-GUN-5 range increments in hexes
KINDS = ("direct", "tracking")
DICE = re.compile(r"^([1-9][0-9]?)d(4|6|8|10|12|20)$")
FRACTIONAL_TIERS = {"1/4": Fraction(1, 4), "1/3": Fraction(1, 3), "1/2": Fraction(1, 2)}  # SF-R-22


def tier_value(tier: int | str) -> Fraction:
    """A tier as a number: a whole tier, or one of the fractional tiers "1/4", "1/3", "1/2" (SF-R-22)."""
    return Fraction(tier) if isinstance(tier, int) else FRACTIONAL_TIERS[tier]


def tier_dc(base: int, tier: int | str) -> int:
    """DC = base + 2 × tier, rounded down as Starfinder rounds (SF-R-22): tier 1/2 → +1, 1/3 and 1/4 → +0."""
    return base + math.floor(2 * tier_value(tier))


class Spec(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    pass


class WeaponSpec(Spec, frozen=True):
    id: str
    arc: str  # forward | aft | port | starboard | turret
    damage: str  # e.g. "2d4"
    range: str = "short"  # short | medium | long
    kind: str = "direct"  # direct | tracking
    speed: int = 0  # tracking projectiles' speed in hexes (SF-GUN-8)
    linked: bool = False  # a linked pair: one check, damage rolled twice (SF-GUN-2, SF-R-9)
    name: str = ""

    @property
    def dice(self) -> tuple[int, int]:
        n, sides = self.damage.split("d")
        return int(n), int(sides)

    @property
    def average(self) -> float:
        n, sides = self.dice
        return n * (sides + 1) / 2 * (2 if self.linked else 1)

    @property
    def label(self) -> str:
        return self.name or self.id


class CrewSpec(Spec, frozen=True):
    id: str
    role: str
    name: str = ""
    piloting: int = 0  # Piloting check modifier (SF-HELM-1)
    piloting_ranks: int = 0  # SF-HELM-4 ties, SF-GUN-7 AC/TL
    gunnery: int = 0  # SF-GUN-6
    engineering: int = 0  # SF-RND-2
    computers: int = 0  # SF-RND-3
    diplomacy: int = 0  # the captain's encourage (SF-R-4)


class ShipSpec(Spec, frozen=True):
    id: str
    side: str
    tier: int | str  # a whole tier, or "1/4", "1/3", "1/2" (SF-R-22)
    size: str
    speed: int
    maneuverability: str
    hp: int
    hex: tuple[int, int]
    facing: int = 0
    name: str = ""
    dt: int = 0  # damage threshold (SF-DMG-3)
    pcu: int = 0  # power core units (SF-RND-2 divert)
    armor: int = 0  # armour bonus to AC (SF-GUN-7)
    countermeasures: int = 0  # defensive countermeasures bonus to TL (SF-GUN-7)
    shields: dict[str, int] = {}  # starting shield points per quadrant; their sum is the maximum (SF-DMG-2)
    weapons: tuple[WeaponSpec, ...] = ()
    crew: tuple[CrewSpec, ...] = ()
    battle_stations: bool = False  # starts with targeting active (SF-ROLE-5)

    @property
    def label(self) -> str:
        return self.name or self.id

    def dc(self, base: int) -> int:
        """A check's DC of ``base`` + 2 × this ship's tier (SF-R-22 for fractional tiers)."""
        return tier_dc(base, self.tier)

    @property
    def max_shields(self) -> int:
        return sum(self.shields.values())

    @property
    def critical_threshold(self) -> int:
        return self.hp * 20 // 100  # SF-DMG-5: 20% of max HP, rounded down


class MapSpec(Spec, frozen=True):
    width: int = 30
    height: int = 30


class Scenario(Spec, frozen=True):
    name: str
    sides: tuple[str, ...]
    ships: tuple[ShipSpec, ...]
    title: str = ""
    description: str = ""
    map: MapSpec = MapSpec()
    round_limit: int | None = None
    victory: str = "The last side with a ship able to fight wins; a round limit ends the battle in a draw."


def seat_id(ship: str, crew: str) -> str:
    return f"{ship}/{crew}"


def seats(setup: Scenario) -> list[str]:
    """SF-ROLE-4: every crew member is a seat, "ship/crew"."""
    return [seat_id(s.id, c.id) for s in setup.ships for c in s.crew]


def validate_scenario(s: Scenario) -> None:
    """Cross-field checks beyond the types; raise InvalidScenario naming the field path."""
    if len(s.sides) < 2 or len(set(s.sides)) != len(s.sides):
        raise InvalidScenario("sides", "at least two distinct sides fight a battle")
    if s.round_limit is not None and s.round_limit < 1:
        raise InvalidScenario("round_limit", "must be at least 1")
    seen: set[str] = set()
    hexes: dict[tuple[int, int], str] = {}
    for i, ship in enumerate(s.ships):
        path = f"ships[{i}]"
        _ship(ship, path, s.sides)
        if ship.id in seen:
            raise InvalidScenario(f"{path}.id", f"duplicate ship id {ship.id!r}")
        seen.add(ship.id)
        if ship.hex in hexes:
            raise InvalidScenario(f"{path}.hex", f"{hexes[ship.hex]} already starts there (SF-MOV-3)")
        hexes[ship.hex] = ship.id
    for side in s.sides:
        if not any(sh.side == side for sh in s.ships):
            raise InvalidScenario("ships", f"side {side!r} has no ship")


def _ship(ship: ShipSpec, path: str, sides: tuple[str, ...]) -> None:  # noqa: C901 - one check per field
    if not ship.id or "/" in ship.id:
        raise InvalidScenario(f"{path}.id", "a ship id is non-empty and has no '/' (seats are ship/crew)")
    if ship.side not in sides:
        raise InvalidScenario(f"{path}.side", f"unknown side {ship.side!r}")
    if isinstance(ship.tier, str) and ship.tier not in FRACTIONAL_TIERS:
        raise InvalidScenario(
            f"{path}.tier", f"a whole number or one of {tuple(FRACTIONAL_TIERS)} (SF-R-22), not {ship.tier!r}"
        )
    if isinstance(ship.tier, int) and ship.tier < 0:
        raise InvalidScenario(f"{path}.tier", "must not be negative")
    if ship.size not in SIZES:
        raise InvalidScenario(f"{path}.size", f"unknown size {ship.size!r}; one of {tuple(SIZES)} (SF-GUN-7)")
    if ship.speed < 0:
        raise InvalidScenario(f"{path}.speed", "must not be negative (SF-HELM-2)")
    if ship.maneuverability not in MANOEUVRABILITY:
        raise InvalidScenario(
            f"{path}.maneuverability",
            f"unknown manoeuvrability {ship.maneuverability!r}; one of {tuple(MANOEUVRABILITY)} (SF-HELM-3)",
        )
    if ship.hp < 1:
        raise InvalidScenario(f"{path}.hp", "hull points must be positive (SF-DMG-4)")
    if ship.dt < 0:
        raise InvalidScenario(f"{path}.dt", "the damage threshold must not be negative (SF-DMG-3)")
    for key in ("pcu", "armor", "countermeasures"):
        if getattr(ship, key) < 0:
            raise InvalidScenario(f"{path}.{key}", "must not be negative")
    if not 0 <= ship.facing <= 5:
        raise InvalidScenario(f"{path}.facing", "a facing is a hexside 0..5 (N, NE, SE, S, SW, NW)")
    for q, points in ship.shields.items():
        if q not in ARCS:
            raise InvalidScenario(f"{path}.shields.{q}", f"unknown quadrant; one of {ARCS} (SF-DMG-2)")
        if points < 0:
            raise InvalidScenario(f"{path}.shields.{q}", "shield points must not be negative (SF-DMG-2)")
    wids: set[str] = set()
    for j, w in enumerate(ship.weapons):
        _weapon(w, f"{path}.weapons[{j}]")
        if w.id in wids:
            raise InvalidScenario(f"{path}.weapons[{j}].id", f"duplicate weapon id {w.id!r}")
        wids.add(w.id)
    cids: set[str] = set()
    for j, c in enumerate(ship.crew):
        p = f"{path}.crew[{j}]"
        if not c.id or "/" in c.id:
            raise InvalidScenario(f"{p}.id", "a crew id is non-empty and has no '/'")
        if c.id in cids:
            raise InvalidScenario(f"{p}.id", f"duplicate crew id {c.id!r}")
        cids.add(c.id)
        if c.role not in ROLES:
            raise InvalidScenario(f"{p}.role", f"unknown role {c.role!r}; one of {ROLES} (SF-ROLE-1)")
        if c.role in SINGLE_ROLES and sum(o.role == c.role for o in ship.crew) > 1:
            raise InvalidScenario(f"{p}.role", f"a ship has one {c.role} (SF-ROLE-1)")
        if c.piloting_ranks < 0:
            raise InvalidScenario(f"{p}.piloting_ranks", "must not be negative")


def _weapon(w: WeaponSpec, p: str) -> None:
    if w.arc not in WEAPON_ARCS:
        raise InvalidScenario(f"{p}.arc", f"unknown arc {w.arc!r}; one of {WEAPON_ARCS} (SF-GUN-3)")
    if not DICE.match(w.damage):
        raise InvalidScenario(f"{p}.damage", f"damage dice like '2d4', got {w.damage!r} (SF-DMG-1)")
    if w.range not in RANGES:
        raise InvalidScenario(f"{p}.range", f"unknown range {w.range!r}; one of {tuple(RANGES)} (SF-GUN-5)")
    if w.kind not in KINDS:
        raise InvalidScenario(f"{p}.kind", f"unknown kind {w.kind!r}; one of {KINDS} (SF-GUN-6)")
    if w.kind == "tracking" and w.speed < 1:
        raise InvalidScenario(f"{p}.speed", "a tracking weapon's projectile needs a speed (SF-GUN-8)")
