"""Per-roll keys under a Merkle commitment: a seat can check the rolls it saw without learning the rest.

Each turn has a secret seed. Slot ``r`` of a turn (the r-th roll of the turn along the effective log)
gets its own key, HMAC-SHA256(seed, "salvo-slot|turn|r") (the seed is the game's own: the key needs
no game id, so a reveal can open keys from the seed and the turn alone). The turn's commitment, public before any
command of the turn, is the root of a Merkle tree whose leaves are sha256(0x00 || key_r) for the first
``TREE_SLOTS`` slots (inner nodes sha256(0x01 || left || right): a leaf can never pass for a node).
When the turn ends a viewer is given the keys of the slots whose rolls it saw and one compact proof (the
inner nodes it cannot compute from those keys, as "level:index": hash): it recomputes those rolls and
checks them against the commitment, while the other keys stay secret (a node hash does not give keys).
See docs/dice.md for the threat model.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass

TREE_SLOTS = 1024  # most slots under one turn's root; later slots verify at the end-of-game disclosure
MIN_SLOTS = 32  # fewest: a turn's tree has room for twice the rolls of the turn before, and at least these


def tree_slots(used: int) -> int:
    """The leaves of a tree with room for ``used`` slots and as many again (a power of two, between
    ``MIN_SLOTS`` and ``TREE_SLOTS``): the size of a turn's tree after a turn that used ``used``, and of a
    turn's extension once its rolls pass half of its tree (docs/dice.md, "Tree sizes")."""
    size = MIN_SLOTS
    while size < 2 * used and size < TREE_SLOTS:
        size *= 2
    return size


_sha256 = hashlib.sha256
_IPAD = bytes(x ^ 0x36 for x in range(256))
_OPAD = bytes(x ^ 0x5C for x in range(256))
_PADS: OrderedDict[bytes, tuple[hashlib._Hash, hashlib._Hash]] = OrderedDict()
_KEEP_PADS = 256
# slot keys a tree build computed, per seed: (turn, the keys of slots 0.. joined, 32 bytes each), so that
# a roll of a slot under its turn's tree does not recompute the key (the last _KEEP_KEYS seeds, ~32 KB each)
_KEYS: OrderedDict[bytes, tuple[int, bytes]] = OrderedDict()
_KEEP_KEYS = 256


def _block(key: bytes) -> bytes:
    return (_sha256(key).digest() if len(key) > 64 else key).ljust(64, b"\0")


def hmac_sha256(key: bytes, msg: bytes) -> bytes:
    """HMAC-SHA256(key, msg) (RFC 2104), byte for byte ``hmac.new(key, msg, sha256).digest()`` at about
    two thirds of its cost (no HMAC object, no OpenSSL MAC fetch)."""
    block = _block(key)
    inner = _sha256(block.translate(_IPAD))
    inner.update(msg)
    return _sha256(block.translate(_OPAD) + inner.digest()).digest()


def _seed_pads(seed: bytes) -> tuple[hashlib._Hash, hashlib._Hash]:
    """HMAC's inner and outer hashes with the padded seed already absorbed: copying them costs far less
    than an HMAC per message, and a turn's seed keys 1024 slots of its tree and every roll of the turn
    (the last few seeds' pads are kept)."""
    pads = _PADS.get(seed)
    if pads is None:
        block = _block(seed)
        pads = _PADS[seed] = (_sha256(block.translate(_IPAD)), _sha256(block.translate(_OPAD)))
        if len(_PADS) > _KEEP_PADS:
            _PADS.popitem(last=False)
    return pads


def slot_key(seed: bytes, turn: int, slot: int) -> bytes:
    inner, outer = _seed_pads(seed)
    i = inner.copy()
    i.update(f"salvo-slot|{turn}|{slot}".encode())
    o = outer.copy()
    o.update(i.digest())
    return o.digest()


_ZERO32 = bytes(32)


def slot_mac(seed: bytes, turn: int, slot: int, msg: bytes) -> bytes:
    """``hmac_sha256(slot_key(seed, turn, slot), msg)`` in one call (a roll's digest): the key is the one
    the turn's tree build kept, else derived here; a slot key is a 32-byte digest, so its HMAC block is
    the key and 32 zeros, and each pad's hash takes one buffer."""
    known = _KEYS.get(seed)
    if known is not None and known[0] == turn and 32 * slot < len(known[1]):
        block = known[1][32 * slot : 32 * slot + 32] + _ZERO32
    else:
        inner, outer = _seed_pads(seed)
        i = inner.copy()
        i.update(f"salvo-slot|{turn}|{slot}".encode())
        o = outer.copy()
        o.update(i.digest())
        block = o.digest() + _ZERO32
    return _sha256(block.translate(_OPAD) + _sha256(block.translate(_IPAD) + msg).digest()).digest()


_SLOT_SUFFIXES = [str(r).encode() for r in range(TREE_SLOTS)]  # the "<r>" ending every slot's message


def slot_leaves(seed: bytes, turn: int, slots: int, start: int = 0) -> tuple[bytes, ...]:
    """``leaf_hash(slot_key(seed, turn, r))`` for the slots ``start``..``slots - 1``, the HMAC inlined
    (1024 per turn), its inner hash carried past the message's common prefix "salvo-slot|<turn>|" once."""
    inner, outer = _seed_pads(seed)
    prefixed = inner.copy()
    prefixed.update(f"salvo-slot|{turn}|".encode())
    inner_copy, outer_copy = prefixed.copy, outer.copy
    suffixes = _SLOT_SUFFIXES if slots <= TREE_SLOTS else [str(r).encode() for r in range(slots)]
    out = []
    keys = []
    for r in range(start, slots):
        i = inner_copy()
        i.update(suffixes[r])
        o = outer_copy()
        o.update(i.digest())
        key = o.digest()
        keys.append(key)
        out.append(_sha256(b"\x00" + key).digest())
    _keep_keys(seed, turn, start, keys)
    return tuple(out)


def _keep_keys(seed: bytes, turn: int, start: int, keys: list[bytes]) -> None:
    """Remember the keys of slots ``start``.. when they extend what is kept of (seed, turn)."""
    known = _KEYS.get(seed)
    kept = known[1] if known is not None and known[0] == turn else b""
    if len(kept) == 32 * start:
        _KEYS[seed] = (turn, kept + b"".join(keys))
        if len(_KEYS) > _KEEP_KEYS:
            _KEYS.popitem(last=False)


def leaf_hash(key: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + key).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


@dataclass(frozen=True)
class SlotTree:
    """The Merkle tree of one turn's slot keys. ``levels[0]`` are the leaves, ``levels[-1]`` the root."""

    levels: tuple[tuple[bytes, ...], ...]

    @classmethod
    def build(cls, seed: bytes, turn: int, slots: int = TREE_SLOTS) -> SlotTree:
        return TreeBuilder(seed, turn, slots).tree()

    @property
    def slots(self) -> int:
        return len(self.levels[0])

    @property
    def root(self) -> str:
        return self.levels[-1][0].hex()

    def path(self, slot: int) -> list[str]:
        """Sibling hashes from the leaf up to (not including) the root."""
        out = []
        for level in self.levels[:-1]:
            out.append(level[slot ^ 1].hex())
            slot //= 2
        return out

    def proof(self, slots: list[int]) -> dict[str, str]:
        """The nodes needed, besides the leaves of ``slots``, to recompute the root ("level:index")."""
        known = set(slots)
        out: dict[str, str] = {}
        for depth, level in enumerate(self.levels[:-1]):
            for index in sorted(known):
                if index ^ 1 not in known:
                    out[f"{depth}:{index ^ 1}"] = level[index ^ 1].hex()
            known = {index // 2 for index in known}
        return out


class TreeBuilder:
    """``SlotTree.build`` in steps, for a tree built ahead of its turn a little at a time (between other
    work): each ``step`` hashes a bounded share of the leaves or inner nodes; ``tree`` does the rest at
    once. The steps hash exactly what ``build`` does, in the same order: the same tree."""

    LEAVES_PER_STEP = 128  # about a tenth of a millisecond
    NODES_PER_STEP = 512

    def __init__(self, seed: bytes, turn: int, slots: int = TREE_SLOTS) -> None:
        if slots < 1 or slots & (slots - 1):
            raise ValueError("a slot tree has a power-of-two number of leaves")
        self.seed, self.turn, self.slots = seed, turn, slots
        self._leaves: list[bytes] = []
        self._levels: list[tuple[bytes, ...]] = []
        self._level: list[bytes] = []  # the level being hashed, above self._levels[-1]
        self._done: SlotTree | None = None

    @property
    def done(self) -> bool:
        return self._done is not None

    def step(self) -> bool:
        """Hash one share; True once the tree is whole."""
        if self._done is not None:
            return True
        if len(self._leaves) < self.slots:
            stop = min(self.slots, len(self._leaves) + self.LEAVES_PER_STEP)
            self._leaves += slot_leaves(self.seed, self.turn, stop, len(self._leaves))
            if len(self._leaves) == self.slots:
                self._levels.append(tuple(self._leaves))
        else:
            budget = self.NODES_PER_STEP  # across levels: the top ones are a few nodes each
            while budget > 0 and len(self._levels[-1]) > 1:
                below = self._levels[-1]
                start = 2 * len(self._level)
                stop = min(len(below), start + 2 * budget)
                self._level += [
                    _sha256(b"\x01" + left + right).digest()
                    for left, right in zip(below[start:stop:2], below[start + 1 : stop : 2], strict=True)
                ]
                budget -= (stop - start) // 2
                if 2 * len(self._level) == len(below):
                    self._levels.append(tuple(self._level))
                    self._level = []
        if len(self._levels[-1] if self._levels else ()) == 1:
            self._done = SlotTree(tuple(self._levels))
        return self._done is not None

    def tree(self) -> SlotTree:
        """The whole tree (its remaining steps done now)."""
        while not self.step():
            pass
        assert self._done is not None
        return self._done


def verify_path(key: bytes, slot: int, path: list[str], root: str) -> bool:
    """Does ``key`` sit at ``slot`` under ``root``?"""
    current = leaf_hash(key)
    for sibling_hex in path:
        sibling = bytes.fromhex(sibling_hex)
        current = node_hash(sibling, current) if slot & 1 else node_hash(current, sibling)
        slot //= 2
    return slot == 0 and current.hex() == root


def verify_proof(keys: dict[int, bytes], proof: dict[str, str], root: str, slots: int = TREE_SLOTS) -> bool:
    """Do all ``keys`` (slot -> key) sit at their slots under ``root``, given ``proof``? (The verifier in
    clients/ re-implements this.)"""
    if not keys or any(not 0 <= r < slots for r in keys):
        return False
    level = {r: leaf_hash(k) for r, k in keys.items()}
    depth = 0
    while slots > 1:
        parents: dict[int, bytes] = {}
        for index in level:
            sibling = level.get(index ^ 1)
            if sibling is None:
                given = proof.get(f"{depth}:{index ^ 1}")
                if given is None:
                    return False
                sibling = bytes.fromhex(given)
            left, right = (sibling, level[index]) if index & 1 else (level[index], sibling)
            parents[index // 2] = node_hash(left, right)
        level, slots, depth = parents, slots // 2, depth + 1
    return level.get(0, b"").hex() == root
