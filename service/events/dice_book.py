"""Dice bookkeeping: each turn's secret seed, its commitment before the turn's first command, its
reveal once the turn is over, and (hidden-information games, once over) the disclosure of all seeds.

The rest of the service uses only this interface: ``open_game`` at creation, ``dice_for`` and
``material`` to roll a command, ``close_turns`` for the service events a command's new state calls
for, and ``remember`` once its new seeds are stored.
"""

from __future__ import annotations

from typing import Any

from service.domain.core import Dice, Event, commitment

from . import ids
from .envelope import DiceCommitted, DiceDisclosed, DiceMaterial, DiceRevealed
from .event_store import EventStore
from .head import GameHead

SeedRow = dict[str, Any]


class DiceBook:
    def __init__(self, store: EventStore) -> None:
        self.store = store

    @staticmethod
    def open_game(game_id: str, turn: int) -> tuple[SeedRow, DiceCommitted]:
        """The first turn's seed row and its public commitment."""
        return _fresh_seed(game_id, turn)

    async def dice_for(self, head: GameHead, salt: str) -> tuple[Dice, str]:
        """The dice a command of the head's current dice turn rolls with, and the salt actually used."""
        seed = await self.seed(head, head.dice_turn)
        if head.dice_turn in head.revealed:
            salt = ""  # after a rewind into a revealed turn the seed is public: a salt would let a seat pick faces
        return Dice(seed, head.game_id, head.effective + 1, salt), salt

    @staticmethod
    def material(head: GameHead, salt: str) -> DiceMaterial:
        """What a verifier needs besides the seed to re-derive the rolls of the next command."""
        return DiceMaterial(turn=head.dice_turn, base=head.effective + 1, salt=salt)

    async def close_turns(self, head: GameHead, state: Any) -> tuple[list[SeedRow], list[Event]]:
        """Reveal the seed of a turn that ended (or of the last turn, once the game is over) and
        commit a fresh seed for a new turn, before any command of that turn is accepted."""
        ruleset = head.ruleset
        new_turn = ruleset.clock(state).turn
        over = ruleset.is_over(state)
        seeds: list[SeedRow] = []
        events: list[Event] = []
        if (new_turn != head.dice_turn or over) and head.dice_turn not in head.revealed:
            old_seed = await self.seed(head, head.dice_turn)
            events.append(DiceRevealed(turn=head.dice_turn, seed=old_seed.hex()))
        if over and ruleset.hidden_information and not head.disclosed:
            stored = await self.store.all_seeds(head.game_id)
            events.append(DiceDisclosed(seeds={str(turn): seed for turn, seed in stored.items()}))
        if new_turn != head.dice_turn and not over and new_turn not in head.committed:
            existing = head.seeds.get(new_turn) or await self.store.seed(head.game_id, new_turn)
            if existing is None:
                row, committed = _fresh_seed(head.game_id, new_turn)
                seeds.append(row)
                events.append(committed)
        return seeds, events

    @staticmethod
    def remember(head: GameHead, seeds: list[SeedRow]) -> None:
        """Cache the secret seeds just stored (the head's markers move with ``head.advance``)."""
        for row in seeds:
            head.seeds[row["turn"]] = bytes.fromhex(row["seed"])

    async def seed(self, head: GameHead, turn: int) -> bytes:
        seed = head.seeds.get(turn)
        if seed is None:
            row = await self.store.seed(head.game_id, turn)
            if row is None:
                raise RuntimeError(f"game {head.game_id} has no dice seed for turn {turn}")
            seed = head.seeds[turn] = bytes.fromhex(row.seed)
        return seed


def _fresh_seed(game_id: str, turn: int) -> tuple[SeedRow, DiceCommitted]:
    seed = ids.dice_seed()
    committed = DiceCommitted(turn=turn, commitment=commitment(seed))
    return {"game_id": game_id, "turn": turn, "seed": seed.hex(), "commitment": committed.commitment}, committed
