"""The campaign's scenario: the setup type (players, umpires, designs, modules, map size) and its
validation (errors name the field path). Sample scenarios are in scenarios/*.json."""

from __future__ import annotations

import msgspec

from service.domain.core import InvalidScenario


class SystemKit(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One ship system on a data sheet: kind (beam, pds, drive, ftl, core, hangar, cargo, ...)."""

    id: str
    kind: str
    rating: int = 0
    cost: int = 0
    mass: int = 0
    species: str | None = None  # None: the design's species
    standard: bool = True  # FTC-BLD-4: from the rule book, fleet books, More Thrust or the publisher's site


class Design(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    id: str
    name: str
    size_class: str  # FT2 code: DD, CL, CH, BC, BB, SDN, CVL, ... (FTC-ECO-4, FTC-TG-2)
    mass: int
    cost: int  # list construction cost (FTC-ECO-3)
    hull: int  # hull boxes
    hull_rows: int = 4
    thrust: int = 4
    species: str = "human"
    navy: str = ""  # publishing navy (FTC-BLD-2 ally discount)
    published: bool = True  # FTC-BLD-2: only published designs can be bought
    standard: bool = True  # FTC-BLD-4
    freighter: bool = False  # FTC-BLD-3
    biomass_tanker: bool = False  # FTC-BLD-6
    modular: bool = False  # FTC-ECO-6
    hull_design: str = ""  # module variants share a hull design ("" = the id)
    hull_box_cost: int = 2
    cloak: bool = False
    systems: tuple[SystemKit, ...] = ()


class ModuleSpec(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A modular weapon fit (FTC-ECO-6) for a modular hull design."""

    id: str
    name: str
    hull_design: str
    cost: int
    mass: int = 0


class PlayerSpec(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    id: str
    name: str
    species: str = "human"
    ally_navy: str | None = None  # FTC-BLD-2


class UmpireSpec(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    id: str
    name: str = ""
    plays: str | None = None  # the player this umpire also plays (FTC-UMP-1)


class Setup(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    title: str
    players: tuple[PlayerSpec, ...]
    designs: tuple[Design, ...]
    umpires: tuple[UmpireSpec, ...] = (UmpireSpec(id="umpire"),)
    modules: tuple[ModuleSpec, ...] = ()
    map_side: int = 6  # FTC-MAP-1 (FTC-R-1: a scenario may choose 3..8 for short games)
    table_length_feet: int = 8  # FTC-ARR-6 ruling
    last_turn: int = 36
    description: str = ""


def validate(setup: Setup) -> None:
    """Cross-field checks; errors name the field path."""
    _validate_players(setup)
    _validate_umpires(setup)
    _validate_designs(setup)
    for i, m in enumerate(setup.modules):
        if not any((d.hull_design or d.id) == m.hull_design and d.modular for d in setup.designs):
            raise InvalidScenario(f"modules[{i}].hull_design", f"no modular hull {m.hull_design!r}")
    if not 3 <= setup.map_side <= 8:
        raise InvalidScenario("map_side", "between 3 and 8 (FTC-MAP-1: 6)")
    if setup.table_length_feet < 6:
        raise InvalidScenario("table_length_feet", "at least 6 feet")
    if setup.last_turn < 1:
        raise InvalidScenario("last_turn", "at least 1")


def _validate_players(setup: Setup) -> None:
    ids = [p.id for p in setup.players]
    if len(ids) < 2:
        raise InvalidScenario("players", "a campaign needs at least two players")
    for i, p in enumerate(setup.players):
        if ids.index(p.id) != i or not p.id or p.id in ("umpire", "spectator"):
            raise InvalidScenario(f"players[{i}].id", f"player id {p.id!r} is empty, reserved or repeated")
        if p.ally_navy is not None:
            _validate_ally(setup, i, p)


def _validate_ally(setup: Setup, i: int, p: PlayerSpec) -> None:
    """FTC-BLD-2: an ally navy publishes designs, all of the player's own species."""
    navy = [d for d in setup.designs if d.navy == p.ally_navy]
    if not navy:
        raise InvalidScenario(f"players[{i}].ally_navy", f"no designs of navy {p.ally_navy!r}")
    if any(d.species != p.species for d in navy):
        raise InvalidScenario(f"players[{i}].ally_navy", "no one is allied outside their species (FTC-BLD-2)")


def _validate_umpires(setup: Setup) -> None:
    if not setup.umpires:
        raise InvalidScenario("umpires", "a campaign has one or more umpires (FTC-UMP-1)")
    ids = [p.id for p in setup.players]
    for i, u in enumerate(setup.umpires):
        if u.plays is not None and u.plays not in ids:
            raise InvalidScenario(f"umpires[{i}].plays", f"{u.plays!r} is not a player")


def _validate_designs(setup: Setup) -> None:
    dids = [d.id for d in setup.designs]
    if not dids:
        raise InvalidScenario("designs", "publish at least one design")
    for i, d in enumerate(setup.designs):
        if dids.index(d.id) != i:
            raise InvalidScenario(f"designs[{i}].id", f"design id {d.id!r} is repeated")
        for field in ("mass", "cost", "hull", "hull_rows"):
            if getattr(d, field) <= 0:
                raise InvalidScenario(f"designs[{i}].{field}", "must be positive")
        sids = [s.id for s in d.systems]
        for j, s in enumerate(d.systems):
            if sids.index(s.id) != j or not s.id:
                raise InvalidScenario(f"designs[{i}].systems[{j}].id", f"system id {s.id!r} is empty or repeated")
