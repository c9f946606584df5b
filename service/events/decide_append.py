"""Decide one command on a head: roll, decide, evolve, add the dice bookkeeping and build the batch
that records it (``decide``); once that batch is durable, bring a head up to date with it (``apply``).

The command pipeline decides on a speculative head and applies to the durable one as commits land;
``decide_and_append`` does both in one step for callers that hold the game's lock throughout."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, final

import msgspec

from service.domain.core import Actor, Clock, Command, Dice, Event, RuleViolation, Viewer
from service.domain.core.guards import guarded_decide

from . import ids
from .dice_book import DiceBook, SeedRow
from .envelope import DiceMaterial, DiceRevealed
from .event_store import EventStore, WriteBatch
from .fresh import FrameItems, FreshEvent
from .head import GameHead, advance_command, encode_state
from .rows import event_row, now_iso, result_record


class CommandResult(msgspec.Struct, gc=False):
    """A command's answer (a Struct, not a dataclass: built in C, ~1.3k instructions fewer per command)."""

    status: int
    # the answer as stored (``rows.result_record``): a replayed idempotent result's, a keyed command's
    # record; None: the API layer encodes ``events`` (``service/api/encoding.command_body``)
    body: bytes | None
    version: int | None = None  # the game's version after it (None for a replayed idempotent result)
    after: int | None = None  # the version it was decided on: its events are (after, version], all of them
    events: list[bytes] = []  # the envelopes the commanding viewer sees, in order (encoded once: ``FreshEvent``)


@final  # no subclass: ``type(d) is Decision`` tells a decision from the coroutine finishing one
class Decision(msgspec.Struct, gc=False):
    """A decided command not yet applied to any head: what to write, and what the heads learn from it.
    (A Struct built in C, not a dataclass' generated ``__init__``; never in a reference cycle: nothing it
    holds refers back to it, so the collector need not track it.)"""

    result: CommandResult
    batch: WriteBatch
    fresh: list[FreshEvent]  # each new event with the state after it (and its dice material), each audience's
    # view redacted and encoded once
    seeds: list[SeedRow]
    service_events: list[Event]
    dice_turn: int | None  # the head's dice turn after it (None: the game is over, the turn stays)


@dataclass
class CommandWriter:
    store: EventStore
    dice: DiceBook
    snapshot_every: int
    # the items for the live streams (a head and its fresh events in, the publisher's items out), or None
    # when nobody publishes them
    frames: Callable[[GameHead, list[FreshEvent]], FrameItems] | None = None
    # the games someone watches and the notifications a command writes for them (watchers.Watchers);
    # a game nobody watches pays one dict lookup
    notices: Any = None

    def decide_now(
        self,
        head: GameHead,
        actor: Actor,
        command: Command,
        salt: str,
        idempotency_key: str | None,
        request_hash: str,
        dice: tuple[Dice, str] | None = None,
    ) -> Decision | Coroutine[Any, Any, Decision]:
        """``decide`` without a coroutine when nothing needs the store (the usual case: the turn's seed and
        slots are in memory and the turn goes on); otherwise the coroutine that finishes the decision.
        One code path builds the decision either way: await what is not a ``Decision``. ``dice``: the
        dice and salt read from the store (``dice_for``), when the caller has them."""
        if dice is None:
            dice = self.dice.dice_now(head, salt)
            if dice is None:
                return self._with_stored_dice(head, actor, command, salt, idempotency_key, request_hash)
        rolling, salt = dice
        ruleset = head.ruleset
        state = head.state
        events = guarded_decide(ruleset, state, command, actor, rolling, head.running is state)  # RuleViolation
        if not events:
            raise RuleViolation("SALVO-EMPTY", "the command changed nothing")
        command_id = ids.command_id()  # drawn before a turn's end draws its seed (a seeded source's order)
        material = self.dice.material(head, salt, rolling) if rolling.count else None
        fresh: list[FreshEvent] = []
        evolve, actor_label = ruleset.evolve, actor.label
        for event in events:
            state = evolve(state, event)
            fresh.append(FreshEvent(event, state, actor_label))
        materials = self.dice.stamp(head, material, fresh)
        end, over = ruleset.clock(state), ruleset.is_over(state)
        if not self.dice.turn_goes_on(head, end.turn, over, rolling):  # a new turn, or its tree to extend
            return self._closing(
                head,
                actor,
                command_id,
                events,
                fresh,
                state,
                material,
                materials,
                end,
                over,
                idempotency_key,
                request_hash,
            )
        self.dice.prepare(head)  # the next turn's seed and tree, built off the command path
        return self._decision(
            head, actor, command_id, fresh, state, material, materials, end, over, [], [], idempotency_key, request_hash
        )

    async def decide(
        self,
        head: GameHead,
        actor: Actor,
        command: Command,
        salt: str,
        idempotency_key: str | None,
        request_hash: str,
    ) -> Decision:
        """The command's rows on top of ``head`` (which it does not change; a seed it reads is cached)."""
        decision = self.decide_now(head, actor, command, salt, idempotency_key, request_hash)
        return decision if type(decision) is Decision else await decision

    async def _with_stored_dice(
        self, head: GameHead, actor: Actor, command: Command, salt: str, idempotency_key: str | None, request_hash: str
    ) -> Decision:
        dice = await self.dice.dice_for(head, salt)
        decision = self.decide_now(head, actor, command, salt, idempotency_key, request_hash, dice)
        return decision if type(decision) is Decision else await decision

    async def _closing(
        self,
        head: GameHead,
        actor: Actor,
        command_id: str,
        events: list[Event],
        fresh: list[FreshEvent],
        state: Any,
        material: DiceMaterial | None,
        materials: list[DiceMaterial | None],
        end: Clock,
        over: bool,
        idempotency_key: str | None,
        request_hash: str,
    ) -> Decision:
        """The decision of a command that ends its dice turn (or the game): the turn's service events."""
        pending = list(zip(materials, events, strict=True))
        new_seeds, service_events = await self.dice.close_turns(head, state, pending)
        return self._decision(
            head,
            actor,
            command_id,
            fresh,
            state,
            material,
            materials,
            end,
            over,
            new_seeds,
            service_events,
            idempotency_key,
            request_hash,
        )

    def _decision(
        self,
        head: GameHead,
        actor: Actor,
        command_id: str,
        fresh: list[FreshEvent],
        state: Any,
        material: DiceMaterial | None,
        materials: list[DiceMaterial | None],
        end: Clock,
        over: bool,
        new_seeds: list[SeedRow],
        service_events: list[Event],
        idempotency_key: str | None,
        request_hash: str,
    ) -> Decision:
        """The rows, the result and the batch of a decided command (and the service events it calls for)."""
        ruleset = head.ruleset
        if service_events:
            fresh += [FreshEvent(event, state, "system") for event in service_events]
        codec, game_id = head.codec, head.game_id
        recorded_at = now_iso()
        rows = []
        seq = head.seq
        clock_of, rolls = ruleset.clock, len(materials)
        for offset, f in enumerate(fresh):
            seq += 1
            event = f.event
            clock = end if f.after is state else clock_of(f.after)
            if type(event) is DiceRevealed:  # not isinstance: a Struct class's check costs ~1k instructions
                # a reveal belongs to the turn whose dice it opens, not to the turn the command started
                before = clock_of(head.state)
                if event.turn == before.turn:
                    clock = before
            dice_material = materials[offset] if offset < rolls else None
            row = event_row(
                codec, game_id, seq, event, clock.turn, clock.phase, f.actor, command_id, recorded_at, dice_material
            )
            f.bind(row, dice_material, material)  # served: the material before ``stamp`` added seen_by
            rows.append(row)
        actor_view = actor if actor.kind != "spectator" else Viewer("spectator")
        label = fresh[0].actor  # ``actor_view.label``, as decide_now took it for the command's events
        visible = []  # a loop, not a comprehension: no function object and frame for it (3.11)
        for f in fresh:
            envelope = f.envelope(codec, ruleset, game_id, actor_view, label)
            if envelope is not None:
                visible.append(envelope)
        new_seq = seq
        body = None
        batch = WriteBatch(game_id, rows, seeds=new_seeds)
        notices = self.notices
        if notices is not None and game_id in notices.games:  # notified in the events' own transaction
            batch.outbox = notices.command_rows(head, state, actor, new_seq, fresh)
        if idempotency_key:
            body = result_record(new_seq, visible)
            batch.idempotency = {
                "game_id": game_id,
                "key": idempotency_key,
                "request_hash": request_hash,
                "status": 201,
                "response": body,
            }
        if new_seq // self.snapshot_every > head.seq // self.snapshot_every:
            encoded = encode_state(state)
            head.state_bytes = len(encoded)  # the head cache's budget follows a game that grows
            batch.snapshot = {"game_id": game_id, "seq": new_seq, "state": encoded}
        return Decision(
            CommandResult(201, body, new_seq, head.seq, visible),
            batch,
            fresh,
            new_seeds,
            service_events,
            None if over else end.turn,
        )

    def apply(self, head: GameHead, decision: Decision) -> None:
        """Move ``head`` past a decided command (the speculative head at once, the durable one once the
        command's batch is durable)."""
        if head.dice_ledger is not None or decision.seeds or decision.service_events:  # else nothing to remember
            self.dice.remember(head, decision.seeds, decision.service_events, decision.fresh)
        advance_command(head, decision.fresh, decision.dice_turn)

    def frames_for(self, head: GameHead, decision: Decision) -> FrameItems:
        return self.frames(head, decision.fresh) if self.frames is not None else []

    async def decide_and_append(
        self,
        head: GameHead,
        actor: Actor,
        command: Command,
        salt: str,
        idempotency_key: str | None,
        request_hash: str,
    ) -> tuple[CommandResult, FrameItems]:
        """Decide, write durably, then apply to ``head``: for a caller holding the game's lock."""
        decision = await self.decide(head, actor, command, salt, idempotency_key, request_hash)
        await self.store.write(decision.batch)  # durable before anyone hears of it
        self.apply(head, decision)
        return decision.result, self.frames_for(head, decision)
