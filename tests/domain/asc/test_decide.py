"""The core decide skeleton as ASC declares it: the guards' order and their typed refusals."""

from __future__ import annotations

import pytest

from service.domain.asc.commands import AllStop, CommitSensors, Detect, EndPhase, Fire, ForcePhase, Move, Repair
from service.domain.asc.decide import DECIDER, PATHS
from service.domain.core import Command, NotYourPiece, UnknownCommand, WrongPhase
from tests.support.decider import then_violation

from .builders import ADV, DIS, R, duel, phase, state_of


class Teleport(Command, frozen=True, tag="asc.test_teleport"):
    vessel: str


def test_UNKNOWN_COMMAND_is_refused_before_anything_else() -> None:
    """UNKNOWN-COMMAND: a command ASC has no path for, whoever sends it, names no piece and no phase."""
    state = state_of(duel())
    for actor in (ADV, DIS):
        err = then_violation(R, state, Teleport(vessel="nobody"), "UNKNOWN-COMMAND", actor)
        assert isinstance(err, UnknownCommand) and err.code == "unknown-command"
    assert type(Teleport(vessel="alpha")) not in PATHS and DECIDER.seat_rule == "ASC-HID-1"


def test_ASC_HID_1_whose_piece_comes_before_the_phase() -> None:
    """ASC-HID-1: an enemy vessel or side is refused as not-your-piece (403) in any phase, before the
    phase is looked at; an unknown vessel id reads exactly the same."""
    state = state_of(duel(), phase("fire"))
    refusals = []
    for cmd in (
        Move(vessel="bravo", path=("F",)),
        Move(vessel="nope", path=("F",)),
        Repair(vessel="bravo", locations=("drive",)),
    ):
        with pytest.raises(NotYourPiece) as info:
            R.decide(state, cmd, ADV, None)  # type: ignore[arg-type]
        refusals.append((info.value.rule, info.value.code, info.value.status, info.value.detail))
    assert (
        refusals[0]
        == refusals[1]
        == refusals[2]
        == ("ASC-HID-1", "not-your-piece", 403, "seat:advantaged cannot act for disadvantaged")
    )
    err = then_violation(R, state, CommitSensors(side="disadvantaged"), "ASC-HID-1", ADV)
    assert isinstance(err, NotYourPiece)
    err = then_violation(R, state, EndPhase(side="advantaged"), "ASC-HID-1", DIS)
    assert isinstance(err, NotYourPiece)


def test_ASC_SEQ_1_wrong_phase_refusals_are_typed() -> None:
    """ASC-SEQ-1 (and each command's own phase rule): one's own vessel out of its phase is wrong-phase."""
    sensors = state_of(duel())
    cases = [
        (Detect(vessel="alpha", sensor="pas", target="bogey-1"), "ASC-SEQ-1"),
        (Move(vessel="alpha", path=("F",)), "ASC-MOV-2"),
        (AllStop(vessel="alpha", facing=0), "ASC-MOV-2"),
        (Fire(vessel="alpha", weapon="las", target="bravo"), "ASC-FIRE-1"),
        (Repair(vessel="alpha", locations=("drive",)), "ASC-DC-1"),
    ]
    for cmd, rule in cases:
        err = then_violation(R, sensors, cmd, rule, ADV)
        assert isinstance(err, WrongPhase) and err.code == "wrong-phase", cmd
    fire = state_of(duel(), phase("fire"))
    err = then_violation(R, fire, CommitSensors(side="advantaged"), "ASC-SEQ-1", ADV)
    assert isinstance(err, WrongPhase)
    # the umpire alone forces the phase on: a seat is refused as not-your-piece citing ASC-SEQ-1
    err = then_violation(R, fire, ForcePhase(), "ASC-SEQ-1", ADV)
    assert isinstance(err, NotYourPiece)


def test_ASC_MOV_2_the_other_sides_movement_phase_is_the_handlers_rule() -> None:
    """ASC-MOV-2: a side moves only in its own movement phase (a movement phase, but not its own)."""
    state = state_of(duel(), phase("disadvantaged_movement"))
    err = then_violation(R, state, Move(vessel="alpha", path=("F",)), "ASC-MOV-2", ADV)
    assert not isinstance(err, WrongPhase) and "own movement phase" in err.detail
    # the umpire naming no vessel: the handler's own rule says what is missing
    then_violation(R, state, Move(vessel="nope", path=("F",)), "ASC-MOV-2")
