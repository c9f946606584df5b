"""The live head of one game: its ruleset, folded state and dice bookkeeping, kept in memory."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgspec

from service.domain.core import Ruleset, find_ruleset

from .codec import EventCodec
from .envelope import DiceCommitted, DiceRevealed, GameCreated, GameRewound
from .replay import Decoded, Folder, decode_rows, effective_rewinds, superseded_seqs

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
    committed: set[int] = field(default_factory=set)
    rewinds: list[tuple[int, int]] = field(default_factory=list)

    @property
    def codec(self) -> EventCodec:
        return codec_for(self.ruleset)

    @property
    def folder(self) -> Folder:
        return Folder(self.ruleset)


def encode_state(state: Any) -> bytes:
    return msgspec.json.encode(state)


def decode_state(ruleset: Ruleset, data: bytes) -> Any:
    return msgspec.json.decode(data, type=ruleset.state_type)


def head_from_rows(game_id: str, game_row: Any, rows: list[Any]) -> GameHead:
    """Fold a whole log into a head (used on first load; later commands update it in place)."""
    ruleset = find_ruleset(game_row.ruleset)
    codec = codec_for(ruleset)
    setup = ruleset.parse_setup(msgspec.json.decode(game_row.setup))
    decoded = decode_rows(codec, rows)
    rewinds = [(d.seq, d.event.to_seq) for d in decoded if isinstance(d.event, GameRewound)]
    superseded = superseded_seqs(effective_rewinds(rewinds), (d.seq for d in decoded))
    state = Folder(ruleset).fold(ruleset.initial_state(setup), decoded)
    head = GameHead(
        game_id=game_id,
        ruleset=ruleset,
        setup=setup,
        state=state,
        seq=int(rows[-1].seq) if rows else 0,
        effective=0,
        dice_turn=ruleset.clock(state).turn,
        seats=ruleset.seats(setup),
        rewinds=rewinds,
    )
    note_service_events(head, decoded, superseded)
    return head


def note_service_events(head: GameHead, decoded: list[Decoded], superseded: set[int]) -> None:
    for d in decoded:
        if isinstance(d.event, DiceCommitted):
            head.committed.add(d.event.turn)
        elif isinstance(d.event, DiceRevealed):
            head.revealed.add(d.event.turn)
        if not isinstance(d.event, GameRewound) and d.seq not in superseded:
            head.effective += 1  # the dice position counts only the effective history


__all__ = ["GameCreated", "GameHead", "codec_for", "decode_state", "encode_state", "head_from_rows"]
