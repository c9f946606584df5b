"""Value types the state and the events both carry (events.py imports these, never state.py)."""

from __future__ import annotations

import msgspec

from service.domain.core.hexgrid import Hex


class Projectile(msgspec.Struct, frozen=True):
    """A tracking weapon's projectile in flight (SF-GUN-8)."""

    id: str
    ship: str
    weapon: str
    target: str
    hex: Hex
    speed: int
    gunnery: int  # the launching gunner's modifier, the only bonus kept for later checks
    damage: str
    linked: bool = False


class EngAction(msgspec.Struct, frozen=True):
    """An engineering action declared, resolved when the phase closes (SF-RND-2)."""

    seat: str
    action: str  # patch | divert
    system: str | None = None
    to: str | None = None  # divert: engines | shields
    shields: dict[str, int] = {}
