"""Ship data sheets and scenarios (scenario input), validated on load with field paths."""

from __future__ import annotations

import msgspec

from service.domain.core import InvalidScenario

BEAM_CLASSES = ("light", "medium", "heavy")
# arc code -> (centre relative to the heading, width); GSC2-BEAM-2
ARCS: dict[str, tuple[float, float]] = {
    "F": (0.0, 90.0), "A": (180.0, 90.0), "L": (-90.0, 90.0), "R": (90.0, 90.0),
    "FS": (0.0, 180.0), "AS": (180.0, 180.0), "LS": (-90.0, 180.0), "RS": (90.0, 180.0),
    "T": (0.0, 360.0),
}
# kinds a ship may list under `systems` (the rest are data-sheet fields or batteries)
EXTRA_KINDS = (
    "thrusters", "tunneling_drive", "inertial_dampener", "cloak", "stealth_field",
    "null_field", "mine_layer", "tractor_beam", "internal_defense",
)
TERRAIN_KINDS = ("asteroid", "dust", "satellite", "mine")

# How each kind of system takes damage (GSC2-SYS-1..5); see damage.py.
SYS_RULE: dict[str, str] = {
    "beam": "GSC2-SYS-1", "missile": "GSC2-SYS-1", "tractor_beam": "GSC2-SYS-1",
    "deflectors": "GSC2-SYS-2", "thrusters": "GSC2-SYS-2",
    "tunneling_drive": "GSC2-SYS-2", "inertial_dampener": "GSC2-SYS-2", "cloak": "GSC2-SYS-2",
    "stealth_field": "GSC2-SYS-2",
    "drive": "GSC2-SYS-3",
    "repair": "GSC2-SYS-4", "scanners": "GSC2-SYS-4", "mine_layer": "GSC2-SYS-4", "null_field": "GSC2-SYS-4",
    "internal_defense": "GSC2-SYS-4",  # GSC2-R-6: not listed by the sheet; treated like scanners
    "mds": "GSC2-SYS-5", "shields": "GSC2-SYS-5", "transporters": "GSC2-SYS-5",
    "assault_squads": "GSC2-SYS-5", "heavy_assault_squads": "GSC2-SYS-5",
}
# data-sheet counts that are also systems on the damage chart
BUILTIN = ("shields", "deflectors", "mds", "repair", "scanners", "transporters",
           "assault_squads", "heavy_assault_squads")


class Spec(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    pass


class BeamBattery(Spec, frozen=True):
    id: str
    klass: str = msgspec.field(name="class")
    weapons: int
    damage: int
    targeting: int
    arc: str
    name: str = ""


class MissileBattery(Spec, frozen=True):
    id: str
    missiles: int  # per launch
    damage: int  # per missile
    carried: int  # missiles aboard at the start
    targeting: int = 4
    name: str = ""


class SystemSpec(Spec, frozen=True):
    id: str
    kind: str
    level: int = 1
    targeting: int = 5  # tractor beams only
    range: float = 12.0  # tractor beams only


class ShipSpec(Spec, frozen=True):
    id: str
    name: str
    side: str
    size: int
    hull: int
    armor: int
    speed: int
    turn_distance: float
    crew: int
    chart: tuple[tuple[str, ...], ...]
    x: float
    y: float
    heading: float = 0.0
    shields: int = 0
    deflectors: int = 0
    aspect: int = 0
    assault_squads: int = 0
    heavy_assault_squads: int = 0
    mds: int = 0
    repair: int = 0
    scanners: int = 0
    transporters: int = 0
    assault_pods: int = 0
    systems: tuple[SystemSpec, ...] = ()
    beams: tuple[BeamBattery, ...] = ()
    missiles: tuple[MissileBattery, ...] = ()

    def system_kinds(self) -> dict[str, str]:
        """Every system id the damage chart may name -> its kind."""
        out = {"drive": "drive"}
        for key in BUILTIN:
            if getattr(self, key) > 0:
                out[key] = key
        for b in self.beams:
            out[b.id] = "beam"
        for m in self.missiles:
            out[m.id] = "missile"
        for s in self.systems:
            out[s.id] = s.kind
        return out


class TerrainSpec(Spec, frozen=True):
    id: str
    kind: str
    x: float
    y: float
    radius: float = 1.0
    dx: float = 0.0  # drift per turn (GSC2-MOV-1)
    dy: float = 0.0


class Table(Spec, frozen=True):
    width: float = 72.0
    height: float = 48.0


class Scenario(Spec, frozen=True):
    name: str
    sides: tuple[str, ...]
    ships: tuple[ShipSpec, ...]
    description: str = ""
    table: Table = Table()
    terrain: tuple[TerrainSpec, ...] = ()
    turn_limit: int | None = None


def validate_scenario(s: Scenario) -> None:
    """Cross-field checks; raise InvalidScenario naming the field path."""
    if len(s.sides) != 2 or s.sides[0] == s.sides[1]:
        raise InvalidScenario("sides", "GSC2 is played by exactly two sides (GSC2-R-1)")
    if s.turn_limit is not None and s.turn_limit < 1:
        raise InvalidScenario("turn_limit", "must be at least 1")
    seen: set[str] = set()
    for i, ship in enumerate(s.ships):
        _ship(ship, f"ships[{i}]", s.sides)
        if ship.id in seen:
            raise InvalidScenario(f"ships[{i}].id", f"duplicate ship id {ship.id!r}")
        seen.add(ship.id)
    for side in s.sides:
        if not any(sh.side == side for sh in s.ships):
            raise InvalidScenario("ships", f"side {side!r} has no ship")
    tids: set[str] = set()
    for i, t in enumerate(s.terrain):
        if t.kind not in TERRAIN_KINDS:
            raise InvalidScenario(f"terrain[{i}].kind", f"unknown terrain {t.kind!r}; one of {TERRAIN_KINDS}")
        if t.radius <= 0:
            raise InvalidScenario(f"terrain[{i}].radius", "must be positive")
        if t.id in tids or t.id in seen:
            raise InvalidScenario(f"terrain[{i}].id", f"duplicate id {t.id!r}")
        tids.add(t.id)


def _ship(ship: ShipSpec, path: str, sides: tuple[str, ...]) -> None:
    if ship.side not in sides:
        raise InvalidScenario(f"{path}.side", f"unknown side {ship.side!r}")
    if ship.size < 1:
        raise InvalidScenario(f"{path}.size", "must be at least 1")
    if ship.hull < 1:
        raise InvalidScenario(f"{path}.hull", f"hull points must be positive, got {ship.hull}")
    for key in ("armor", "speed", "crew", "assault_pods", "aspect", *BUILTIN):
        if getattr(ship, key) < 0:
            raise InvalidScenario(f"{path}.{key}", "must not be negative")
    if ship.turn_distance < 0:
        raise InvalidScenario(f"{path}.turn_distance", "must not be negative")
    ids: set[str] = {"drive", *BUILTIN}
    for j, b in enumerate(ship.beams):
        p = f"{path}.beams[{j}]"
        if b.klass not in BEAM_CLASSES:
            raise InvalidScenario(f"{p}.class", f"unknown beam class {b.klass!r}; one of {BEAM_CLASSES}")
        if b.arc not in ARCS:
            raise InvalidScenario(f"{p}.arc", f"unknown arc {b.arc!r}; one of {sorted(ARCS)}")
        if b.weapons < 1 or b.damage < 1:
            raise InvalidScenario(f"{p}.weapons", "weapons and damage must be at least 1")
        _new_id(ids, b.id, f"{p}.id")
    for j, m in enumerate(ship.missiles):
        p = f"{path}.missiles[{j}]"
        if m.missiles < 1 or m.damage < 1 or m.carried < 0:
            raise InvalidScenario(f"{p}.missiles", "missiles and damage must be ≥ 1, carried ≥ 0")
        _new_id(ids, m.id, f"{p}.id")
    for j, sy in enumerate(ship.systems):
        p = f"{path}.systems[{j}]"
        if sy.kind not in EXTRA_KINDS:
            raise InvalidScenario(f"{p}.kind", f"unknown system kind {sy.kind!r}; one of {EXTRA_KINDS}")
        if sy.level < 0:
            raise InvalidScenario(f"{p}.level", "must not be negative")
        _new_id(ids, sy.id, f"{p}.id")
    if len(ship.chart) != 10:
        raise InvalidScenario(f"{path}.chart", f"the system damage chart needs 10 rows, got {len(ship.chart)}")
    kinds = ship.system_kinds()
    for r, row in enumerate(ship.chart):
        for c, name in enumerate(row):
            if name not in kinds:
                raise InvalidScenario(f"{path}.chart[{r}][{c}]", f"{ship.id} has no system {name!r}")


def _new_id(ids: set[str], new: str, path: str) -> None:
    if new in ids:
        raise InvalidScenario(path, f"system id {new!r} is already used on this ship")
    ids.add(new)
