"""Bots seated in games of this process: one task per game, woken by the game's live notifications.

The task listens on the broadcaster like a websocket does (audience "bots": no frames are encoded for
it, it only needs "the game moved"), and after every change lets each bot seat of the game move while
it is awaited. A lost notification only delays a bot until the next one or the heartbeat timeout.
Seating and unseating are recorded in the game's log (``service.events.bot_seats``); at start-up
``resume`` seats again every bot of every unfinished game.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any

from service.domain.core import Actor, Viewer
from service.domain.core.bot import Bot, RandomBot
from service.events import bot_seats
from service.events.application import GameService
from service.events.bots import BotMove, bot_move, bots_of, find_bot
from service.events.errors import InvalidRequest
from service.events.reading import GameReader
from service.events.storage_faults import StorageFull, StorageUnavailable

from .broadcast import Broadcaster
from .gate import Gate

log = logging.getLogger("salvo.bots")
AUDIENCE = "bots"
MAX_IDLE_ROUNDS = 1000  # moves in a row without a notification in between: a runaway loop, stop


@dataclass
class BotSeat:
    seat: str
    bot: str
    stand_in: bool  # the ruleset has no such bot of its own yet: the random bot plays it
    instance: Bot
    moves: int = 0
    state: str = "waiting"  # "waiting" | "thinking" | "stuck" | "over" | "failed"
    error: str | None = None
    refused: list[str] = field(default_factory=list)  # the last refusals, for a human to read

    def describe(self) -> dict[str, object]:
        return {
            "seat": self.seat,
            "bot": self.bot,
            "stand_in": self.stand_in,
            "moves": self.moves,
            "state": self.state,
            "error": self.error,
            "refused": self.refused[-5:],
        }


class BotRunner:
    def __init__(
        self,
        service: GameService,
        reader: GameReader,
        broadcaster: Broadcaster,
        heartbeat_seconds: float,
        gate: Gate | None = None,
    ) -> None:
        self.service = service
        self.gate = gate
        self.reader = reader
        self.broadcaster = broadcaster
        self.heartbeat = heartbeat_seconds
        self.seats: dict[str, dict[str, BotSeat]] = {}
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self._wake: dict[str, asyncio.Event] = {}

    async def seat_bot(self, game_id: str, seat_name: str, bot_name: str, actor: Actor | None = None) -> BotSeat:
        """Seat a bot; ``actor`` (who asked) records it in the game's log, unless that bot holds it already
        (None: resuming what the log says, nothing to record)."""
        head = await self.service.head(game_id)
        if seat_name not in head.seats:
            raise InvalidRequest(
                f"game {game_id} has no seat {seat_name!r} (seats: {', '.join(head.seats)})", field="seat"
            )
        instance = find_bot(head.ruleset, bot_name)
        _, stand_ins = bots_of(head.ruleset)
        current = self.seats.get(game_id, {}).get(seat_name)
        if current is not None and current.bot == bot_name:
            return current
        if actor is not None:
            await bot_seats.record(self.service, game_id, actor, seat_name, bot_name)
        placed = BotSeat(seat_name, bot_name, bot_name in stand_ins, instance)
        self.seats.setdefault(game_id, {})[seat_name] = placed
        self._ensure_task(game_id)
        self._wake[game_id].set()
        return placed

    async def unseat(self, game_id: str, seat_name: str, actor: Actor) -> bool:
        if seat_name not in self.seats.get(game_id, {}):
            return False
        await bot_seats.record(self.service, game_id, actor, seat_name, None)
        self.seats.get(game_id, {}).pop(seat_name, None)
        if game_id in self._wake:
            self._wake[game_id].set()
        return True

    async def resume(self) -> int:
        """Seat again the bots the logs of unfinished games hold (at start-up); returns how many."""
        count = 0
        for game_id in await bot_seats.games_with_bots(self.service):
            try:
                head = await self.service.head(game_id)
                if head.ruleset.is_over(head.state):
                    continue
                for seat_name, bot_name in (await bot_seats.seated(self.service, game_id)).items():
                    await self.seat_bot(game_id, seat_name, bot_name)
                    count += 1
            except Exception:  # noqa: BLE001 - one game that cannot resume (a ruleset gone) must not stop the rest
                log.exception("could not resume the bots of game %s", game_id)
        if count:
            log.info("resumed %d bot seats", count)
        return count

    def listed(self, game_id: str) -> list[BotSeat]:
        return list(self.seats.get(game_id, {}).values())

    def _ensure_task(self, game_id: str) -> None:
        task = self.tasks.get(game_id)
        if task is None or task.done():
            self._wake[game_id] = asyncio.Event()
            self.tasks[game_id] = asyncio.create_task(self._run(game_id), name=f"bots:{game_id}")

    async def _run(self, game_id: str) -> None:
        sub = self.broadcaster.subscribe(game_id, 64, AUDIENCE)
        wake = self._wake[game_id]
        try:
            while self.seats.get(game_id):
                wake.clear()
                if await self._play_while_awaited(game_id) == "over":
                    return
                if sub.overflowed:  # only "something happened" matters: start a fresh queue
                    self.broadcaster.unsubscribe(sub)
                    sub = self.broadcaster.subscribe(game_id, 64, AUDIENCE)
                waiters = [asyncio.ensure_future(wake.wait()), asyncio.ensure_future(sub.next(self.heartbeat))]
                try:
                    await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    for waiter in waiters:
                        waiter.cancel()
        finally:
            self.broadcaster.unsubscribe(sub)

    async def _play_while_awaited(self, game_id: str) -> str:
        for _round in range(MAX_IDLE_ROUNDS):
            progressed = False
            for placed in list(self.seats.get(game_id, {}).values()):
                outcome = await self._move(game_id, placed)
                if outcome == "over":
                    return "over"
                progressed |= outcome in ("acted", "moved")
            if not progressed:
                return "idle"
        log.error("bots of game %s moved %d times without pause; stopping", game_id, MAX_IDLE_ROUNDS)
        return "over"

    async def _move(self, game_id: str, placed: BotSeat) -> str:
        placed.state = "thinking"
        try:
            move: BotMove = await bot_move(
                self.service, self.reader, game_id, placed.seat, placed.instance, self._submit
            )
        except (StorageUnavailable, StorageFull):  # not the bot's defect (logged by the store): try again later
            placed.state = "waiting"
            return "wait"
        except Exception as exc:  # a bot defect must not leave its opponent waiting: show it, play on
            log.exception("bot %s in seat %s of game %s failed", placed.bot, placed.seat, game_id)
            placed.error = f"{type(exc).__name__}: {exc}"
            try:
                move = await bot_move(self.service, self.reader, game_id, placed.seat, RandomBot(), self._submit)
            except Exception:  # noqa: BLE001 - the ruleset itself fails here: nothing left to try
                log.exception("the random bot could not move seat %s of game %s either", placed.seat, game_id)
                placed.state = "failed"
                return "failed"
        placed.refused += move.refused
        placed.moves += move.outcome == "acted"
        placed.state = {"acted": "waiting", "moved": "waiting", "wait": "waiting"}.get(move.outcome, move.outcome)
        return move.outcome

    async def _submit(self, game_id: str, viewer: Viewer, body: bytes, expected: int) -> Any:
        if self.gate is None:
            return await self.service.handle_command(game_id, viewer, body, expected_version=expected)
        # no token; the bots of a game count as one address of their own for the rate limits
        return await self.gate.command(game_id, viewer, None, f"bots:{game_id}", body, None, expected)

    async def close(self) -> None:
        for task in self.tasks.values():
            task.cancel()
        for task in self.tasks.values():
            try:
                await task
            except (asyncio.CancelledError, Exception):  # noqa: BLE001 - shutting down: failures were logged
                pass
        self.tasks.clear()
