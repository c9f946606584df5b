"""The one application service: load → decide → append → publish. Route handlers only call this.

It wires the parts, each in its own module: heads (``head_cache``), tokens (``tokens``), game
creation (``creation``), the command pipeline (``command_pipeline``), decide-and-write
(``decide_append``) and dice bookkeeping (``dice_book``); it returns values (``CommandResult``, the
fresh events with their envelopes) and publishes what the ``Framer`` it is given makes of them (the API
layer's ``encoding.live_frames``; without one, each event's seq alone). Rewinds and battle files use only
the public methods below.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine
from collections.abc import Set as AbstractSet
from typing import Any

from service.domain.core import Actor, Viewer

from . import creation
from .command_pipeline import CommandPipeline, CommandRequest
from .creation import CreatedGame, Lineage
from .decide_append import CommandResult, CommandWriter
from .dice_book import DiceBook
from .envelope import Envelope
from .event_store import EventStore, WriteBatch
from .fresh import FrameItems, Framer, FreshEvent, Publisher, announced, audience_key, audiences
from .head import GameHead
from .head_cache import DEFAULT_BUDGET_BYTES, DEFAULT_MAX_GAME_BYTES, HeadCache
from .rows import now_iso
from .tokens import TokenBook, hash_token

Reaction = Callable[[str, CommandResult], Awaitable[None]]


class GameService:
    def __init__(
        self,
        store: EventStore,
        snapshot_every: int = 500,
        publish: Publisher | None = None,
        listening: Callable[[str], AbstractSet[str]] | None = None,
        head_cache_size: int = 2000,
        token_cache_size: int = 100_000,
        verify_reads: bool = False,
        head_cache_bytes: int = DEFAULT_BUDGET_BYTES,
        max_game_bytes: int = DEFAULT_MAX_GAME_BYTES,
        frames: Framer | None = None,
    ):
        self.store = store
        self.snapshot_every = snapshot_every
        self.publish = publish
        # which audiences have a live socket on a game: frames are encoded for those only
        self.listening = listening
        # what a command's fresh events become for the live streams (the API layer's encoding)
        self.framer: Framer = frames if frames is not None else announced
        self.heads = HeadCache(store, head_cache_size, verify_reads, snapshot_every, head_cache_bytes, max_game_bytes)
        self.tokens = TokenBook(store, token_cache_size)
        self.dice = DiceBook(store)
        writer = CommandWriter(store, self.dice, snapshot_every, self._frames)
        self.commands = CommandPipeline(store, self.heads, writer, self._publish)
        # process managers reacting to appended commands (linked battles), each with the rulesets whose
        # games it reacts to (None: all); each must not fail the command
        self.reactions: list[tuple[frozenset[str] | None, Reaction]] = []
        self._reacted: frozenset[str] | None = frozenset()  # the rulesets some reaction wants (None: all)

    # --- games -------------------------------------------------------------------------------------

    async def create_game(
        self,
        ruleset_name: str,
        scenario: str | dict[str, Any],
        options: dict[str, Any] | None = None,
        lineage: Lineage | None = None,
    ) -> CreatedGame:
        return await creation.create_game(self.store, ruleset_name, scenario, options, lineage, self.snapshot_every)

    async def authenticate(self, game_id: str, token: str | None) -> Viewer:
        await self.head(game_id)  # 404 before 401
        return await self.tokens.viewer(game_id, token)

    async def head(self, game_id: str) -> GameHead:
        return await self.heads.get(game_id)

    async def current_head(self, game_id: str) -> GameHead:
        """The head for a read: checked against the stored head seq when this process may not hear of
        other replicas' appends (no broadcaster between them)."""
        return await self.heads.get_fresh(game_id)

    def forget(self, game_id: str) -> None:
        self.heads.forget(game_id)

    def note_remote_append(self, game_id: str, seq: int) -> None:
        """Another replica appended up to ``seq``: a cached head that is behind must be refolded."""
        self.heads.note_remote_append(game_id, seq)

    # --- commands ----------------------------------------------------------------------------------

    def react_to_commands(self, react: Reaction, rulesets: frozenset[str] | None = None) -> None:
        """Call ``react(game_id, result)`` after each command handled for a game of ``rulesets`` (None:
        of any ruleset)."""
        self.reactions.append((rulesets, react))
        wanted = self._reacted
        self._reacted = None if wanted is None or rulesets is None else wanted | rulesets

    def handle_command(
        self,
        game_id: str,
        actor: Actor,
        body: bytes,
        idempotency_key: str | None = None,
        expected_version: int | None = None,
        request: CommandRequest | None = None,
        on_durable: Callable[[CommandResult], None] | None = None,
    ) -> Coroutine[Any, Any, CommandResult]:
        """The pipeline's (``request``: the body decoded already); with no process manager to react to a
        command of the game's ruleset, its own coroutine is returned, not wrapped in one more (one level
        fewer to resume per command, and no reaction's coroutines). ``on_durable`` (the pipeline's: an
        early answer) only then: where reactions follow a command, its answer waits for them."""
        if not self._reacts_to(game_id):
            return self.commands.handle(game_id, actor, body, idempotency_key, expected_version, request, on_durable)
        handled = self.commands.handle(game_id, actor, body, idempotency_key, expected_version, request)
        return self._reacting(game_id, handled)

    def _reacts_to(self, game_id: str) -> bool:
        """Whether a process manager may react to a command of the game (an unknown ruleset: it may)."""
        wanted = self._reacted
        if wanted is None:
            return True
        if not wanted:
            return False
        head = self.heads.cached(game_id)  # a game's ruleset never changes
        return head is None or head.ruleset.name in wanted

    async def _reacting(self, game_id: str, handled: Coroutine[Any, Any, CommandResult]) -> CommandResult:
        result = await handled
        head = self.heads.cached(game_id)
        for rulesets, react in self.reactions:
            if rulesets is None or head is None or head.ruleset.name in rulesets:
                await react(game_id, result)
        return result

    async def append_and_refold(
        self, game_id: str, build: Callable[[GameHead], Awaitable[list[dict[str, Any]]]]
    ) -> GameHead:
        """Append the rows ``build`` makes from the current head, under the game's lock, and refold the
        head from the store (for events that change the effective history, such as a rewind)."""
        async with self.heads.lock(game_id):
            await self.commands.quiesce(game_id)  # its commands in flight land first: rows follow theirs
            head = await self.heads.get_locked(game_id)
            rows = await build(head)
            batch = WriteBatch(game_id=game_id, events=rows)
            notices = self.commands.writer.notices
            if notices is not None and game_id in notices.games:  # a rewind's notifications, in its transaction
                batch.outbox = notices.rewind_rows(head, rows)
            await self.store.write(batch)
            self.heads.forget(game_id)
            return await self.heads.load(game_id)

    async def announce(self, game_id: str, seq: int) -> None:
        """Tell live streams the log goes up to ``seq`` (they read what they need from the store)."""
        if self.publish is not None and (waiting := self.publish(game_id, [(seq, None)])) is not None:
            await waiting

    # ``publish`` may be replaced after construction (tests spy on it): look it up on every call
    def _publish(self, game_id: str, items: FrameItems) -> Awaitable[None] | None:
        publish = self.publish
        return publish(game_id, items) if publish is not None else None

    def _frames(self, head: GameHead, fresh: list[FreshEvent]) -> FrameItems:
        if self.publish is None:
            return []
        wanted = self.listening(head.game_id) if self.listening is not None else None
        return self.framer(head, fresh, wanted)


__all__ = [
    "CommandRequest",
    "CommandResult",
    "CreatedGame",
    "Envelope",
    "GameService",
    "Lineage",
    "audience_key",
    "audiences",
    "hash_token",
    "now_iso",
]
