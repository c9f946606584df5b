"""The spectators' channel: talk among those watching a game, kept out of the game's log.

Never in the log, so never in an event, a replay, an export or a battle file, and never read by a seat (a
spectator's advice to a player would be kibitzing). In memory per process, the latest
``KEPT_PER_GAME`` messages of the ``GAMES_KEPT`` most recently active games: a restart or another replica
starts an empty channel (docs/table-talk.md).

Live: each socket of a spectator (or the umpire) on ``/v1/games/{id}/stream`` listens to its game's
channel (``listen``): a message is encoded once, ``{"kind":"spectator_message","message":{…}}``, and
handed to every listener of that process, which writes it to its socket (the fast path straight to the
transport, the plain path through the stream's sender). A seat's socket never listens.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec

log = logging.getLogger("salvo.spectator_chat")

KEPT_PER_GAME = 200
GAMES_KEPT = 10_000
MAX_NAME_CHARS = 40


class SpectatorChat:
    def __init__(self, kept_per_game: int = KEPT_PER_GAME, games_kept: int = GAMES_KEPT) -> None:
        self.kept_per_game = kept_per_game
        self.games_kept = games_kept
        self._games: OrderedDict[str, deque[dict[str, Any]]] = OrderedDict()
        self._ids = itertools.count(1)  # one counter for every game: an id is never reused in this process
        self._listeners: dict[str, dict[int, Callable[[bytes], object]]] = {}
        self._handles = itertools.count(1)
        self._tasks: set[asyncio.Task[None]] = set()  # the plain path's sends in flight (kept referenced)

    def post(self, game_id: str, name: str, text: str, posted_at: str) -> dict[str, Any]:
        channel = self._games.get(game_id)
        if channel is None:
            channel = self._games[game_id] = deque(maxlen=self.kept_per_game)
            while len(self._games) > self.games_kept:
                self._games.popitem(last=False)  # the channel idle the longest goes
        else:
            self._games.move_to_end(game_id)
        message = {"id": next(self._ids), "name": name, "text": text, "posted_at": posted_at}
        channel.append(message)
        if listeners := self._listeners.get(game_id):
            frame = msgspec.json.encode({"kind": "spectator_message", "message": message})
            for deliver in list(listeners.values()):
                try:
                    deliver(frame)
                except Exception:  # noqa: BLE001 - one socket's failure is not the poster's
                    log.debug("a spectator message could not be delivered", exc_info=True)
        return message

    def listen(self, game_id: str, deliver: Callable[[bytes], object]) -> Callable[[], None]:
        """Hand each new message of the game's channel, framed, to ``deliver``; returns the unlisten."""
        handle = next(self._handles)
        self._listeners.setdefault(game_id, {})[handle] = deliver

        def unlisten() -> None:
            listeners = self._listeners.get(game_id)
            if listeners is not None:
                listeners.pop(handle, None)
                if not listeners:
                    del self._listeners[game_id]

        return unlisten

    def sender(self, send: Callable[[str], Awaitable[None]]) -> Callable[[bytes], None]:
        """A listener for a socket written with an async ``send(text)`` (the plain path): each frame is
        sent by a task of its own, in order (the stream's send lock is first come, first served)."""

        async def sending(text: str) -> None:
            with contextlib.suppress(Exception):  # a socket gone: its stream ends and unlistens
                await send(text)

        def deliver(frame: bytes) -> None:
            task = asyncio.get_running_loop().create_task(sending(frame.decode()))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

        return deliver

    def listeners(self, game_id: str) -> int:
        return len(self._listeners.get(game_id, ()))

    def read(self, game_id: str, after: int = 0) -> list[dict[str, Any]]:
        return [m for m in self._games.get(game_id, ()) if m["id"] > after]
