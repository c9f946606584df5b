"""The spectators' channel: talk among those watching a game, kept out of the game's log.

Never in the log, so never in an event, a replay, an export or a battle file, and never read by a seat (a
spectator's advice to a player would be kibitzing). In memory per process, the latest
``KEPT_PER_GAME`` messages of the ``GAMES_KEPT`` most recently active games: a restart or another replica
starts an empty channel (docs/table-talk.md).
"""

from __future__ import annotations

import itertools
from collections import OrderedDict, deque
from typing import Any

KEPT_PER_GAME = 200
GAMES_KEPT = 10_000
MAX_NAME_CHARS = 40


class SpectatorChat:
    def __init__(self, kept_per_game: int = KEPT_PER_GAME, games_kept: int = GAMES_KEPT) -> None:
        self.kept_per_game = kept_per_game
        self.games_kept = games_kept
        self._games: OrderedDict[str, deque[dict[str, Any]]] = OrderedDict()
        self._ids = itertools.count(1)  # one counter for every game: an id is never reused in this process

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
        return message

    def read(self, game_id: str, after: int = 0) -> list[dict[str, Any]]:
        return [m for m in self._games.get(game_id, ()) if m["id"] > after]
