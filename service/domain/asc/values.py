"""Value types shared by the state and the events (ASC): a vessel's status, a strike, a sensor commit
entry, a lock and a fire declaration. Events carry these; neither module owns them."""

from __future__ import annotations

from typing import ClassVar

import msgspec

from service.domain.core.hexgrid import Hex


class Strike(msgspec.Struct, frozen=True, kw_only=True):
    """One strike that got past (or was blocked by) the screens, with where it landed."""

    damage: int
    blocked: bool = False
    location: str = ""  # hull, power_plant, damage_control, sensor, turret, tta, computer, … ("" if blocked)
    part: str | None = None  # the sensor / mount / bay hit, if any
    saved: bool = False  # an armour save turned it into a hull hit (ASC-LOC-4)


class Status(msgspec.Struct, frozen=True, kw_only=True):
    """Everything about a vessel that changes during the battle."""

    HASH_NEUTRAL: ClassVar[frozenset[str]] = frozenset({"aboard"})  # added after battle files were exported

    hex: Hex
    facing: int
    destroyed: bool = False
    hull_damage: int = 0
    power_plant_damage: int = 0
    active: bool = False  # active sensors committed this turn (public once revealed)
    screen: int | None = 0  # current screen rating (owner only; None in a redacted copy)
    screen_max: int = 0
    all_stop: bool = False
    dc_teams: int = 0
    ttas_lost: int = 0
    sensors_lost: tuple[str, ...] = ()
    antennas_lost: dict[str, int] = {}
    mounts_lost: tuple[str, ...] = ()
    remote_comms_lost: int = 0
    bays_out: tuple[str, ...] = ()
    missiles: dict[str, int] = {}
    hangars_out: int = 0
    small_craft: int = 0
    computer_out: bool = False
    tac_out: bool = False
    bridge_out: bool = False
    fighter_control_out: bool = False
    flag_comms_out: bool = False
    backups_used: tuple[str, ...] = ()
    engineering_out: bool = False
    drive_out: bool = False
    quarters: int = 0
    marines: int = 0
    cargo: int = 0
    repair: dict[str, int] = {}  # repairable location -> points still to repair (ASC-DC-2, ASC-DC-4)
    continuing: tuple[int, ...] = ()  # continuing-damage sources, points to repair each
    rounds: dict[str, int] = {}  # submunition launcher -> rounds left
    last_launch: dict[str, int] = {}  # submunition launcher -> turn of its last shot
    aboard: str | None = None  # a small craft in its carrier's hangar: not on the map (ASC-CRAFT-1)


class CommitEntry(msgspec.Struct, frozen=True, kw_only=True):
    vessel: str
    active: bool = False
    screen: int | None = 0  # None when redacted (screen settings are known only to their owner)


class Lock(msgspec.Struct, frozen=True, kw_only=True):
    target: str
    rating: int  # range kept when the holder has no active sensor (ASC-DET-5 ruling)


class FireDecl(msgspec.Struct, frozen=True, kw_only=True):
    side: str
    vessel: str
    weapon: str
    target: str
    guide: str | None = None
    point_defence: bool = False
