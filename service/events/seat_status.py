"""Whether a seat (or the umpire) must act now and why, in the ruleset's own words: the status of the
viewer's own drawing (``core.drawing.Status``), which is what that viewer may see and nothing more.
Shared by "my games" (players.py) and the notifications (outbox.py)."""

from __future__ import annotations

import logging
from typing import Any

import msgspec

from service.domain.core import Ruleset, Viewer

log = logging.getLogger(__name__)


class SeatNow(msgspec.Struct, frozen=True):
    """One viewer's situation in a game at one state."""

    turn: int
    phase: str
    phase_label: str
    must_act: bool
    why: str
    whose_move: tuple[str, ...]  # the seats the game waits for, as far as this viewer may know
    over: bool
    result: str | None


def seat_now(ruleset: Ruleset[Any, Any], state: Any, viewer: Viewer) -> SeatNow:
    """The viewer's status from its own drawing; a ruleset that draws nothing answers from its options."""
    over = bool(ruleset.is_over(state))
    drawing = ruleset.draw(state, viewer)
    if drawing is None:
        clock = ruleset.clock(state)
        must = not over and bool(ruleset.options(state, viewer))
        return SeatNow(
            clock.turn,
            clock.phase,
            clock.phase,
            must,
            "your move" if must else "",
            (),
            over,
            ruleset.result(state) if over else None,
        )
    status = drawing.status
    if viewer.is_umpire:
        must, why = status.umpire is not None and not over, status.umpire or ""
    elif status.you is not None:
        must, why = status.you.must_act and not over, status.you.why
    else:
        must, why = False, ""
    whose = tuple(s.seat for s in status.seats if s.must_act)
    return SeatNow(
        status.turn,
        status.phase,
        status.phase_label,
        must,
        why,
        whose,
        over or status.over,
        status.result if (over or status.over) else None,
    )
