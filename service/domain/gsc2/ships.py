"""Ship data sheets (scenario input): batteries, systems, arcs, and how each kind of system takes damage."""

from __future__ import annotations

import msgspec

BEAM_CLASSES = ("light", "medium", "heavy")
# arc code -> (centre relative to the heading, width); GSC2-BEAM-2
ARCS: dict[str, tuple[float, float]] = {
    "F": (0.0, 90.0),
    "A": (180.0, 90.0),
    "L": (-90.0, 90.0),
    "R": (90.0, 90.0),
    "FS": (0.0, 180.0),
    "AS": (180.0, 180.0),
    "LS": (-90.0, 180.0),
    "RS": (90.0, 180.0),
    "T": (0.0, 360.0),
}
# kinds a ship may list under `systems` (the rest are data-sheet fields or batteries)
EXTRA_KINDS = (
    "thrusters",
    "tunneling_drive",
    "inertial_dampener",
    "cloak",
    "stealth_field",
    "null_field",
    "mine_layer",
    "tractor_beam",
    "internal_defense",
)
TERRAIN_KINDS = ("asteroid", "dust", "satellite", "mine")

# How each kind of system takes damage (GSC2-SYS-1..5); see damage.py.
SYS_RULE: dict[str, str] = {
    "beam": "GSC2-SYS-1",
    "missile": "GSC2-SYS-1",
    "tractor_beam": "GSC2-SYS-1",
    "deflectors": "GSC2-SYS-2",
    "thrusters": "GSC2-SYS-2",
    "tunneling_drive": "GSC2-SYS-2",
    "inertial_dampener": "GSC2-SYS-2",
    "cloak": "GSC2-SYS-2",
    "stealth_field": "GSC2-SYS-2",
    "drive": "GSC2-SYS-3",
    "repair": "GSC2-SYS-4",
    "scanners": "GSC2-SYS-4",
    "mine_layer": "GSC2-SYS-4",
    "null_field": "GSC2-SYS-4",
    "internal_defense": "GSC2-SYS-4",  # GSC2-R-6: not listed by the sheet; treated like scanners
    "mds": "GSC2-SYS-5",
    "shields": "GSC2-SYS-5",
    "transporters": "GSC2-SYS-5",
    "assault_squads": "GSC2-SYS-5",
    "heavy_assault_squads": "GSC2-SYS-5",
}
# data-sheet counts that are also systems on the damage chart
BUILTIN = (
    "shields",
    "deflectors",
    "mds",
    "repair",
    "scanners",
    "transporters",
    "assault_squads",
    "heavy_assault_squads",
)


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
