"""Seat and umpire tokens: issued once at creation, stored only as hashes, resolved to a viewer."""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from service.domain.core import UMPIRE, Viewer

from . import ids
from .errors import Unauthorized
from .event_store import EventStore

TOKEN_CACHE = 100_000
PERSONAL_KEY_PREFIX = "pk_"  # players.KEY_PREFIX: a player's personal key, never a seat token's start
DIGESTS_KEPT = 10_000  # tokens whose digest is kept (any string a client sent: bounded, cleared when full)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class TokenBook:
    def __init__(self, store: EventStore, capacity: int = TOKEN_CACHE) -> None:
        self.store = store
        self.capacity = capacity
        self._known: OrderedDict[str, tuple[str, Viewer]] = OrderedDict()  # least recently used first
        # the digest of each token seen lately: an HTTP command authenticates on every request, a sha256
        # each time otherwise (the digest is all _known is keyed on)
        self._digests: dict[str, str] = {}
        # a game linked from another (a campaign battle): the other game's tokens open its seats
        self.linked: Callable[[str], Awaitable[Any]] | None = None
        # a player's personal key (players.py): (its hash, game id) -> the seat its player claimed there, or
        # None. Never cached: a revoked key stops at once
        self.personal: Callable[[str, str], Awaitable[Viewer | None]] | None = None

    @staticmethod
    def issue(game_id: str, seats: list[str]) -> tuple[dict[str, str], str, list[dict[str, str | None]]]:
        """Fresh tokens per seat and for the umpire, and the seat rows that store their hashes."""
        seat_tokens = {s: ids.token() for s in seats}
        umpire_token = ids.token()
        rows: list[dict[str, str | None]] = [
            {"token_hash": hash_token(t), "game_id": game_id, "role": "seat", "seat": s} for s, t in seat_tokens.items()
        ]
        rows.append({"token_hash": hash_token(umpire_token), "game_id": game_id, "role": "umpire", "seat": None})
        return seat_tokens, umpire_token, rows

    async def viewer(self, game_id: str, token: str | None) -> Viewer:
        """The viewer a token stands for in this game (a spectator without one); Unauthorized otherwise."""
        if not token:
            return Viewer("spectator")
        digest = self._digests.get(token)
        if digest is None:
            if len(self._digests) >= DIGESTS_KEPT:
                self._digests.clear()
            digest = self._digests[token] = hash_token(token)
        known = self._known.get(digest)
        if known is None:
            row = await self.store.seat_for_token(digest)
            if row is None:
                if self.personal is not None and token.startswith(PERSONAL_KEY_PREFIX):
                    viewer = await self.personal(digest, game_id)
                    if viewer is not None:
                        return viewer
                raise Unauthorized("the token is not valid for this game")
            known = (row.game_id, UMPIRE if row.role == "umpire" else Viewer("seat", row.seat))
            self._known[digest] = known  # tokens never change; the cache only saves a read
            if len(self._known) > self.capacity:
                self._known.popitem(last=False)
        else:
            self._known.move_to_end(digest)
        if known[0] != game_id:
            return await self._through_link(game_id, known)
        return known[1]

    async def _through_link(self, game_id: str, known: tuple[str, Viewer]) -> Viewer:
        """A campaign token in its linked battle: the umpire umpires it, a player holds its own side."""
        link = await self.linked(game_id) if self.linked is not None else None
        if link is not None and link.campaign == known[0]:
            viewer = known[1]
            if viewer.is_umpire:
                return viewer
            if viewer.kind == "seat" and viewer.seat in link.seats:
                return viewer
        raise Unauthorized("the token is not valid for this game")
