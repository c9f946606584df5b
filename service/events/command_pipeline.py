"""The command pipeline: decode the request, replay an idempotent retry, check the expected version,
decide under the game's lock on the head ahead of the disk and queue the write, then acknowledge and
publish in order once it is durable (decide again after a racing writer's Conflict). A caller that
answers its client itself (the websocket) is called back as soon as the command is durable and in order
(``on_durable``), before the heads and the fan-out learn of it, so that work overlaps the client's."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import random
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, Union

import msgspec

from service.domain.core import Actor, Command, Ruleset

from .decide_append import CommandResult, CommandWriter, Decision
from .errors import Forbidden, IdempotencyMismatch, MalformedCommand, VersionConflict, field_of
from .event_store import Conflict, EventStore, WriteBatch
from .fresh import Publisher
from .head import GameHead
from .head_cache import HeadCache
from .inputs import decode_json

# When another process appends to the game first (a Conflict), the command is decided again on the log's
# head, one at a time (not pipelined behind this process's other commands, which would fail with it), after
# a random pause growing with each loss, for up to RETRY_FOR seconds (or ATTEMPTS decisions) before it is
# refused 409 "kept changing". Two replicas writing one game as fast as they could: at 5 tries, no pause and
# pipelined retries 2-4 % of commands were refused so (PostgreSQL); now none of 1,000, in repeated runs
ATTEMPTS = 100
RETRY_FOR = 3.0  # seconds from the first Conflict
CONFLICT_PAUSE = 0.001  # seconds: the first pause's bound, doubled at each loss
CONFLICT_PAUSE_MAX = 0.02
CONTENDED_FOR = 1.0  # seconds after a Conflict during which the game's commands are not pipelined
_jitter = random.Random()  # timing only, never a game's dice


class CommandRequest(msgspec.Struct, forbid_unknown_fields=True):
    command: msgspec.Raw
    salt: str = ""


_decoders: dict[str, msgspec.json.Decoder[Any]] = {}


def command_decoder(ruleset: Ruleset) -> msgspec.json.Decoder[Any]:
    decoder = _decoders.get(ruleset.name)
    if decoder is None:
        types = tuple(ruleset.command_types)
        union: Any = types[0] if len(types) == 1 else Union[types]  # noqa: UP007 - built at run time
        decoder = _decoders[ruleset.name] = msgspec.json.Decoder(union)
    return decoder


def decode_command(ruleset: Ruleset, body: bytes) -> tuple[CommandRequest, Command]:
    request = decode_json(body, CommandRequest, MalformedCommand)
    return request, request_command(ruleset, request)


def request_command(ruleset: Ruleset, request: CommandRequest) -> Command:
    """The request's command, decoded for the ruleset (a request decoded already: the websocket's
    message is decoded once, its ``command`` handed down as is; the errors are those of the body's)."""
    decoder = _decoders.get(ruleset.name) or command_decoder(ruleset)
    try:
        return decoder.decode(request.command)  # type: ignore[no-any-return]
    except msgspec.ValidationError as exc:
        path = "$.command" + field_of(str(exc))[1:]
        raise MalformedCommand(str(exc).replace("`$", "`$.command"), field=path) from None


def request_fingerprint(actor: Actor, command: Command, salt: str) -> str:
    """What an Idempotency-Key is bound to: who sent which decoded command with which salt, in one
    canonical form (sorted keys), so the same command over HTTP and the websocket is the same request
    whatever the spacing, key order or defaults of its JSON."""
    canonical = msgspec.json.encode([actor.label, msgspec.to_builtins(command), salt], order="sorted")
    return hashlib.sha256(canonical).hexdigest()


def _check_version(expected_version: int | None, head: GameHead) -> None:
    """Refuse the command if it expects another version of the game (an If-Match)."""
    if expected_version is not None and expected_version != head.seq:
        raise VersionConflict(f"expected version {expected_version}, the game is at {head.seq}", field="If-Match")


def _replayed(done: Any, request_hash: str) -> CommandResult:
    """An idempotent retry's stored result; refused if the key was used for another request."""
    if done.request_hash != request_hash:
        raise IdempotencyMismatch(
            "this Idempotency-Key was used with a different command (or salt, or sender)", field="Idempotency-Key"
        )
    return CommandResult(int(done.status), bytes(done.response))


class _InFlight(msgspec.Struct):
    """One decided command on its way to the disk: ``committed`` is the store's future (durable, or
    failed); it is settled (applied to the durable head, or failed) in seq order. What waits for that gets
    a future made on demand (``settled``): a game commanded one command at a time makes none. A Struct:
    made once a command, its positional init runs in C (no Python ``__init__`` frame)."""

    decision: Decision
    committed: asyncio.Future[None]
    before: _InFlight | None
    done: bool = False
    waiter: asyncio.Future[None] | None = None

    def settled(self) -> asyncio.Future[None]:
        waiter = self.waiter
        if waiter is None:
            waiter = self.waiter = asyncio.get_running_loop().create_future()
            if self.done:
                waiter.set_result(None)
        return waiter

    def settle(self) -> None:
        self.done = True
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)
        # the writer is done with this batch and the next one waits on ``settled`` only: drop the links
        # back, so a game that is never idle does not keep its whole run of batches alive
        self.before = None
        self.decision.batch.follows = None


@dataclass
class _Run:
    """A game's two heads while it is being commanded: ``durable`` (what readers get from the head
    cache: only committed events) and ``ahead`` (durable plus every command decided and queued but
    not yet committed), on which the next command is decided without waiting for the disk."""

    durable: GameHead
    ahead: GameHead
    last: _InFlight | None = None
    # the last decision, queued but not yet applied to ``ahead``: applied by whoever reads ``ahead`` next
    # (the next command, holding the lock) or by its own landing, whichever comes first; so a lone
    # command's commit is not kept waiting for it (``CommandPipeline.handle``)
    unapplied: Decision | None = None

    def catch_up(self, writer: CommandWriter) -> GameHead:
        """``ahead``, with the last decision applied to it (holding the game's lock)."""
        decision = self.unapplied
        if decision is not None:
            self.unapplied = None
            writer.apply(self.ahead, decision)
        return self.ahead

    def idle(self) -> bool:
        return self.last is None or self.last.done


def fork(head: GameHead) -> GameHead:
    """An independent copy of a head's mutable parts (state and setup are immutable values)."""
    ledger = head.dice_ledger
    if ledger is not None:
        ledger = dataclasses.replace(
            ledger,
            pinned=dict(ledger.pinned),
            seen={k: set(v) for k, v in ledger.seen.items()},
            late=set(ledger.late),
        )
    return dataclasses.replace(
        head,
        revealed=set(head.revealed),
        seeds=dict(head.seeds),
        committed=set(head.committed),
        rewinds=list(head.rewinds),
        dice_ledger=ledger,
    )


class CommandPipeline:
    """Commands of one game are decided one at a time under its lock, each on the head that includes
    every command decided before it, and queued for the writer at once; the lock is not held across
    the commit, so the next command is decided while the group commit is in flight. Results are
    acknowledged (and frames published) in seq order, each only once its batch is durable. A batch
    whose commit fails fails every batch decided on top of it (the store writes none of them), the
    heads are dropped and reloaded from the store; a Conflict is decided again, as before."""

    def __init__(
        self, store: EventStore, heads: HeadCache, writer: CommandWriter, publish: Publisher | None = None
    ) -> None:
        self.store = store
        self.heads = heads
        self.writer = writer
        self.publish = publish
        # the store's queue (``submit``), or None for a store with ``write`` only (tasks start in order)
        self._submit: Callable[[WriteBatch], asyncio.Future[None]] | None = getattr(store, "submit", None)
        self._runs: OrderedDict[str, _Run] = OrderedDict()  # least recently commanded first
        self.pipelined = 0  # commands decided while an earlier one of their game was in flight
        # games another process appended to under this one (a Conflict) in the last CONTENDED_FOR seconds:
        # their commands are decided one at a time on the log's head (``_contended_now``), not pipelined
        self._contended: dict[str, float] = {}
        self.conflicts = 0

    async def handle(
        self,
        game_id: str,
        actor: Actor,
        body: bytes,
        idempotency_key: str | None = None,
        expected_version: int | None = None,
        request: CommandRequest | None = None,
        on_durable: Callable[[CommandResult], None] | None = None,
    ) -> CommandResult:
        """``request``: the body decoded already (the websocket's message); ``body`` is then not read.
        ``on_durable``: called with the result once it is durable and acknowledged in order, before the
        heads learn of it and its frames are published (so the caller can answer first, and that work
        overlaps the client's; nothing awaits between the call and the landing, so no other command or
        read sees the game in between). It must not raise. Not called for a replayed idempotent result."""
        if actor.kind == "spectator":
            raise Forbidden("spectators cannot issue commands; use a seat or umpire token")
        heads = self.heads
        ruleset = (heads.hit(game_id) or await heads.get(game_id)).ruleset
        request = decode_json(body, CommandRequest, MalformedCommand) if request is None else request
        command = request_command(ruleset, request)
        # what an Idempotency-Key is bound to: only a keyed request stores or checks it
        request_hash = request_fingerprint(actor, command, request.salt) if idempotency_key else ""
        deadline = 0.0  # set at the first Conflict
        for attempt in range(ATTEMPTS):
            lock = heads.lock(game_id)
            if not lock.try_acquire():  # free and nobody waiting (the usual case): no coroutine to take it
                await lock.acquire()
            try:
                run = self._current_run(game_id) or await self._run_for(game_id)
                head = run.catch_up(self.writer)
                ledger = head.dice_ledger
                contended = attempt > 0 or (self._contended and self._contended_now(game_id))
                if contended or idempotency_key or ledger is None or ledger.turn != head.dice_turn:
                    run, head = await self._settled_head(game_id, bool(contended))
                if idempotency_key and (done := await self.store.idempotency(game_id, idempotency_key)) is not None:
                    return _replayed(done, request_hash)
                _check_version(expected_version, head)
                decision = self.writer.decide_now(head, actor, command, request.salt, idempotency_key, request_hash)
                # not isinstance: a Struct class's check of another type goes through its metaclass
                if type(decision) is not Decision:  # it needs the store (a seed, a ledger, a turn's end)
                    decision = await decision
                mine = self._queue(game_id, run, head, decision, on_durable)  # in decision order, under the lock
            finally:
                lock.release()
            # landing: after the commit (and the command before it), apply to the durable head and publish
            try:
                await mine.committed
                before = mine.before
                if before is not None and not before.done:  # settled already: nothing to wait for
                    await asyncio.shield(before.settled())  # acknowledged in seq order
            except BaseException as exc:  # lost: decided again after a Conflict, else raised as it is
                deadline = await self._lost(game_id, run, mine, exc, attempt, deadline)
                continue
            try:
                waiting = self._landed(game_id, run, mine, on_durable)
                if waiting is not None:
                    await waiting  # only a publisher that must wait (Redis) returns an awaitable
            finally:
                mine.settle()
            return mine.decision.result
        raise VersionConflict("the game kept changing under this command; retry", field=None)

    async def _settled_head(self, game_id: str, contended: bool) -> tuple[_Run, GameHead]:
        """The store must answer for everything decided so far (a retried key, or the next decision
        reads the turn's dice ledger from the store: it is not in memory yet; or a decision again after
        a Conflict: on the durable head, behind nothing of this process still in flight, so only another
        process's append can refuse it again, not a cascade from this process's own commands that lost
        too): the run once nothing of the game is in flight, and its head (holding the game's lock)."""
        run = await self.settle(game_id)
        if contended and await self.store.head(game_id) > run.durable.seq:  # and on the log's head
            self._drop(game_id, run)
            run = await self._run_for(game_id)
        return run, run.catch_up(self.writer)

    def _queue(
        self,
        game_id: str,
        run: _Run,
        head: GameHead,
        decision: Decision,
        on_durable: Callable[[CommandResult], None] | None,
    ) -> _InFlight:
        """Queue the decision's write behind the game's command in flight, if any (holding its lock, so
        in decision order): the command now in flight."""
        last = run.last
        before = last if last is not None and not last.done else None
        batch = decision.batch
        batch.follows = before.decision.batch if before is not None else None
        # nothing of the game to acknowledge before it: a store committing on this thread may
        # answer it straight after its commit (``WriteBatch.on_durable``), else it is answered on landing
        batch.on_durable = partial(on_durable, decision.result) if on_durable is not None and before is None else None
        submit = self._submit
        committed = submit(batch) if submit is not None else asyncio.ensure_future(self.store.write(batch))
        self.heads.note_own_write(game_id, head.seq + len(batch.events))
        run.unapplied = decision  # applied to ``ahead`` after the commit's hand-off, or before the next
        mine = run.last = _InFlight(decision, committed, before)
        if before is not None:
            self.pipelined += 1
        return mine

    def _landed(
        self, game_id: str, run: _Run, mine: _InFlight, on_durable: Callable[[CommandResult], None] | None
    ) -> Awaitable[None] | None:
        """The command is durable (and the one before it settled): answer it if the store did not,
        apply it to the durable head and publish its frames; what the publisher returns to wait for."""
        decision = mine.decision
        batch = decision.batch
        # the store answered it when it took the early answer (an early answer is made only with nothing before it)
        if on_durable is not None and (mine.before is not None or batch.on_durable is not None):
            batch.on_durable = None  # not answered by the store: answered here
            on_durable(decision.result)
        if run.unapplied is decision:  # no command came after it: ``ahead`` learns of it now
            run.catch_up(self.writer)
        durable, result = run.durable, decision.result
        if durable.seq == result.after:
            self.writer.apply(durable, decision)
        if self.heads.peek(game_id) is not durable or durable.seq != result.version:
            self.heads.forget(game_id)  # evicted and reloaded mid-flight, or out of step: read it again
        publish, frames = self.publish, self.writer.frames  # ``frames_for``, one call fewer
        if publish is not None and frames is not None and (items := frames(durable, decision.fresh)):
            return publish(game_id, items)
        return None

    async def _lost(
        self, game_id: str, run: _Run, mine: _InFlight, exc: BaseException, attempt: int, deadline: float
    ) -> float:
        """The command's batch is lost: its commit failed (raised again), or the caller went away (the
        batch's fate is still the writer's, ``_abandon``; raised again), or another process appended to
        the game under this one (a Conflict): then both heads go, the game is marked contended, and after
        a random pause growing with each loss the command is decided again, refused (VersionConflict)
        once it has lost for RETRY_FOR seconds. The deadline (set at the first Conflict)."""
        if isinstance(exc, asyncio.CancelledError):
            self._abandon(game_id, run, mine)
            raise exc
        if not isinstance(exc, Conflict):
            await self._failed(game_id, run, mine)
            raise exc
        self.conflicts += 1
        now = time.monotonic()
        self._contended[game_id] = now + CONTENDED_FOR
        await self._failed(game_id, run, mine)
        if attempt == 0:
            deadline = now + RETRY_FOR
        elif now > deadline:
            raise VersionConflict("the game kept changing under this command; retry", field=None)
        await asyncio.sleep(_jitter.uniform(0, min(CONFLICT_PAUSE_MAX, CONFLICT_PAUSE * 2**attempt)))
        return deadline

    def _contended_now(self, game_id: str) -> bool:
        """Did another process append to this game under this one lately? (Expired marks are dropped.)"""
        until = self._contended.get(game_id)
        if until is None:
            return False
        if until > time.monotonic():
            return True
        del self._contended[game_id]
        return False

    def _abandon(self, game_id: str, run: _Run, mine: _InFlight) -> None:
        """The caller was cancelled while its batch was in flight: the heads are dropped, and the batch
        settles when the writer is done with it (the append is not lost)."""
        self._drop(game_id, run)
        mine.committed.add_done_callback(lambda _f: mine.settle())

    async def _failed(self, game_id: str, run: _Run, mine: _InFlight) -> None:
        """A failed (or conflicting) commit: after the command before it, both heads go."""
        if mine.before is not None:
            await asyncio.shield(mine.before.settled())  # failures handled in seq order too
        self._drop(game_id, run)
        mine.settle()

    def _drop(self, game_id: str, run: _Run) -> None:
        if self._runs.get(game_id) is run:
            del self._runs[game_id]
            self.heads.forget(game_id)

    def _current_run(self, game_id: str) -> _Run | None:
        """The game's run if it can go on (holding its lock): its durable head is still the cached one,
        or something of it is in flight; None when ``_run_for`` must start a fresh one."""
        run = self._runs.get(game_id)  # peek: the head's place in the eviction order is its use's (``handle``)
        if run is not None and (self.heads.peek(game_id) is run.durable or not run.idle()):
            self._runs.move_to_end(game_id)
            return run
        return None

    async def _run_for(self, game_id: str) -> _Run:
        """The game's run (holding its lock): a fresh one when the cached durable head is not the one
        the run started from (evicted, forgotten, refolded) and nothing of the old run is in flight."""
        run = self._current_run(game_id)
        if run is not None:
            return run
        durable = await self.heads.get_locked(game_id)
        run = self._runs[game_id] = _Run(durable, fork(durable))
        self._runs.move_to_end(game_id)
        # no more runs than heads: the least recently commanded idle ones go (a run is two heads)
        while len(self._runs) > self.heads.capacity:
            oldest, first = next(iter(self._runs.items()))
            if not first.idle():
                break
            del self._runs[oldest]
        return run

    async def settle(self, game_id: str) -> _Run:
        """Wait until nothing of the game is in flight (holding its lock); the run afterwards."""
        run = self._runs.get(game_id)
        if run is not None and run.last is not None and not run.last.done:
            await asyncio.shield(run.last.settled())
        return await self._run_for(game_id)

    async def quiesce(self, game_id: str) -> None:
        """Wait for the game's commands in flight and drop its run (before a write outside the
        pipeline, such as a rewind, that refolds the head). Call it holding the game's lock."""
        run = self._runs.get(game_id)
        if run is not None and run.last is not None and not run.last.done:
            await asyncio.shield(run.last.settled())
        self._runs.pop(game_id, None)
