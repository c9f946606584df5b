"""The GSC2 setup: the scenario type, its validation (errors name the field path), the sample scenarios."""

from __future__ import annotations

import re

from service.domain.core import InvalidScenario

from .ships import ARCS, BEAM_CLASSES, BUILTIN, EXTRA_KINDS, TERRAIN_KINDS, ShipSpec, Spec

SAMPLES = "service.domain.gsc2.scenarios"  # duel, fleet-action, boarding-action (*.json)
# salvo and pod ids the game makes ("s3", "p2"); a scenario id of that shape would clash on the table
MADE_ID = re.compile(r"^[sp][0-9]+$")


class TerrainSpec(Spec, frozen=True):
    id: str
    kind: str
    x: float
    y: float
    radius: float = 1.0
    dx: float = 0.0  # drift per turn (GSC2-MOV-1)
    dy: float = 0.0


MAX_SIDES = 6  # GSC2-R-21: one seat per side; the page has six side colours


class Table(Spec, frozen=True):
    width: float = 72.0
    height: float = 48.0
    # False: an open table with no edge (GSC2-R-20, linked campaign battles): a ship leaves only by disengaging
    edge: bool = True


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
    if len(s.sides) < 2 or len(set(s.sides)) != len(s.sides):
        raise InvalidScenario("sides", "GSC2 is played by two or more different sides (GSC2-R-1, GSC2-R-21)")
    if len(s.sides) > MAX_SIDES:
        raise InvalidScenario("sides", f"at most {MAX_SIDES} sides (GSC2-R-21)")
    if s.turn_limit is not None and s.turn_limit < 1:
        raise InvalidScenario("turn_limit", "must be at least 1")
    seen = _ships(s)
    for side in s.sides:
        if not any(sh.side == side for sh in s.ships):
            raise InvalidScenario("ships", f"side {side!r} has no ship")
    _terrain(s, seen)


def _ships(s: Scenario) -> set[str]:
    """Each ship valid, on the table, with an id of its own; returns the ids."""
    seen: set[str] = set()
    for i, ship in enumerate(s.ships):
        _ship(ship, f"ships[{i}]", s.sides)
        _on_table(ship.x, ship.y, s.table, f"ships[{i}]")
        if MADE_ID.match(ship.id):
            raise InvalidScenario(f"ships[{i}].id", f"{ship.id!r} looks like a salvo or pod id (s1, p1): rename it")
        if ship.id in seen:
            raise InvalidScenario(f"ships[{i}].id", f"duplicate ship id {ship.id!r}")
        seen.add(ship.id)
    return seen


def _terrain(s: Scenario, ship_ids: set[str]) -> None:
    tids: set[str] = set()
    for i, t in enumerate(s.terrain):
        if t.kind not in TERRAIN_KINDS:
            raise InvalidScenario(f"terrain[{i}].kind", f"unknown terrain {t.kind!r}; one of {TERRAIN_KINDS}")
        if t.radius <= 0:
            raise InvalidScenario(f"terrain[{i}].radius", "must be positive")
        if MADE_ID.match(t.id):
            raise InvalidScenario(f"terrain[{i}].id", f"{t.id!r} looks like a salvo or pod id (s1, p1): rename it")
        if t.id in tids or t.id in ship_ids:
            raise InvalidScenario(f"terrain[{i}].id", f"duplicate id {t.id!r}")
        tids.add(t.id)


def _on_table(x: float, y: float, table: Table, path: str) -> None:
    """GSC2-R-18: ships start on the table (its edges included)."""
    if table.width <= 0 or table.height <= 0:
        raise InvalidScenario("table", "the table needs a positive width and height")
    if not (0 <= x <= table.width and 0 <= y <= table.height):
        raise InvalidScenario(f"{path}.x", f'({x:g}, {y:g}) is off the {table.width:g}" × {table.height:g}" table')


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
    _weapons_and_systems(ship, path)
    _chart(ship, path)


def _weapons_and_systems(ship: ShipSpec, path: str) -> None:
    """Beams, missile batteries and extra systems: known kinds, sensible numbers, ids unique on the ship."""
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


def _chart(ship: ShipSpec, path: str) -> None:
    """The system damage chart: 10 rows, each naming systems the ship has."""
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
