"""Fold a game's log into state, from the nearest snapshot, and render it for one viewer.

Rewinds: a ``game.rewound`` event at seq R with ``to_seq`` T supersedes the events in (T, R). They stay
in the log (and in exports), marked superseded, and the fold skips them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from service.domain.core import Event, Ruleset, Viewer

from .codec import EventCodec
from .envelope import SERVICE_EVENT_TYPES, DiceMaterial, DiceRevealed, Envelope, GameCreated, GameRewound
from .openings import opened_for

_dice_decoder = msgspec.json.Decoder(DiceMaterial)


@dataclass
class Decoded:
    """One stored row, decoded once."""

    row: Any
    event: Event

    @property
    def seq(self) -> int:
        return int(self.row.seq)


def decode_rows(codec: EventCodec, rows: Iterable[Any]) -> list[Decoded]:
    return [Decoded(row, codec.decode(row.type, row.v, row.data, row.rolls)) for row in rows]


def superseded_seqs(rewinds: Sequence[tuple[int, int]], seqs: Iterable[int]) -> set[int]:
    """Which of ``seqs`` are superseded, given (rewind seq, to_seq) pairs."""
    out: set[int] = set()
    ordered = sorted(rewinds)
    for seq in seqs:
        for at, to in ordered:
            if to < seq < at:
                out.add(seq)
                break
    return out


def effective_rewinds(rewinds: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Rewinds that are not themselves superseded by a later rewind."""
    result = []
    for at, to in rewinds:
        if not any(to2 < at < at2 for at2, to2 in rewinds):
            result.append((at, to))
    return result


class Folder:
    """Applies decoded events to a ruleset state in log order.

    A rewind resets the state to what it was at its ``to_seq``; the events it supersedes were live when
    they were appended, so folding the log in order gives, at every seq, the state as it was then, and
    at the end the effective state.
    """

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset

    def apply(self, state: Any, event: Event) -> Any:
        if isinstance(event, SERVICE_EVENT_TYPES):
            return state
        return self.ruleset.evolve(state, event)

    def walk(
        self, state: Any, decoded: Sequence[Decoded], earlier: dict[int, Any] | None = None
    ) -> Iterator[tuple[Decoded, Any]]:
        """Yield each event with the state right after it. Every rewind target must lie at or after
        the seq ``state`` was taken at (callers start from a snapshot before the earliest target), or be
        given in ``earlier`` (seq -> the state at that seq)."""
        targets = {d.event.to_seq for d in decoded if isinstance(d.event, GameRewound)}
        checkpoints: dict[int, Any] = dict(earlier or {})
        start_state = state
        for d in decoded:
            if isinstance(d.event, GameRewound):
                state = checkpoints.get(d.event.to_seq, start_state)
            else:
                state = self.apply(state, d.event)
            if d.seq in targets:
                checkpoints[d.seq] = state
            yield d, state

    def fold(self, state: Any, decoded: Sequence[Decoded]) -> Any:
        result = state
        for _d, result in self.walk(state, decoded):  # noqa: B007 - the last state is the answer
            pass
        return result


def visible_event(ruleset: Ruleset, event: Event, viewer: Viewer, state_after: Any) -> Event | None:
    """What a viewer may see of one event (None: nothing at all). Applied on every read path."""
    if viewer.is_umpire:
        return event
    if isinstance(event, GameCreated):
        return msgspec.structs.replace(event, setup=ruleset.redact_setup(event.setup, viewer))
    if isinstance(event, DiceRevealed) and ruleset.hidden_information:
        return opened_for(event, viewer)  # the seed is withheld until dice.disclosed (game over)
    if isinstance(event, SERVICE_EVENT_TYPES):
        return event
    return ruleset.redact(event, viewer, state_after)


def _served_material(raw: Any) -> DiceMaterial:
    """The dice material as served: who saw the rolls is the service's own bookkeeping, never shown."""
    material = _dice_decoder.decode(raw)
    return msgspec.structs.replace(material, seen_by=()) if material.seen_by else material


def make_envelope(codec: EventCodec, game_id: str, row: Any, event: Event, superseded: bool = False) -> Envelope:
    return Envelope(
        game_id=game_id,
        seq=int(row.seq),
        type=row.type,
        v=type(event).version,
        turn=int(row.turn),
        phase=row.phase,
        actor=row.actor,
        recorded_at=row.recorded_at,
        data=codec.to_data(event),
        command_id=row.command_id,
        rolls=event.rolls,
        dice=_served_material(row.dice) if row.dice else None,
        superseded=superseded,
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
