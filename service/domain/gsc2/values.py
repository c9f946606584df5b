"""The value types both the state and the events carry (a system's condition, troops, whose step it is, a
declared boarding, a pending hit): events.py imports these, never state.py."""

from __future__ import annotations

import msgspec


class Sys(msgspec.Struct, frozen=True):
    """One system's condition. ``level`` is the current rating (speed for the drive, count for MDS…)."""

    kind: str
    level: int
    max: int
    hits: int = 0  # hits towards the next level lost (GSC2-SYS-2) or the drive's halving (GSC2-SYS-3)
    damaged: bool = False  # GSC2-SYS-1 batteries and tractors
    destroyed: bool = False

    @property
    def working(self) -> bool:
        return not self.destroyed and not self.damaged and self.level > 0

    @property
    def repairable(self) -> bool:
        return not self.destroyed and (self.damaged or self.hits > 0 or self.level < self.max)


class Troops(msgspec.Struct, frozen=True):
    crew: int = 0
    assault: int = 0
    heavy: int = 0

    @property
    def total(self) -> int:
        return self.crew + self.assault + self.heavy


class BoardOrder(msgspec.Struct, frozen=True):
    """A declared boarding action, resolved at the end of the phase (GSC2-BRD-1)."""

    method: str  # contact | pod | teleport
    side: str
    ship: str  # the boarding ship (or the pod's carrier)
    target: str
    assault: int = 0
    heavy: int = 0
    pod: str | None = None


class Sabotage(msgspec.Struct, frozen=True):
    side: str
    ship: str  # the enemy ship the troops are aboard
    unit: str  # assault | heavy
    system: str


class Order(msgspec.Struct, frozen=True):
    """Whose step it is in an alternating phase (movement GSC2-MOV-2, missiles GSC2-MSL-2)."""

    stage: str = "none"  # movement: choose|catchup|lead|follow|done; missiles: choose|launch|move|done
    side: str | None = None  # who acts now
    owed: int = 0  # ships still owed (catchup, follow)
    count: int = 0  # ships the leader moved in this batch
    leader: str | None = None  # movement: the "second player"; missiles: who acts first
    passed: tuple[str, ...] = ()  # sides done launching


class PendingHit(msgspec.Struct, frozen=True):
    """A hit rolled in a simultaneous phase, applied at its resolution (GSC2-BEAM-1, GSC2-MSL-6)."""

    target: str
    source: str  # "hood/b1" (ship/battery) or "salvo s3"
    damage: int
    side: str
