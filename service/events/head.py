"""The live head of one game: its ruleset, folded state and dice bookkeeping, kept in memory."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgspec

from service.domain.core import Ruleset, find_ruleset

from .codec import EventCodec
from .envelope import DiceCommitted, DiceDisclosed, DiceRevealed, GameCreated, GameRewound
from .replay import Folder, decode_rows, effective_rewinds, superseded_seqs

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

    @property
    def codec(self) -> EventCodec:
        return codec_for(self.ruleset)


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
    codec = codec_for(ruleset)
    state = Folder(ruleset).fold(start_state, decode_rows(codec, tail))
    decoded_markers = decode_rows(codec, markers)
    rewinds = [(d.seq, d.event.to_seq) for d in decoded_markers if isinstance(d.event, GameRewound)]
    seq = int(tail[-1].seq) if tail else start_seq
    head = GameHead(
        game_id=game_id,
        ruleset=ruleset,
        setup=setup,
        state=state,
        seq=seq,
        effective=seq,
        dice_turn=ruleset.clock(state).turn,
        seats=ruleset.seats(setup),
        rewinds=rewinds,
    )
    for d in decoded_markers:
        if isinstance(d.event, DiceCommitted):
            head.committed.add(d.event.turn)
        elif isinstance(d.event, DiceRevealed):
            head.revealed.add(d.event.turn)
        elif isinstance(d.event, DiceDisclosed):
            head.disclosed = True
    if rewinds:  # the dice position counts only the effective history
        superseded = superseded_seqs(effective_rewinds(rewinds), range(1, seq + 1))
        head.effective = seq - len(superseded | {at for at, _ in rewinds})
    return head


__all__ = ["GameCreated", "GameHead", "codec_for", "decode_state", "encode_state", "head_from_rows"]
