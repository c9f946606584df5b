"""Fold a game's log into state, from the nearest snapshot, and render it for one viewer.

Rewinds: a ``game.rewound`` event at seq R with ``to_seq`` T supersedes the events in (T, R). They stay
in the log (and in exports), marked superseded, and the fold skips them.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import msgspec

from service.domain.core import Event, Ruleset, Viewer

from .codec import EventCodec
from .envelope import SERVICE_EVENT_TYPES, DiceMaterial, DiceRevealed, Envelope, GameCreated, GameRewound
from .openings import opened_for
from .table_events import TableMessage, may_read

_dice_decoder = msgspec.json.Decoder(DiceMaterial)


class Decoded:
    """One stored row, decoded once (its seq read once too: every fold and render asks for it)."""

    __slots__ = ("event", "row", "seq")

    def __init__(self, row: Any, event: Event) -> None:
        self.row = row
        self.event = event
        self.seq = int(row.seq)


_row_types: dict[tuple[str, ...], Any] = {}


def stored_rows(rows: Iterable[Any]) -> list[Any]:
    """Database rows as named tuples: an attribute of a SQLAlchemy ``Row`` costs about half a
    microsecond, of a named tuple a tenth of that, and a fold and render read a dozen per row. Rows of
    other kinds (built in memory, read from a file) are left as they are."""
    rows = list(rows)
    if not rows or not hasattr(rows[0], "_mapping") or not hasattr(rows[0], "_fields"):
        return rows
    fields = tuple(rows[0]._fields)
    kind = _row_types.get(fields)
    if kind is None:
        kind = _row_types[fields] = namedtuple("StoredRow", fields)  # type: ignore[misc]  # noqa: PYI024
    make = kind._make  # type: ignore[union-attr]
    return [make(row) for row in rows]


def decode_rows(
    codec: EventCodec, rows: Iterable[Any], memo: dict[tuple[Any, ...], Event] | None = None
) -> list[Decoded]:
    """``memo``: rows with the same type, version, data and rolls share one event (events are frozen), so
    a log that repeats itself (a shot that missed, a phase ended) is decoded once per distinct event."""
    rows = stored_rows(rows)
    if memo is None:
        return [Decoded(row, codec.decode(row.type, row.v, row.data, row.rolls)) for row in rows]
    out = []
    for row in rows:
        key = (row.type, row.v, row.data, row.rolls)
        event = memo.get(key)
        if event is None:
            event = codec.decode(row.type, row.v, row.data, row.rolls)
            if len(memo) < MEMO_LIMIT:
                memo[key] = event
        out.append(Decoded(row, event))
    return out


MEMO_LIMIT = 4096  # distinct events remembered per read


def superseded_seqs(rewinds: Sequence[tuple[int, int]], seqs: Iterable[int]) -> set[int]:
    """Which of ``seqs`` are superseded, given (rewind seq, to_seq) pairs."""
    out: set[int] = set()
    if not rewinds:
        return out
    ordered = sorted(rewinds)
    for seq in seqs:
        for at, to in ordered:
            if to < seq < at:
                out.add(seq)
                break
    return out


async def command_end(store: Any, game_id: str, seq: int, last: int) -> int:
    """The seq that ends the command ``seq`` belongs to: ``seq`` itself when its row is the command's last (or
    has no command, as game creation's rows), else the last row sharing its command id, at most ``last``.

    A fork, a rewind and a viewed moment land there: between two events of one command a ruleset's state is
    one its automatic steps were about to leave (a phase every ship has moved in, before the phase change the
    same command appended), in which a seat may be told to act and offered nothing."""
    if seq >= last:
        return seq
    rows = stored_rows(await store.read_events(game_id, after=seq - 1, upto=last, limit=COMMAND_PAGE))
    if not rows or int(rows[0].seq) != seq or rows[0].command_id is None:
        return seq
    command, end, rows = rows[0].command_id, seq, rows[1:]
    while True:
        for row in rows:
            if row.command_id != command:
                return end
            end = int(row.seq)
        if end >= last:
            return end
        rows = stored_rows(await store.read_events(game_id, after=end, upto=last, limit=COMMAND_PAGE))
        if not rows:
            return end


COMMAND_PAGE = 64  # rows read at a time past a seq, looking for its command's end


def effective_rewinds(rewinds: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Rewinds that are not themselves superseded by a later rewind."""
    result = []
    for at, to in rewinds:
        if not any(to2 < at < at2 for at2, to2 in rewinds):
            result.append((at, to))
    return result


class _Handling(dict[type, int]):
    """Event class -> what the fold and ``visible_event`` do with its events, worked out once per class:
    ``isinstance`` against a msgspec Struct class other than the instance's own is a slow call through
    StructMeta's ``__instancecheck__`` (against the tuple of service types, one per member)."""

    def __missing__(self, cls: type) -> int:
        handling = self[cls] = (
            _CREATED
            if issubclass(cls, GameCreated)
            else _REVEALED
            if issubclass(cls, DiceRevealed)
            else _REWOUND
            if issubclass(cls, GameRewound)
            else _MESSAGE
            if issubclass(cls, TableMessage)
            else _SERVICE
            if issubclass(cls, SERVICE_EVENT_TYPES)
            else _RULESET
        )
        return handling


_RULESET, _SERVICE, _CREATED, _REVEALED, _REWOUND, _MESSAGE = range(6)  # all but _RULESET are service events
_HANDLING = _Handling()


class Folder:
    """Applies decoded events to a ruleset state in log order.

    A rewind resets the state to what it was at its ``to_seq``; the events it supersedes were live when
    they were appended, so folding the log in order gives, at every seq, the state as it was then, and
    at the end the effective state.
    """

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset

    def apply(self, state: Any, event: Event) -> Any:
        if _HANDLING[type(event)] != _RULESET:  # a service event
            return state
        return self.ruleset.evolve(state, event)

    def walk(
        self, state: Any, decoded: Sequence[Decoded], earlier: dict[int, Any] | None = None
    ) -> Iterator[tuple[Decoded, Any]]:
        """Yield each event with the state right after it. Every rewind target must lie at or after
        the seq ``state`` was taken at (callers start from a snapshot before the earliest target), or be
        given in ``earlier`` (seq -> the state at that seq)."""
        targets = {d.event.to_seq for d in decoded if _HANDLING[type(d.event)] == _REWOUND}  # type: ignore[attr-defined]
        walker = Walker(self, state, targets, earlier)
        step = walker.step
        for d in decoded:
            yield d, step(d)

    def fold(self, state: Any, decoded: Sequence[Decoded]) -> Any:
        result = state
        for _d, result in self.walk(state, decoded):  # noqa: B007 - the last state is the answer
            pass
        return result


class Walker:
    """``Folder.walk`` one event at a time, for a log read in pages: it keeps only the current state and
    the states at rewind targets (``targets``: every ``to_seq`` of the log's rewinds, from its markers)."""

    __slots__ = ("apply", "checkpoints", "start_state", "state", "targets")

    def __init__(self, folder: Folder, state: Any, targets: set[int], earlier: dict[int, Any] | None = None) -> None:
        self.apply = folder.apply
        self.state = self.start_state = state
        self.targets = targets
        self.checkpoints: dict[int, Any] = dict(earlier or {})

    def step(self, d: Decoded) -> Any:
        """The state right after ``d``."""
        if _HANDLING[type(d.event)] == _REWOUND:
            state = self.checkpoints.get(d.event.to_seq, self.start_state)  # type: ignore[attr-defined]
        else:
            state = self.apply(self.state, d.event)
        if d.seq in self.targets:
            self.checkpoints[d.seq] = state
        self.state = state
        return state


def visible_event(ruleset: Ruleset, event: Event, viewer: Viewer, state_after: Any) -> Event | None:
    """What a viewer may see of one event (None: nothing at all). Applied on every read path."""
    if viewer.kind == "umpire":  # Viewer.is_umpire without the property's call (3 a command)
        return event
    handling = _HANDLING[type(event)]
    if handling == _RULESET:
        return ruleset.redact(event, viewer, state_after)
    if handling == _CREATED:
        return msgspec.structs.replace(event, setup=ruleset.redact_setup(event.setup, viewer))  # type: ignore[attr-defined]
    if handling == _MESSAGE:  # table talk: only its audience reads it (table_events.may_read)
        return event if may_read(event, viewer) else None  # type: ignore[arg-type]
    if handling == _REVEALED and ruleset.hidden_information:
        return opened_for(event, viewer)  # type: ignore[arg-type]  # the seed is withheld until dice.disclosed
    return event


def _served_material(raw: Any) -> DiceMaterial:
    """The dice material as served: who saw the rolls is the service's own bookkeeping, never shown."""
    material = _dice_decoder.decode(raw)
    return msgspec.structs.replace(material, seen_by=()) if material.seen_by else material


def make_envelope(
    codec: EventCodec,
    game_id: str,
    row: Any,
    event: Event,
    superseded: bool = False,
    data: dict[str, Any] | None = None,
) -> Envelope:
    """``data``: the event's ``codec.to_data``, when the caller has it already."""
    return Envelope(  # positional, in the struct's field order: a join builds one per event
        game_id,
        int(row.seq),
        row.type,
        type(event).version,
        int(row.turn),
        row.phase,
        row.actor,
        row.recorded_at,
        codec.to_data(event) if data is None else data,
        row.command_id,
        event.rolls,
        _served_material(row.dice) if row.dice else None,
        superseded,
    )


def envelope_for(
    codec: EventCodec,
    ruleset: Ruleset,
    game_id: str,
    d: Decoded,
    viewer: Viewer,
    state_after: Any,
    superseded: bool = False,
) -> Envelope | None:
    """The envelope a viewer may see of one event, or None when the event is hidden from them."""
    event = visible_event(ruleset, d.event, viewer, state_after)
    return None if event is None else make_envelope(codec, game_id, d.row, event, superseded)
