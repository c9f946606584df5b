"""Dice bookkeeping: each turn's secret seed, its commitment before the turn's first command, its
reveal once the turn is over, and (hidden-information games, once over) the disclosure of all seeds.

The rest of the service uses only this interface: ``open_game`` at creation, ``dice_for`` and
``material`` to roll a command, ``stamp`` for each event's material, ``close_turns`` for the service
events a command's new state calls for, and ``remember`` once its new seeds are stored.

Rolls take slots of their turn, each with its own key under the turn's Merkle root and the salt of its
first use (dice_slots.py, docs/dice.md): a rewind gives a re-decided command the faces it had.

A turn's commitment needs the Merkle tree of its slots. The game's first turn commits ``TREE_SLOTS``
leaves; each later turn as many as ``tree_slots`` gives for the slots the turn before used (room for
twice as many, at least ``MIN_SLOTS``), and a command that leaves more than half of the turn's tree used
extends it (a second ``dice.committed`` of the same turn and seed, its root over twice the leaves, whose
left half is the first tree), so the next command's rolls are under a root before that command is sent
(docs/dice.md, "Tree sizes"). A 32-leaf tree costs about two commands' instructions (0.94 M under
callgrind), where the 1024 leaves every turn committed before cost some seventy (~29 M).

So that the command that changes the turn does not build even that, ``prepare`` draws each game's next
seed during the turn before and builds its tree a step per turn of the event loop (between other work,
while commits are in flight); ``close_turns`` takes that spare when the turn it was drawn for comes. A
spare is secret and only in memory until its commitment is stored, like any fresh seed; one drawn for a
turn that does not come next (a rewind, another replica, a game over) is dropped.

Only hidden-information games have a tree: an open-information game's reveal gives every viewer the seed,
from which each recomputes every key and roll, so a root would add nothing a seat verifies, nor let it
verify sooner; its commitment carries no root (``slots`` still says rolls take slot keys) and no spare.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import Any

import msgspec

from service.domain.core import Dice, Event, SlotDice, commitment
from service.domain.core.merkle import TREE_SLOTS, SlotTree, TreeBuilder, tree_slots

from . import ids
from .dice_slots import TurnLedger, load_ledger, seen_by
from .envelope import DiceCommitted, DiceDisclosed, DiceMaterial, DiceRevealed
from .event_store import EventStore
from .fresh import FreshEvent
from .head import GameHead
from .openings import adopt, tree_for

SeedRow = dict[str, Any]


class Spare:
    """A game's next seed, drawn ahead of its turn, and its tree on the way."""

    __slots__ = ("builder", "seed", "touched", "turn")

    def __init__(self, turn: int, seed: bytes, touched: int, slots: int = TREE_SLOTS) -> None:
        self.turn, self.seed, self.touched = turn, seed, touched
        self.builder = TreeBuilder(seed, turn, slots)


class DiceBook:
    SPARES = 64  # games holding a spare (~150 KB each, once its tree is built)

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self.spares: OrderedDict[str, Spare] = OrderedDict()  # game id -> its next turn's spare
        self._prepared = 0  # ``prepare`` calls, the clock spares age by

    def prepare(self, head: GameHead) -> None:
        """Make sure a spare for the turn after the head's is drawn and on its way (a command that left the
        dice turn open calls this). When every place is held by a game still being commanded (touched in
        the last ``4 * SPARES`` calls) a new game gets none rather than evict one about to be used."""
        if not head.ruleset.hidden_information:
            return  # its commitment needs no tree: nothing to build ahead
        self._prepared += 1
        game_id, turn = head.game_id, head.dice_turn + 1
        ledger = head.dice_ledger
        slots = tree_slots(ledger.next_slot if ledger is not None and ledger.turn == head.dice_turn else 0)
        spares = self.spares
        spare = spares.get(game_id)
        if spare is not None:
            if spare.turn == turn:
                spare.touched = self._prepared
                spares.move_to_end(game_id)
                if spare.builder.slots < slots:  # the turn used more slots since: a larger tree, same seed
                    spare.builder = TreeBuilder(spare.seed, turn, slots)
                    asyncio.get_running_loop().call_soon(self._build, game_id, spare)
                return
            del spares[game_id]  # drawn for a turn that did not come next (a rewind): never used
        if turn in head.committed or turn in head.seeds:
            return  # that turn already has its seed
        if len(spares) >= self.SPARES:
            oldest = next(iter(spares.values()))
            if self._prepared - oldest.touched < 4 * self.SPARES:
                return
            spares.popitem(last=False)
        seed = ids.spare_dice_seed()
        if seed is None:
            return
        spare = spares[game_id] = Spare(turn, seed, self._prepared, slots)
        asyncio.get_running_loop().call_soon(self._build, game_id, spare)

    def _build(self, game_id: str, spare: Spare, builder: TreeBuilder | None = None) -> None:
        builder = builder or spare.builder
        if self.spares.get(game_id) is spare and spare.builder is builder and not builder.step():
            asyncio.get_running_loop().call_soon(self._build, game_id, spare, builder)

    def _seed_for(self, game_id: str, turn: int, hidden: bool, slots: int) -> tuple[SeedRow, DiceCommitted]:
        """A fresh seed for ``turn`` with a tree of at least ``slots`` leaves, the game's spare when it was
        drawn for that turn."""
        spare = self.spares.pop(game_id, None)
        if spare is None or spare.turn != turn:
            return _fresh_seed(game_id, turn, hidden, slots)
        builder = spare.builder if spare.builder.slots >= slots else TreeBuilder(spare.seed, turn, slots)
        tree = builder.tree()  # whatever is left of it
        adopt(spare.seed, turn, tree)
        return _seed_row(game_id, turn, spare.seed, tree)

    @staticmethod
    def open_game(game_id: str, turn: int, hidden: bool = True) -> tuple[SeedRow, DiceCommitted]:
        """The first turn's seed row and its public commitment (``hidden``: the ruleset's hidden_information,
        whether the commitment has a Merkle root; a game's first turn has no turn before to size its tree
        by: all ``TREE_SLOTS``, as a campaign's opening economy needs)."""
        return _fresh_seed(game_id, turn, hidden, TREE_SLOTS)

    async def dice_for(self, head: GameHead, salt: str) -> tuple[Dice, str]:
        """The dice a command of the head's current dice turn rolls with, and the salt actually used."""
        seed = await self.seed(head, head.dice_turn)
        if head.dice_turn in head.revealed:
            salt = ""  # after a rewind into a revealed turn the seed is public: a salt would let a seat pick faces
        ledger = await self.ledger(head)
        if not ledger.slotted:  # a game from before slots: rolls derive from the seed and the base seq
            return Dice(seed, head.game_id, head.effective + 1, salt), salt
        return SlotDice(seed, head.game_id, head.dice_turn, ledger.next_slot, salt, ledger.pinned), salt

    @staticmethod
    def dice_now(head: GameHead, salt: str) -> tuple[Dice, str] | None:
        """``dice_for`` without the store, when the turn's seed and slots are in memory (None: they are not)."""
        seed, ledger = head.seeds.get(head.dice_turn), head.dice_ledger
        if seed is None or ledger is None or ledger.turn != head.dice_turn:
            return None
        if head.dice_turn in head.revealed:
            salt = ""
        if not ledger.slotted:
            return Dice(seed, head.game_id, head.effective + 1, salt), salt
        return SlotDice(seed, head.game_id, head.dice_turn, ledger.next_slot, salt, ledger.pinned), salt

    @staticmethod
    def turn_goes_on(head: GameHead, new_turn: int, over: bool, dice: Dice | None = None) -> bool:
        """A command ending in ``new_turn`` (``over``: the game), having rolled ``dice``, leaves the dice turn
        open with room in its tree: ``close_turns`` has nothing to do."""
        if new_turn != head.dice_turn or over:
            return False
        if type(dice) is not SlotDice or not dice.count:
            return True
        ledger = head.dice_ledger
        # past half of the turn's tree: extend it before the next command (an open game's turn has none)
        size = ledger.size if ledger is not None else 0
        return not size or size >= TREE_SLOTS or 2 * (dice.first_slot + dice.count) <= size

    async def ledger(self, head: GameHead) -> TurnLedger:
        ledger = head.dice_ledger
        if ledger is None or ledger.turn != head.dice_turn:
            ledger = head.dice_ledger = await load_ledger(self.store, head, head.codec)
        return ledger

    @staticmethod
    def material(head: GameHead, salt: str, dice: Dice | None = None) -> DiceMaterial:
        """What a verifier needs besides the seed (or slot keys) to re-derive the rolls of the next command."""
        if not isinstance(dice, SlotDice):
            return DiceMaterial(turn=head.dice_turn, base=head.effective + 1, salt=salt)
        salts = dice.pinned_salts() if salt == dice.salt else dice.salts()
        return DiceMaterial(
            turn=head.dice_turn,
            base=head.effective + 1,
            salt=salt,
            slot=dice.first_slot,
            salts=salts if salts and any(s != salt for s in salts) else (),
        )

    @staticmethod
    def stamp(head: GameHead, material: DiceMaterial | None, fresh: list[FreshEvent]) -> list[DiceMaterial | None]:
        """Each new event's material: None without rolls; with who saw the rolls in a hidden-information
        game (their keys are opened to them when the turn ends)."""
        if material is None:
            return [None] * len(fresh)
        slotted = material.slot is not None
        out: list[DiceMaterial | None] = []
        for f in fresh:
            if not f.event.rolls:
                out.append(None)
                continue
            audiences = seen_by(head, f) if slotted else ()
            out.append(msgspec.structs.replace(material, seen_by=audiences) if audiences else material)
        return out

    async def close_turns(
        self, head: GameHead, state: Any, pending: list[tuple[DiceMaterial | None, Event]] | None = None
    ) -> tuple[list[SeedRow], list[Event]]:
        """Reveal the seed of a turn that ended (or of the last turn, once the game is over) and
        commit a fresh seed for a new turn, before any command of that turn is accepted. ``pending``:
        the (material, event) pairs of the command being appended, for the reveal's openings."""
        ruleset = head.ruleset
        new_turn = ruleset.clock(state).turn
        over = ruleset.is_over(state)
        seeds: list[SeedRow] = []
        events: list[Event] = []
        used = 0  # the slots the ending (or going on) turn took
        if ruleset.hidden_information and head.dice_turn not in head.revealed:
            ledger = await self.ledger(head)
            used = ledger.used(pending or [])
            if new_turn == head.dice_turn and not over and 0 < ledger.size < TREE_SLOTS and used * 2 > ledger.size:
                # the turn's tree, extended: twice the leaves, the first tree its left half
                seed = await self.seed(head, head.dice_turn)
                tree = tree_for(seed, head.dice_turn, tree_slots(used))
                events.append(
                    DiceCommitted(turn=head.dice_turn, commitment=commitment(seed), root=tree.root, slots=tree.slots)
                )
        if (new_turn != head.dice_turn or over) and head.dice_turn not in head.revealed:
            old_seed = await self.seed(head, head.dice_turn)
            openings, slots = {}, 0
            if ruleset.hidden_information:
                ledger = await self.ledger(head)
                openings, slots = ledger.openings(pending or []), ledger.size
            events.append(DiceRevealed(turn=head.dice_turn, seed=old_seed.hex(), openings=openings, slots=slots))
        if over and ruleset.hidden_information and not head.disclosed:
            stored = await self.store.all_seeds(head.game_id)
            # with the seeds of commands decided but still being committed (the head has them all)
            stored.update((turn, seed.hex()) for turn, seed in head.seeds.items())
            events.append(DiceDisclosed(seeds={str(turn): stored[turn] for turn in sorted(stored)}))
        # a turn's seed is only ever stored with its commitment (one batch), and the head knows every
        # commitment in the log (superseded ones included): no store read to tell whether one exists
        if new_turn != head.dice_turn and not over and new_turn not in head.committed and new_turn not in head.seeds:
            row, committed = self._seed_for(head.game_id, new_turn, ruleset.hidden_information, tree_slots(used))
            seeds.append(row)
            events.append(committed)
        if over:
            self.spares.pop(head.game_id, None)
        return seeds, events

    @staticmethod
    def remember(
        head: GameHead, seeds: list[SeedRow], events: list[Event] | None = None, fresh: list[FreshEvent] | None = None
    ) -> None:
        """Cache the secret seeds just stored and account for the command's ``fresh`` events that rolled
        (bound: with their material) in the turn's slots; a turn committed by ``events`` starts with no
        slot used. (The head's markers and dice turn move with ``head.advance_command``.)"""
        ledger = head.dice_ledger
        if ledger is not None:
            for f in fresh or ():
                if f.material is not None:
                    ledger.take(f.material, f.event)
        for row in seeds:
            head.seeds[row["turn"]] = bytes.fromhex(row["seed"])
        for event in events or ():
            if type(event) is DiceCommitted:  # not isinstance: a Struct class's check costs ~800 instructions
                ledger = head.dice_ledger
                if ledger is None or ledger.turn != event.turn:  # a new turn: no slot used yet
                    ledger = head.dice_ledger = TurnLedger(event.turn, slotted=True)
                if event.root:  # the turn's root, or its extension
                    ledger.committed(event.slots)

    async def seed(self, head: GameHead, turn: int) -> bytes:
        seed = head.seeds.get(turn)
        if seed is None:
            row = await self.store.seed(head.game_id, turn)
            if row is None:
                raise RuntimeError(f"game {head.game_id} has no dice seed for turn {turn}")
            seed = head.seeds[turn] = bytes.fromhex(row.seed)
        return seed


def _fresh_seed(game_id: str, turn: int, hidden: bool, slots: int) -> tuple[SeedRow, DiceCommitted]:
    seed = ids.dice_seed()
    return _seed_row(game_id, turn, seed, tree_for(seed, turn, slots) if hidden else None)


def _seed_row(game_id: str, turn: int, seed: bytes, tree: SlotTree | None) -> tuple[SeedRow, DiceCommitted]:
    """``tree``: the turn's slot tree (None: an open-information game, whose commitment has no root)."""
    root = tree.root if tree is not None else ""
    committed = DiceCommitted(
        turn=turn, commitment=commitment(seed), root=root, slots=tree.slots if tree is not None else TREE_SLOTS
    )
    return {"game_id": game_id, "turn": turn, "seed": seed.hex(), "commitment": committed.commitment}, committed
