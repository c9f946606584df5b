"""Events: facts with every result, so evolve only applies them. Tags are stable wire names."""

from __future__ import annotations

from typing import Annotated

import msgspec

from service.domain.core import Event
from service.domain.core.hexgrid import Hex

from .values import CommitEntry, FireDecl, Status, Strike

LockRange = Annotated[
    int,
    msgspec.Meta(
        description=(
            "The lock range in hexes (ASC-DET-5), not a detection roll or a signature: the lock holds while the target "
            "is at most this far from the holder. It is the holder's best working active-sensor rating, committed or "
            "not, else the rating of the sensor that made the detection. 0 on a failed attempt (no lock is taken) and "
            "when withheld from this viewer (the holder is unseen)."
        )
    ),
]


class SensorsCommitted(Event, frozen=True, tag="asc.sensors_committed"):
    """A side's sealed commitment; ``entries`` is None for anyone but that side and the umpire."""

    side: str
    entries: tuple[CommitEntry, ...] | None = None


class SensorsRevealed(Event, frozen=True, tag="asc.sensors_revealed"):
    entries: tuple[CommitEntry, ...] = ()


class DetectionAttempted(Event, frozen=True, tag="asc.detection_attempted"):
    side: str
    vessel: str | None  # detector (None/token when hidden from the viewer)
    sensor: str | None
    target: str | None  # None: a hex scan that found nothing, or hidden from the viewer
    hex: Hex | None = None
    success: bool = False
    rating: LockRange = 0


class LockTaken(Event, frozen=True, tag="asc.lock_taken"):
    vessel: str | None
    target: str | None
    rating: LockRange = 0


class LockRef(msgspec.Struct, frozen=True, kw_only=True):
    vessel: str | None
    target: str | None


class LocksLost(Event, frozen=True, tag="asc.locks_lost"):
    losses: tuple[LockRef, ...]
    reason: str = ""


class AllStopped(Event, frozen=True, tag="asc.all_stopped"):
    vessel: str
    facing: int | None


class Moved(Event, frozen=True, tag="asc.moved"):
    vessel: str
    hex: Hex
    facing: int | None = None
    path: tuple[str, ...] | None = None


class Launched(Event, frozen=True, tag="asc.launched"):
    """A small craft left its carrier's hangar into the carrier's hex (ASC-CRAFT-1, ruling ASC-R-28)."""

    vessel: str | None  # the carrier (its token, or None, when hidden from the viewer)
    craft: str | None  # the craft (its new bogey token when hidden from the viewer, ruling ASC-R-33)
    hex: Hex
    facing: int | None = None


class Recovered(Event, frozen=True, tag="asc.recovered"):
    """A small craft went back aboard its carrier (ruling ASC-R-30)."""

    vessel: str | None  # the carrier (its token, or None, when hidden from the viewer)
    craft: str | None  # the craft (its bogey token when hidden from the viewer)


class PhaseEnded(Event, frozen=True, tag="asc.phase_ended"):
    side: str


class PhaseChanged(Event, frozen=True, tag="asc.phase_changed"):
    turn: int
    phase: str


class FireDeclared(Event, frozen=True, tag="asc.fire_declared"):
    declaration: FireDecl


class ShotResolved(Event, frozen=True, tag="asc.shot_resolved"):
    vessel: str | None
    weapon: str | None
    target: str | None
    point_defence: bool = False
    outcome: str = "miss"  # hit | miss | direct | void
    note: str = ""
    strikes: tuple[Strike, ...] = ()
    missile_killed: bool = False  # the target missile is killed (at once for point defence)
    firer_destroyed: bool = False  # a det missile is destroyed when it fires (ASC-FIRE-8)
    screen_after: int | None = None  # target's screen rating after this shot (owner only)
    launcher_turn: int | None = None  # a submunition launch (ASC-FIRE-7)


class DamageTaken(Event, frozen=True, tag="asc.damage_taken"):
    vessel: str
    status: Status
    notes: tuple[str, ...] = ()


class BackupTookOver(Event, frozen=True, tag="asc.backup_took_over"):
    vessel: str
    system: str
    status: Status


class RepairRoll(msgspec.Struct, frozen=True, kw_only=True):
    location: str
    success: bool


class RepairsRolled(Event, frozen=True, tag="asc.repairs_rolled"):
    vessel: str
    results: tuple[RepairRoll, ...]
    status: Status


class ContinuingDamage(Event, frozen=True, tag="asc.continuing_damage"):
    vessel: str
    damage: int
    status: Status


class VesselDestroyed(Event, frozen=True, tag="asc.vessel_destroyed"):
    vessel: str
    cause: str = ""
    seen_by: tuple[str, ...] = ()


class GameEnded(Event, frozen=True, tag="asc.game_ended"):
    winner: str | None
    reason: str


EVENTS = (
    SensorsCommitted,
    SensorsRevealed,
    DetectionAttempted,
    LockTaken,
    LocksLost,
    AllStopped,
    Moved,
    Launched,
    Recovered,
    PhaseEnded,
    PhaseChanged,
    FireDeclared,
    ShotResolved,
    DamageTaken,
    BackupTookOver,
    RepairsRolled,
    ContinuingDamage,
    VesselDestroyed,
    GameEnded,
)
