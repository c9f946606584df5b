"""Commands: what a seat (or the umpire) asks for. JSON ``{"type": "gsc2.move", ...}``."""

from __future__ import annotations

import msgspec

from service.domain.core import Command


class Leg(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One leg of a move: first turn by ``turn`` degrees (-45 left, 0, 45 right), then go ``distance``."""

    turn: int = 0
    distance: float = 0.0


class Move(Command, frozen=True, tag="gsc2.move"):
    """Move a ship (GSC2-MOV-3). ``done=False`` interrupts the move to use a tractor (GSC2-MOV-6)."""

    ship: str
    legs: tuple[Leg, ...] = ()
    done: bool = True


class Disengage(Command, frozen=True, tag="gsc2.disengage"):
    """On an open table (linked campaign battles), an unmoved ship's move is an attempt to break away
    (GSC2-R-20, FTC-ARR-11)."""

    ship: str


class Pass(Command, frozen=True, tag="gsc2.pass"):
    """End my batch of moves (GSC2-MOV-2) or stop launching missiles (GSC2-MSL-2)."""

    side: str


class ChooseOrder(Command, frozen=True, tag="gsc2.choose_order"):
    """The roll-off winner names the leader: in movement the "second player" who sets each batch,
    in missiles the side that launches and moves first."""

    side: str
    leader: str


class FireTractor(Command, frozen=True, tag="gsc2.fire_tractor"):
    ship: str
    system: str
    target: str


class Launch(Command, frozen=True, tag="gsc2.launch"):
    ship: str
    battery: str
    target: str


class MoveMissiles(Command, frozen=True, tag="gsc2.move_missiles"):
    salvo: str


class Fire(Command, frozen=True, tag="gsc2.fire"):
    ship: str
    battery: str
    target: str


class Board(Command, frozen=True, tag="gsc2.board"):
    """Declare a direct-contact (GSC2-BRD-2) or teleporter (GSC2-BRD-4) boarding action."""

    ship: str
    target: str
    method: str  # contact | teleport
    assault: int = 0
    heavy: int = 0


class LaunchPod(Command, frozen=True, tag="gsc2.launch_pod"):
    ship: str
    squad: str = "assault"  # assault | heavy


class MovePod(Command, frozen=True, tag="gsc2.move_pod"):
    """Move a pod up to 6" (GSC2-BRD-3); with ``ram`` it flies at that ship and rams it."""

    pod: str
    x: float = 0.0
    y: float = 0.0
    ram: str | None = None


class SendSaboteurs(Command, frozen=True, tag="gsc2.sabotage"):
    """Troops aboard an enemy ship go for a named system (GSC2-BRD-5)."""

    ship: str
    side: str
    unit: str  # assault | heavy
    system: str


class CasualtyOrder(Command, frozen=True, tag="gsc2.casualty_order"):
    side: str
    order: tuple[str, ...]  # a permutation of crew, assault, heavy


class Repair(Command, frozen=True, tag="gsc2.repair"):
    ship: str
    system: str


class EndPhase(Command, frozen=True, tag="gsc2.end_phase"):
    side: str


class ForcePhase(Command, frozen=True, tag="gsc2.force_phase"):
    """Umpire only: resolve what is pending with defaults and move the phase on."""


class MakeRuling(Command, frozen=True, tag="gsc2.ruling"):
    """Umpire only (GSC2-UMP-1): the effect in play of a system the sheet leaves open."""

    ship: str
    system: str
    effect: str


class Start(Command, frozen=True, tag="gsc2.start"):
    """Begin turn 1 (any seat or the umpire): shields up, terrain drifts, movement order set (GSC2-R-2)."""


COMMANDS: tuple[type[Command], ...] = (
    Move,
    Disengage,
    Pass,
    ChooseOrder,
    FireTractor,
    Launch,
    MoveMissiles,
    Fire,
    Board,
    LaunchPod,
    MovePod,
    SendSaboteurs,
    CasualtyOrder,
    Repair,
    EndPhase,
    ForcePhase,
    MakeRuling,
    Start,
)
