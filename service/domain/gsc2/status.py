"""Whose turn it is, in words: what each seat must do now, or why it cannot act (docs/view-contract.md)."""

from __future__ import annotations

from service.domain.core.drawing import SeatStatus, Status

from .movement import TractorShot, tractor_shots
from .state import PHASES, GameState

PHASE_NAMES = {
    "movement": "Movement",
    "missiles": "Missiles",
    "beams": "Beams",
    "boarding": "Boarding",
    "repairs": "Repairs & victory",
}
PHASE_WORK = {
    "beams": "fire your beam batteries, then end the phase",
    "boarding": "declare boarding actions and move pods, then end the phase",
    "repairs": "repair damaged systems, then end the phase",
}


def phase_label(state: GameState) -> str:
    if state.phase == "setup":
        return "Setting up (turn 1 has not begun)"
    n = PHASES.index(state.phase) + 1
    return f"{PHASE_NAMES[state.phase]} (phase {n} of {len(PHASES)})"


def _movement(state: GameState, side: str) -> tuple[bool, str]:
    o = state.order
    if state.moving is not None:
        mover = state.ships[state.moving]
        name = state.specs[mover.id].name
        shots = tractor_shots(state, side)
        if mover.side == side:
            also = f", or fire {_tractor_words(state, shots)} (GSC2-MOV-6)" if shots else ""
            return True, f"finish {name}'s move ({mover.move_left:g}\" left){also}"
        if shots:  # GSC2-MOV-6: the enemy's paused move may be interrupted; the seat may act, not only wait
            return True, (
                f"you may interrupt {name}'s move with {_tractor_words(state, shots)} "
                f"(GSC2-MOV-6), or wait for {mover.side} to finish it"
            )
        return False, f"waiting for {mover.side} to finish {name}'s move"
    if o.stage == "choose":
        if o.side == side:
            return True, "you won the roll-off: choose who is the second player"
        return False, f"waiting for {o.side}, who won the roll-off, to choose the second player"
    if o.stage in ("catchup", "follow", "lead"):
        if o.side == side:
            if o.stage == "lead":
                batch = f"; {o.count} moved in this batch, end it with pass when you like" if o.count else ""
                return True, f"move your ships (at least one){batch}"
            return True, f"move {o.owed} ship(s)"
        owes = f" ({o.owed} ship(s) owed)" if o.owed else ""
        return False, f"waiting for {o.side} to move{owes}"
    return _end_or_wait(state, side, "every ship has moved: end the movement phase")


def _tractor_words(state: GameState, shots: list[TractorShot]) -> str:
    beams = sorted({(t.ship, t.system) for t in shots})
    words = [f"{state.specs[ship].name}'s tractor beam {system}" for ship, system in beams]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _missiles(state: GameState, side: str) -> tuple[bool, str]:
    o = state.order
    stage = {
        "choose": "choose who launches first",
        "launch": "launch a missile battery or pass",
        "move": "move one of your salvos",
    }
    if o.stage in stage:
        if o.side == side:
            return True, ("you won the initiative: " if o.stage == "choose" else "") + stage[o.stage]
        return False, f"waiting for {o.side} to {stage[o.stage]}"
    return _end_or_wait(state, side, "missile attacks are resolved: end the missiles phase")


def _end_or_wait(state: GameState, side: str, work: str) -> tuple[bool, str]:
    if side not in state.done:
        return True, work
    waiting = [s for s in state.in_battle() if s not in state.done]
    # read in every seat's list, not only by this seat: no "you"
    return False, f"{side} has ended the {state.phase} phase; waiting for {', '.join(waiting)}"


def seat_status(state: GameState, side: str) -> SeatStatus:
    if state.over:
        return SeatStatus(side, False, f"the game is over: {state.result}")
    if state.phase == "setup":
        return SeatStatus(side, True, "start the game: turn 1 begins with movement")
    if side not in state.in_battle():  # GSC2-R-23: out of the battle, nothing to do while the others fight on
        return SeatStatus(side, False, f"{side} has no ship left in the fight: out of the battle")
    if state.phase == "movement":
        must, why = _movement(state, side)
    elif state.phase == "missiles":
        must, why = _missiles(state, side)
    else:
        must, why = _end_or_wait(state, side, PHASE_WORK[state.phase])
    if must and not state.active(side) and side not in state.done:
        why += " (you have no ship left in play)"
    return SeatStatus(side, must, why)


def status(state: GameState, you: str | None) -> Status:
    seats = tuple(seat_status(state, s) for s in state.sides)
    mine = next((s for s in seats if s.seat == you), None)
    result = None
    if state.over:
        result = f"{state.winner} wins: {state.result}" if state.winner else f"a draw: {state.result}"
    return Status(
        turn=max(1, state.turn),
        phase=state.phase if state.phase != "setup" else "setup",
        phase_label=phase_label(state),
        seats=seats,
        you=mine,
        umpire=None,
        sealed=False,
        over=state.over,
        result=result,
    )
