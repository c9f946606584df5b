"""Commands a seat (or the umpire) sends. Tags are stable wire names."""

from __future__ import annotations

from typing import Literal

import msgspec

from service.domain.core import Command
from service.domain.core.hexgrid import Hex


class SensorSetting(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    vessel: str
    active: bool = False
    screen: int = 0


class CommitSensors(Command, frozen=True, tag="asc.commit_sensors"):
    """ASC-SEQ-2: the sealed sensor commitment of one side (omitted vessels: passive, screens 0)."""

    side: str
    vessels: tuple[SensorSetting, ...] = ()


class Detect(Command, frozen=True, tag="asc.detect"):
    """ASC-DET-3: one sensor's attempt on a bogey (by token), a visible vessel, or a hex."""

    vessel: str
    sensor: str
    target: str | None = None
    hex: Hex | None = None


class LockOn(Command, frozen=True, tag="asc.lock"):
    """ASC-DET-5: lock a TTA on a target a ship in contact has detected (or one radiating actively)."""

    vessel: str
    target: str


class AllStop(Command, frozen=True, tag="asc.all_stop"):
    """ASC-MOV-4: declare All Stop before moving, facing any hexside."""

    vessel: str
    facing: int


class Move(Command, frozen=True, tag="asc.move"):
    """ASC-MOV-2/3: F = one hex forward, L/R = turn one hexside anticlockwise/clockwise; or a hex path."""

    vessel: str
    path: tuple[Literal["F", "L", "R"], ...] = ()
    hexes: tuple[Hex, ...] = ()  # or: the hexes entered in order, each adjacent to the last (a page's hex path)
    facing: int | None = None  # with ``hexes`` (or alone): the facing to turn to at the end
    stack: tuple[str, ...] = ()  # other vessels in the same hex and facing moving with it


class Fire(Command, frozen=True, tag="asc.fire"):
    """ASC-FIRE: declare one weapon's shot (sealed until both sides end the fire phase)."""

    vessel: str
    weapon: str
    target: str
    guide: str | None = None  # a remote's shot guided by a UTES mount of its controller
    point_defence: bool = False


class Repair(Command, frozen=True, tag="asc.repair"):
    """ASC-DC-1: one repairable location per damage control team."""

    vessel: str
    locations: tuple[str, ...]


class Launch(Command, frozen=True, tag="asc.launch"):
    """ASC-CRAFT-1 (ruling ASC-R-28): a carrier launches a small craft from its hangar in its movement phase."""

    vessel: str  # the carrier
    craft: str


class Recover(Command, frozen=True, tag="asc.recover"):
    """ASC-CRAFT-1 (ruling ASC-R-30): a small craft in its carrier's hex goes back aboard."""

    vessel: str  # the craft


class EndPhase(Command, frozen=True, tag="asc.end_phase"):
    """ASC-SEQ-1: the side is done with the current phase (final: ruling ASC-R-24)."""

    side: str


class ForcePhase(Command, frozen=True, tag="asc.force_phase"):
    """Umpire only: finish the current phase as if every side had ended it (defaults for sealed commits)."""


COMMANDS = (CommitSensors, Detect, LockOn, AllStop, Move, Launch, Recover, Fire, Repair, EndPhase, ForcePhase)
