"""Decide and write one command: roll, decide, evolve, add the dice bookkeeping, append durably,
then bring the head up to date. The caller holds the game's lock."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec

from service.domain.core import Actor, Command, Event, RuleViolation, Viewer
from service.domain.core.guards import guarded_decide

from . import ids
from .dice_book import DiceBook
from .envelope import DiceRevealed
from .event_store import EventStore, WriteBatch
from .frames import FrameItems
from .head import GameHead, advance, encode_state
from .replay import Decoded, envelope_for
from .rows import RowView, event_row, now_iso

_envelope_list = msgspec.json.Encoder()


@dataclass
class CommandResult:
    status: int
    body: bytes  # JSON {"version": N, "events": [...]}, stored for idempotent retries
    version: int | None = None  # the game's version after it (None for a replayed idempotent result)


@dataclass
class CommandWriter:
    store: EventStore
    dice: DiceBook
    snapshot_every: int
    # frames for the live streams, or None when nobody publishes them
    frames: Callable[[GameHead, list[tuple[Decoded, Any]]], FrameItems] | None = None

    async def decide_and_append(
        self,
        head: GameHead,
        actor: Actor,
        command: Command,
        salt: str,
        idempotency_key: str | None,
        request_hash: str,
    ) -> tuple[CommandResult, FrameItems]:
        ruleset = head.ruleset
        dice, salt = await self.dice.dice_for(head, salt)
        events = guarded_decide(ruleset, head.state, command, actor, dice)  # raises RuleViolation
        if not events:
            raise RuleViolation("SALVO-EMPTY", "the command changed nothing")
        command_id = ids.command_id()
        material = self.dice.material(head, salt, dice) if dice.count else None
        state = head.state
        staged: list[tuple[Event, Any, str]] = []  # (event, state after, actor label)
        for event in events:
            state = ruleset.evolve(state, event)
            staged.append((event, state, actor.label))
        materials = self.dice.stamp(head, material, [(event, after) for event, after, _ in staged])
        rolled = list(zip(materials, events, strict=True))
        new_seeds, service_events = await self.dice.close_turns(head, state, rolled)
        for event in service_events:
            staged.append((event, state, "system"))
        codec = head.codec
        recorded_at = now_iso()
        before = ruleset.clock(head.state)
        rows, decoded = [], []
        for offset, (event, after, label) in enumerate(staged):
            seq = head.seq + 1 + offset
            # a reveal belongs to the turn whose dice it opens, not to the turn the command started
            clock = before if isinstance(event, DiceRevealed) and event.turn == before.turn else ruleset.clock(after)
            row = event_row(codec, head.game_id, seq, event, clock.turn, clock.phase, label, command_id,
                            recorded_at, materials[offset] if offset < len(materials) else None)
            rows.append(row)
            decoded.append((Decoded(RowView(row), event), after))
        actor_view = actor if actor.kind != "spectator" else Viewer("spectator")
        visible = [
            e for d, after in decoded
            if (e := envelope_for(codec, ruleset, head.game_id, d, actor_view, after)) is not None
        ]
        new_seq = head.seq + len(rows)
        body = _envelope_list.encode({"version": new_seq, "events": visible})
        batch = WriteBatch(game_id=head.game_id, events=rows, seeds=new_seeds)
        if idempotency_key:
            batch.idempotency = {"game_id": head.game_id, "key": idempotency_key,
                                 "request_hash": request_hash, "status": 201, "response": body}
        if new_seq // self.snapshot_every > head.seq // self.snapshot_every:
            batch.snapshot = {"game_id": head.game_id, "seq": new_seq, "state": encode_state(state)}
        await self.store.write(batch)  # durable before anyone hears of it
        self.dice.remember(head, new_seeds, service_events, rolled)
        advance(head, decoded)
        frames = self.frames(head, decoded) if self.frames is not None else []
        return CommandResult(201, body, new_seq), frames
