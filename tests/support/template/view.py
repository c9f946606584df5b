"""view (the sheet) and draw (the drawing contract, docs/view-contract.md). Nothing here is hidden."""

from __future__ import annotations

from typing import Any

from service.domain.core import Viewer
from service.domain.core.drawing import Bar, Board, Drawing, Effect, Piece, SeatStatus, Status, pt

from .state import GameState


def view(state: GameState, viewer: Viewer) -> dict[str, Any]:
    return {
        "turn": state.turn,
        "sides": list(state.sides),
        "hull": dict(state.hull),
        "max_hull": state.max_hull,
        "done": list(state.done),
        "over": state.over,
        "winner": state.winner,
        "result": state.result,
    }


def _why(state: GameState, side: str) -> tuple[bool, str]:
    if state.over:
        return False, f"the game is over: {state.result}"
    if side in state.done:
        return False, f"has fired this turn; waiting for {', '.join(s for s in state.sides if s not in state.done)}"
    return True, "fire at the enemy or hold fire (TPL-1)"


def draw(state: GameState, viewer: Viewer) -> Drawing:
    seats = tuple(SeatStatus(s, *_why(state, s)) for s in state.sides)
    pieces = tuple(
        Piece(
            id=s,
            kind="ship",
            label=f"{s} ship",
            at=pt(4 + 12 * i, 5),
            side=s,
            facing=90 - 180 * i,
            status="destroyed" if state.hull[s] <= 0 else "active",
            bars=(Bar("hull", state.hull[s], state.max_hull),),
            mine=viewer.seat == s,
        )
        for i, s in enumerate(state.sides)
    )
    effects = tuple(Effect(n=m.n, kind=m.kind, text=m.text, source=m.source, target=m.target) for m in state.marks)
    status = Status(
        turn=state.turn,
        phase="fire",
        phase_label=f"Turn {state.turn} of {state.turn_limit}",
        seats=seats,
        you=next((s for s in seats if s.seat == viewer.seat), None),
        over=state.over,
        result=state.result or None,
    )
    return Drawing(
        board=Board(kind="plane", units="inches", width=20, height=10),
        status=status,
        pieces=pieces,
        effects=effects,
        sides=state.sides,
    )
