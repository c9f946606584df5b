"""What a non-umpire sees of a turn's reveal in a hidden-information game: no seed, but the key and
Merkle proof of the slots whose rolls it saw (docs/dice.md). Trees are rebuilt from the seed on demand
and a few are kept, since every reader of a reveal needs its turn's tree."""

from __future__ import annotations

from collections import OrderedDict

import msgspec

from service.domain.core import Viewer
from service.domain.core.merkle import TREE_SLOTS, SlotTree, slot_key

from .envelope import DiceRevealed, SlotOpening

_TREES: OrderedDict[tuple[str, int], SlotTree] = OrderedDict()
# a tree is built when its turn is committed and read again at the turn's reveal (once per audience):
# every game changing turns at once needs its tree kept from one to the other, or each reveal rebuilds
# it (at 64, 50 games running turn cycles rebuilt ~1.8 trees per turn). ~150 KB a tree: 256 ≈ 38 MB
# at most, held only while that many games are mid-turn
_KEEP = 256


def tree_for(seed: bytes, turn: int, slots: int = TREE_SLOTS) -> SlotTree:
    key = (seed.hex(), turn)
    tree = _TREES.get(key)
    if tree is None or tree.slots != slots:
        tree = _TREES[key] = SlotTree.build(seed, turn, slots)
        if len(_TREES) > _KEEP:
            _TREES.popitem(last=False)
    else:
        _TREES.move_to_end(key)
    return tree


def adopt(seed: bytes, turn: int, tree: SlotTree) -> None:
    """Keep a tree built elsewhere (ahead of its turn) as ``tree_for(seed, turn)``'s."""
    _TREES[(seed.hex(), turn)] = tree
    _TREES.move_to_end((seed.hex(), turn))
    if len(_TREES) > _KEEP:
        _TREES.popitem(last=False)


def opened_for(event: DiceRevealed, viewer: Viewer) -> DiceRevealed:
    """The reveal as ``viewer`` sees it: the seed and the other audiences' openings withheld."""
    keys: list[SlotOpening] = []
    proof: dict[str, str] = {}
    if event.seed:
        seed = bytes.fromhex(event.seed)
        tree = tree_for(seed, event.turn, event.slots or TREE_SLOTS)
        slots = [r for r in event.openings.get(viewer.label, []) if r < tree.slots]
        keys = [SlotOpening(r, slot_key(seed, event.turn, r).hex()) for r in slots]
        proof = tree.proof(slots) if slots else {}
    return msgspec.structs.replace(event, seed="", openings={}, keys=keys, proof=proof)
