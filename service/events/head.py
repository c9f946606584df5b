"""The live head of one game: its ruleset, folded state and dice bookkeeping, kept in memory."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import msgspec

from service.domain.core import Event, Ruleset, find_ruleset

from .codec import EventCodec
from .envelope import DiceCommitted, DiceDisclosed, DiceRevealed, GameCreated, GameRewound
from .replay import Decoded, Folder, Walker, decode_rows, effective_rewinds, superseded_seqs

_CODECS: dict[str, EventCodec] = {}


def codec_for(ruleset: Ruleset) -> EventCodec:
    codec = _CODECS.get(ruleset.name)
    if codec is None:
        codec = _CODECS[ruleset.name] = EventCodec.for_ruleset(ruleset)
    return codec


@dataclass
class GameHead:
    game_id: str
    ruleset: Ruleset
    setup: Any
    state: Any
    seq: int
    effective: int  # events that count for the dice position (excludes superseded ones and rewinds)
    dice_turn: int
    seats: list[str]
    revealed: set[int] = field(default_factory=set)
    disclosed: bool = False  # every seed opened (hidden-information games, once over)
    seeds: dict[int, bytes] = field(default_factory=dict)  # secret turn seeds, cached
    committed: set[int] = field(default_factory=set)
    rewinds: list[tuple[int, int]] = field(default_factory=list)
    dice_ledger: Any = None  # the current dice turn's slots (dice_book.TurnLedger), loaded on first roll
    codec: EventCodec = field(init=False, repr=False, compare=False)  # the ruleset's (read twice a command)
    # the state a command left the game running in (``is_over`` was false), by identity: while it is still
    # ``state`` the next command's guard need not ask ``is_over`` again (states are immutable values)
    running: Any = field(default=None, repr=False, compare=False)
    # the state's encoded size when last measured (at a load, at each snapshot): the head cache's budget
    state_bytes: int = field(default=0, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.codec = codec_for(self.ruleset)


def encode_state(state: Any) -> bytes:
    return msgspec.json.encode(state)


def decode_state(ruleset: Ruleset, data: bytes) -> Any:
    return msgspec.json.decode(data, type=ruleset.state_type)


MARKER_TYPES = ("dice.committed", "dice.revealed", "dice.disclosed", "game.rewound")


def head_from_rows(game_id: str, game_row: Any, rows: list[Any]) -> GameHead:
    """Fold a whole log into a head (tests and tools; the service starts from a snapshot)."""
    ruleset = find_ruleset(game_row.ruleset)
    setup = ruleset.parse_setup(msgspec.json.decode(game_row.setup))
    markers = [r for r in rows if r.type in MARKER_TYPES]
    return build_head(game_id, ruleset, setup, ruleset.initial_state(setup), 0, rows, markers)


def build_head(
    game_id: str, ruleset: Ruleset, setup: Any, start_state: Any, start_seq: int, tail: list[Any], markers: list[Any]
) -> GameHead:
    """A head from a starting state (initial or a snapshot), the rows after it, and the log's markers
    (dice commitments, reveals and rewinds, read by a small query instead of a full scan)."""
    builder = HeadBuilder(game_id, ruleset, setup, start_state, start_seq, markers)
    builder.feed(tail)
    return builder.finish()


# exact types, not isinstance: a Struct class's isinstance goes through its metaclass (~800 instructions
# per class tried), and no event type derives from a service event
_MARKERS = frozenset((DiceCommitted, DiceRevealed, DiceDisclosed, GameRewound))
_END = object()  # "no next row": the last row fed ends its command


class HeadBuilder:
    """A head folded from a starting state over the rows after it, fed page by page: it holds the state
    being folded and one row of look-ahead (whether a row ends its command), never the states before.

    ``boundaries``: (seq, state) at each command boundary folded since the caller last took them, when
    ``watch_boundaries`` is set (the head cache writes snapshots there: a snapshot is taken at a command
    boundary, as the command path takes them)."""

    def __init__(
        self,
        game_id: str,
        ruleset: Ruleset,
        setup: Any,
        start_state: Any,
        start_seq: int,
        markers: list[Any],
        watch_boundaries: bool = False,
    ) -> None:
        codec = codec_for(ruleset)
        self.codec = codec
        earlier = decode_rows(codec, [m for m in markers if int(m.seq) <= start_seq])
        head = self.head = GameHead(
            game_id=game_id,
            ruleset=ruleset,
            setup=setup,
            state=start_state,
            seq=start_seq,
            effective=start_seq,
            dice_turn=_dice_turn_at(ruleset, start_state, earlier),
            seats=ruleset.seats(setup),
        )
        for d in earlier:
            _note_marker(head, d)
        targets = {int(msgspec.json.decode(m.data)["to_seq"]) for m in markers if m.type == "game.rewound"}
        self._step = Walker(Folder(ruleset), start_state, targets).step
        self._pending: tuple[Decoded, Any] | None = None
        self._rewound = False
        self.folded = 0
        self.watch_boundaries = watch_boundaries
        self.boundaries: list[tuple[int, Any]] = []

    def feed(self, rows: list[Any]) -> None:
        """Fold the next rows of the log (in seq order, right after the ones fed before)."""
        step = self._step
        for d in decode_rows(self.codec, rows):
            after = step(d)
            if self._pending is not None:
                self._settle(*self._pending, d.row.command_id)
            self._pending = (d, after)
        self.folded += len(rows)

    def finish(self) -> GameHead:
        head = self.head
        if self._pending is not None:
            self._settle(*self._pending, _END)
            self._pending = None
        if self._rewound or head.rewinds:
            _recount_effective(head)
        else:  # rows after the last rewind are never superseded
            head.effective = head.seq
        return head

    def _settle(self, d: Decoded, after: Any, next_command: Any) -> None:
        """One row, now that the next row's command id (or the end) is known. The dice turn follows the
        clock after each whole command (its rows share a command id) while the game runs; a finished game
        keeps the turn it ended in, whose seed is the last one rolled."""
        head = self.head
        kind = type(d.event)
        if kind in _MARKERS:
            _note_marker(head, d)
            self._rewound = self._rewound or kind is GameRewound
        command = d.row.command_id
        ends_command = next_command is _END or next_command != command
        if command is None and kind is DiceCommitted:
            head.dice_turn = d.event.turn  # type: ignore[attr-defined]  # game creation: the first turn's seed
        elif command is not None and ends_command and not head.ruleset.is_over(after):
            head.dice_turn = head.ruleset.clock(after).turn
        head.state = after
        head.seq = d.seq
        if self.watch_boundaries and ends_command:
            self.boundaries.append((d.seq, after))


class Step(Protocol):
    """One new event of a command, as the live path has it (``fresh.FreshEvent``)."""

    event: Event
    seq: int
    after: Any


def advance_command(head: GameHead, steps: Sequence[Step], dice_turn: int | None) -> None:
    """The live path's step past one command: the new events of one command (one command id), each with its seq
    and the state after it; ``dice_turn``: what the decision worked out for it (the clock's turn after
    it, or None once the game is over: the turn stays). Only the markers among them count."""
    if not steps:
        return
    rewound = False
    for step in steps:
        kind = type(step.event)
        if kind in _MARKERS:
            _note_marker(head, step)
            rewound = rewound or kind is GameRewound
    last = steps[-1]
    if dice_turn is not None:
        head.dice_turn = dice_turn
        head.running = last.after
    head.state = last.after
    head.seq = last.seq
    if rewound:
        _recount_effective(head)
    else:
        head.effective += len(steps)


def _note_marker(head: GameHead, d: Decoded | Step) -> None:
    event = d.event
    kind = type(event)  # exact types, as ``_MARKERS``
    if kind is DiceCommitted:
        head.committed.add(event.turn)  # type: ignore[attr-defined]
    elif kind is DiceRevealed:
        head.revealed.add(event.turn)  # type: ignore[attr-defined]
    elif kind is DiceDisclosed:
        head.disclosed = True
    elif kind is GameRewound and (d.seq, event.to_seq) not in head.rewinds:  # type: ignore[attr-defined]
        head.rewinds.append((d.seq, event.to_seq))  # type: ignore[attr-defined]


def _recount_effective(head: GameHead) -> None:
    """The dice position counts only the effective history: no superseded event, no rewind."""
    superseded = superseded_seqs(effective_rewinds(head.rewinds), range(1, head.seq + 1))
    head.effective = head.seq - len(superseded | {at for at, _ in head.rewinds})


def _dice_turn_at(ruleset: Ruleset, state: Any, markers: list[Decoded]) -> int:
    """The dice turn at a snapshot: the clock's while the game runs; once over, the turn whose seed
    the ending command revealed (snapshots are taken at command boundaries)."""
    if not ruleset.is_over(state):
        return ruleset.clock(state).turn
    for kind in (DiceRevealed, DiceCommitted):
        turns = [d.event.turn for d in markers if type(d.event) is kind]  # type: ignore[attr-defined]
        if turns:
            return turns[-1]
    return ruleset.clock(state).turn


__all__ = [
    "GameCreated",
    "GameHead",
    "HeadBuilder",
    "advance_command",
    "codec_for",
    "decode_state",
    "encode_state",
    "head_from_rows",
]
