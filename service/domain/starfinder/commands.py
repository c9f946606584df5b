"""Commands: what a crew seat (or the umpire acting for it) asks for. JSON ``{"type": "starfinder.move", ...}``.

Every crew command names its ``seat`` ("ship/crew"); a seat's credentials act only for that seat (SF-ROLE-4).
"""

from __future__ import annotations

from service.domain.core import Command


class ChangeRole(Command, frozen=True, tag="starfinder.change_role"):
    """Take another role from the next round on (SF-ROLE-3)."""

    seat: str
    role: str


class BattleStations(Command, frozen=True, tag="starfinder.battle_stations"):
    """Activate the ship's targeting systems: hostile intent, seen by every ship with working sensors (SF-ROLE-5)."""

    seat: str


class Pass(Command, frozen=True, tag="starfinder.pass"):
    """Take no (more) part in this phase, or in this ship's turn of the helm or gunnery phase."""

    seat: str


class Patch(Command, frozen=True, tag="starfinder.patch"):
    """Engineer: patch a damaged system (SF-RND-2)."""

    seat: str
    system: str


class Divert(Command, frozen=True, tag="starfinder.divert"):
    """Engineer: divert power to the engines (+2 speed) or to the shields (5% of PCU, split) (SF-RND-2)."""

    seat: str
    to: str  # engines | shields
    shields: dict[str, int] = {}


class Move(Command, frozen=True, tag="starfinder.move"):
    """Pilot: move ahead and turn (SF-MOV-1/2). Either ``path``, a string of F (one hex ahead), L (turn to port),
    R (turn to starboard); or ``hexes``, the hexes entered one by one (each adjacent to the last: the turns are
    the facing changes they need) with an optional final ``facing`` (turns after the last hex)."""

    seat: str
    path: str = ""
    hexes: tuple[tuple[int, int], ...] = ()
    facing: int | None = None


class BackOff(Command, frozen=True, tag="starfinder.back_off"):
    seat: str
    hexes: int


class BarrelRoll(Command, frozen=True, tag="starfinder.barrel_roll"):
    seat: str
    hexes: int


class Evade(Command, frozen=True, tag="starfinder.evade"):
    """Pilot: a normal move (``path`` or ``hexes`` and ``facing`` as for a move) with a Piloting check (SF-STUNT-3)."""

    seat: str
    path: str = ""
    hexes: tuple[tuple[int, int], ...] = ()
    facing: int | None = None


class FlipAndBurn(Command, frozen=True, tag="starfinder.flip_and_burn"):
    seat: str
    hexes: int


class Flyby(Command, frozen=True, tag="starfinder.flyby"):
    """Pilot: a normal move through ``enemy``'s hex (``path`` or ``hexes`` and ``facing``) (SF-STUNT-5)."""

    seat: str
    enemy: str
    path: str = ""
    hexes: tuple[tuple[int, int], ...] = ()
    facing: int | None = None


class Slide(Command, frozen=True, tag="starfinder.slide"):
    seat: str
    hexes: int
    side: str  # port | starboard


class TurnInPlace(Command, frozen=True, tag="starfinder.turn_in_place"):
    seat: str
    facing: int


class Scan(Command, frozen=True, tag="starfinder.scan"):
    seat: str
    target: str


class LockOn(Command, frozen=True, tag="starfinder.lock_on"):
    seat: str
    target: str


class Countermeasures(Command, frozen=True, tag="starfinder.countermeasures"):
    """Science officer: improve countermeasures against ``target``'s tracking weapons (SF-RND-3)."""

    seat: str
    target: str


class Fire(Command, frozen=True, tag="starfinder.fire"):
    """Gunner: fire one weapon. ``arc`` picks the arc for a boundary target or a turret (SF-GUN-4);
    ``quadrant`` picks the quadrant struck when the attacker may choose (SF-DMG-1, SF-STUNT-5)."""

    seat: str
    weapon: str
    target: str
    arc: str | None = None
    quadrant: str | None = None
    flyby: bool = False


class Encourage(Command, frozen=True, tag="starfinder.encourage"):
    """Captain: encourage a crew member of the ship: +2 to its checks for the rest of the round (SF-R-4)."""

    seat: str
    crew: str


class ForcePhase(Command, frozen=True, tag="starfinder.force_phase"):
    """Umpire: close the current phase now; whoever has not acted does nothing (SF-R-2)."""


STUNTS = (BackOff, BarrelRoll, Evade, FlipAndBurn, Flyby, Slide, TurnInPlace)
MOVES = (Move, *STUNTS)
SCIENCE = (Scan, LockOn, Countermeasures)
COMMANDS = (ChangeRole, BattleStations, Pass, Patch, Divert, *MOVES, *SCIENCE, Fire, Encourage, ForcePhase)
