"""The service's events for time and the table (issue 39): table talk and deadlines.

They frame the ruleset's log like the other service events (``envelope.py``): the fold skips them, forks
and imports never inherit them. A message is redacted per viewer like any event (``visible_event`` asks
``may_read``): a seat never sees what another side was told, a spectator sees only what was said to all.
"""

from __future__ import annotations

from typing import Any

from service.domain.core import Event, Viewer

MAX_MESSAGE_CHARS = 500


def side_of(seat: str) -> str:
    """The side a seat plays for: a Starfinder seat is ``ship/crew`` (crew roles of one ship are one side);
    in the other rulesets a seat is a side."""
    return seat.split("/", 1)[0]


class TableMessage(Event, frozen=True, tag="table.message"):
    """Table talk from ``sender`` (``seat:<name>`` or ``umpire``) to ``to``: ``all`` (everyone, spectators
    included), ``umpire``, ``side:<name>`` (every seat of that side) or ``seat:<name>``. The umpire reads
    every message; the sender reads its own."""

    sender: str
    to: str
    text: str


class DeadlineSet(Event, frozen=True, tag="deadline.set", omit_defaults=True):
    """The umpire changed the game's deadlines: ``per`` phase or turn (None: no deadline), ``seconds`` from
    the start of each, and the ``command`` appended (as the umpire) when one passes."""

    per: str | None
    seconds: int = 0
    command: dict[str, Any] = {}


class DeadlinePassed(Event, frozen=True, tag="deadline.passed"):
    """A deadline passed: the service appends ``command`` (as the umpire) right after this event.

    ``due_at`` is when the deadline fell (UTC, ISO 8601); ``turn`` and ``phase`` the game's clock when it
    fired (a deadline per turn forces each phase left in its turn, one of these each)."""

    turn: int
    phase: str
    per: str
    seconds: int
    due_at: str
    command: str  # the command's type


class ClockSet(Event, frozen=True, tag="clock.set", omit_defaults=True):
    """The umpire set the game's chess-style clocks (docs/deadlines.md): ``seconds`` in each seat's bank
    (None: no clocks), ``increment`` seconds given back when a seat stops being awaited, the ``command``
    appended (as the umpire) when a seat's bank runs out, and ``left``: seats given another time left."""

    seconds: int | None
    increment: int = 0
    command: dict[str, Any] = {}
    left: dict[str, float] = {}


class ClockRanOut(Event, frozen=True, tag="clock.ran_out"):
    """The time banks of ``seats`` ran out while the game waited for them: the service appends ``command``
    (as the umpire) right after this event. ``at`` is when (UTC, ISO 8601)."""

    seats: tuple[str, ...]
    turn: int
    phase: str
    seconds: int
    increment: int
    at: str
    command: str  # the command's type


TABLE_EVENT_TYPES: tuple[type[Event], ...] = (TableMessage, DeadlineSet, DeadlinePassed, ClockSet, ClockRanOut)


def may_read(message: TableMessage, viewer: Viewer) -> bool:
    """Whether ``viewer`` may read ``message`` (every read path, export and frame asks this)."""
    if viewer.kind == "umpire" or message.to == "all":
        return True
    if viewer.kind != "seat" or viewer.seat is None:
        return False  # a spectator reads only what was said to all
    if message.sender == viewer.label or message.to == viewer.label:
        return True
    return message.to == f"side:{side_of(viewer.seat)}"


def explain(event: Event) -> str | None:
    """One sentence for a replay (None: not one of these events)."""
    if isinstance(event, TableMessage):
        return f"{event.sender} to {event.to}: {event.text}"
    if isinstance(event, DeadlineSet):
        if event.per is None:
            return "The umpire removed the game's deadlines"
        return (
            f"The umpire set a deadline of {event.seconds} s per {event.per}"
            f" ({event.command.get('type', '?')} when it passes)"
        )
    if isinstance(event, DeadlinePassed):
        where = f"turn {event.turn}" + (f", phase {event.phase}" if event.phase else "")
        return (
            f"The deadline of {event.seconds} s for {where} passed at {event.due_at}: "
            f"the service appends {event.command} as the umpire"
        )
    if isinstance(event, ClockSet):
        if event.seconds is None:
            return "The umpire removed the game's clocks"
        if event.left:
            given = ", ".join(f"{seat} {left:g} s" for seat, left in sorted(event.left.items()))
            return f"The umpire set the time left: {given}"
        return (
            f"The umpire set clocks of {event.seconds} s per seat, {event.increment} s back per move"
            f" ({event.command.get('type', '?')} when one runs out)"
        )
    if isinstance(event, ClockRanOut):
        where = f"turn {event.turn}" + (f", phase {event.phase}" if event.phase else "")
        return (
            f"The clock of {', '.join(event.seats)} ran out in {where} at {event.at}: "
            f"the service appends {event.command} as the umpire"
        )
    return None
