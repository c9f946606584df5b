"""The slots of the current dice turn (docs/dice.md): the next free slot along the effective log, the
salt each used slot had at its first use (superseded uses included: a rewind cannot fish), which
audiences saw which slot's roll (their keys are opened to them when the turn ends), how many slots the
turn's committed roots cover, and which slots were first used beyond them (verified at the disclosure)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from service.domain.core import Event

from .envelope import DiceMaterial
from .event_store import EventStore
from .fresh import FreshEvent, labelled_audiences
from .head import GameHead
from .replay import effective_rewinds, superseded_seqs

_material = msgspec.json.Decoder(DiceMaterial)


@dataclass
class TurnLedger:
    turn: int
    slotted: bool  # rolls take the turn's slot keys: its commitment has slots (False: a game from before slots)
    next_slot: int = 0
    pinned: dict[int, str] = field(default_factory=dict)  # slot -> salt of its first use
    seen: dict[str, set[int]] = field(default_factory=dict)  # audience -> slots whose rolls it saw
    # leaves under the turn's largest committed root (0: no root, an open-information game's turn)
    size: int = 0
    late: set[int] = field(default_factory=set)  # slots first used beyond the roots committed by then

    def committed(self, slots: int) -> None:
        """A root over ``slots`` leaves of this turn was committed (the turn's first, or an extension)."""
        if slots > self.size:
            self.size = slots

    def take(self, material: DiceMaterial, event: Event, effective: bool = True) -> None:
        """Account for one event's rolls (in log order)."""
        first = material.slot
        if first is None or material.turn != self.turn or material.origin is not None:
            return
        pinned, seen, audiences, salts = self.pinned, self.seen, material.seen_by, material.salts
        for roll in event.rolls:
            i = roll.i
            slot = first + i
            if slot not in pinned:
                pinned[slot] = salts[i] if i < len(salts) else material.salt  # DiceMaterial.salt_of, inlined
                if slot >= self.size and self.size:  # rolled before any root covered it: no key at the reveal
                    self.late.add(slot)
            if effective and slot >= self.next_slot:
                self.next_slot = slot + 1
            for audience in audiences:
                slots = seen.get(audience)
                if slots is None:
                    slots = seen[audience] = set()
                slots.add(slot)

    def openings(self, pending: Iterable[tuple[DiceMaterial | None, Event]]) -> dict[str, list[int]]:
        """Per audience, the slots it saw, counting a command not yet recorded: only slots a committed root
        covered when they were first used (the others are verified at the end-of-game disclosure)."""
        seen = {audience: set(slots) for audience, slots in self.seen.items()}
        for material, event in pending:
            if material is not None and material.slot is not None and material.turn == self.turn:
                for audience in material.seen_by:
                    seen.setdefault(audience, set()).update(material.slot + r.i for r in event.rolls)
        size, late = self.size, self.late
        return {
            audience: sorted(r for r in slots if r < size and r not in late) for audience, slots in sorted(seen.items())
        }

    def used(self, pending: Iterable[tuple[DiceMaterial | None, Event]] = ()) -> int:
        """The slots taken so far along the effective log, counting a command not yet recorded."""
        used = self.next_slot
        for material, event in pending:
            if material is not None and material.slot is not None and material.turn == self.turn and event.rolls:
                used = max(used, material.slot + max(r.i for r in event.rolls) + 1)
        return used


async def load_ledger(store: EventStore, head: GameHead, codec: Any) -> TurnLedger:
    """The ledger of the head's dice turn, from the rows since that turn began."""
    turn = head.dice_turn
    bounds = await store.turn_bounds(head.game_id, turn)
    rows = await store.read_events(head.game_id, after=bounds[0] - 1) if bounds else []
    superseded = superseded_seqs(effective_rewinds(head.rewinds), (int(r.seq) for r in rows))
    ledger = TurnLedger(turn, slotted=False)
    for row in rows:
        if row.type == "dice.committed":
            committed = codec.decode(row.type, row.v, row.data, row.rolls)
            # a root, or (an open-information game's: no tree) slots; a game from before slots has neither
            ledger.slotted = ledger.slotted or (committed.turn == turn and bool(committed.root or committed.slots))
            if committed.turn == turn and committed.root:  # the turn's first root, or an extension
                ledger.committed(committed.slots)
        elif row.dice:
            event = codec.decode(row.type, row.v, row.data, row.rolls)
            ledger.take(_material.decode(row.dice), event, effective=int(row.seq) not in superseded)
    return ledger


def seen_by(head: GameHead, fresh: FreshEvent) -> tuple[str, ...]:
    """The audiences (umpire aside: it gets the seed) that see every roll of a command's new event."""
    event = fresh.event
    if not head.ruleset.hidden_information or not event.rolls:
        return ()
    out = []
    ruleset, rolls = head.ruleset, len(event.rolls)
    for viewer, label in labelled_audiences(head)[1:]:  # the spectator, then each seat
        shown = fresh.view(ruleset, viewer, label)
        if shown is not None and len(shown.rolls) == rolls:
            out.append(label)
    return tuple(out)
