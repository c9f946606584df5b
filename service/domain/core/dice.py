"""Verifiable dice.

Current games (``SlotDice``): roll ``i`` of a command takes slot ``first + i`` of its turn; its face is
the unbiased map of HMAC-SHA256(key of that slot, game id | turn | slot | salt) where the slot's key sits
under the turn's Merkle commitment (merkle.py) and the salt is the one of the slot's first use, so a
position of the log keeps its faces across rewinds. Older games (``Dice``): roll ``i`` of a command is
derived from HMAC-SHA256(key=turn seed, msg=game id | base seq | i | salt), ``base seq`` being the seq
of the first event the command appended. Both are mapped to the die by rejection sampling so every face
is equally likely, and what a verifier needs is recorded in the envelope (see clients/verify_dice.py).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

import msgspec

from .merkle import hmac_sha256, slot_key, slot_mac


class Modifier(msgspec.Struct, frozen=True, gc=False):
    rule: str
    why: str
    value: int


class Roll(msgspec.Struct, frozen=True, omit_defaults=True, gc=False):
    """One die, explained: what it was for, what it needed, why, and what came of it."""

    i: int
    die: str
    value: int
    purpose: str
    rule: str
    target: int | None = None
    modifiers: tuple[Modifier, ...] = ()
    outcome: str | None = None


def commitment(seed: bytes) -> str:
    """The public hash of a turn seed, appended before any command of the turn."""
    return hashlib.sha256(seed).hexdigest()


def derive_face(seed: bytes, game_id: str, base_seq: int, i: int, sides: int, salt: str = "") -> int:
    """The face (1..sides) of roll ``i``; pure, shared with the verifier's algorithm."""
    if sides < 1:
        raise ValueError("a die needs at least one side")
    limit = (1 << 32) - ((1 << 32) % sides)  # largest multiple of sides below 2**32
    counter = 0
    while True:
        msg = f"{game_id}|{base_seq}|{i}|{salt}|{counter}".encode()
        digest = hmac_sha256(seed, msg)
        for offset in range(0, 32, 4):
            word = int.from_bytes(digest[offset : offset + 4], "big")
            if word < limit:
                return word % sides + 1
        counter += 1  # all eight words rejected: astronomically rare, but stay unbiased


class Dice:
    """The only source of chance a decider gets. Deterministic for (seed, game, base seq, salt)."""

    def __init__(self, seed: bytes, game_id: str, base_seq: int, salt: str = "") -> None:
        self._seed = seed
        self._game_id = game_id
        self._base_seq = base_seq
        self._salt = salt
        self._next = 0

    @property
    def count(self) -> int:
        return self._next

    @property
    def salt(self) -> str:
        return self._salt

    def _face(self, i: int, sides: int) -> int:
        return derive_face(self._seed, self._game_id, self._base_seq, i, sides, self._salt)

    def roll(
        self,
        sides: int,
        purpose: str,
        rule: str,
        target: int | None = None,
        modifiers: tuple[Modifier, ...] = (),
        outcome: str | None = None,
    ) -> Roll:
        i = self._next
        self._next = i + 1
        return Roll(i, f"d{sides}", self._face(i, sides), purpose, rule, target, modifiers, outcome)

    def roll_under(
        self,
        sides: int,
        purpose: str,
        rule: str,
        base: int,
        modifiers: tuple[Modifier, ...] = (),
        success: str = "success",
        failure: str = "failure",
    ) -> Roll:
        """Roll-under test: succeeds on value <= base + modifiers.

        A target <= 0 always fails and a target >= sides always succeeds (GSC2's ruling; it is also
        what "roll equal to or less than N" means on a die with no face 0 or above ``sides``).
        """
        target = base + sum(m.value for m in modifiers) if modifiers else base + 0  # + 0: the sum's type
        i = self._next  # ``roll`` inlined: the Roll is built once, with its outcome
        self._next = i + 1
        value = self._face(i, sides)
        ok = target >= sides or (target > 0 and value <= target)
        return Roll(i, f"d{sides}", value, purpose, rule, target, modifiers, success if ok else failure)

    def roll_high(
        self,
        sides: int,
        purpose: str,
        rule: str,
        need: int,
        modifiers: tuple[Modifier, ...] = (),
        success: str = "success",
        failure: str = "failure",
    ) -> Roll:
        """Roll-high test: succeeds on value + modifiers >= need. ``target`` records ``need``."""
        i = self._next  # ``roll`` inlined: the Roll is built once, with its outcome
        self._next = i + 1
        value = self._face(i, sides)
        total = value + sum(m.value for m in modifiers)
        return Roll(i, f"d{sides}", value, purpose, rule, need, modifiers, success if total >= need else failure)


class SlotDice(Dice):
    """Dice whose roll ``i`` uses slot ``first_slot + i`` of the turn: its own key and its first salt.

    ``pinned`` holds the salt of every slot of this turn already used somewhere in the log (superseded
    uses included): a re-decided slot rolls exactly what it rolled the first time, whatever salt comes now.
    """

    def __init__(
        self,
        seed: bytes,
        game_id: str,
        turn: int,
        first_slot: int,
        salt: str = "",
        pinned: Mapping[int, str] | None = None,
    ) -> None:
        # Dice.__init__'s fields set here, one call fewer (one SlotDice a command)
        self._seed, self._game_id, self._base_seq, self._salt, self._next = seed, game_id, first_slot, salt, 0
        self.turn = turn
        self.first_slot = first_slot
        self._pinned = pinned or {}

    def salt_of(self, i: int) -> str:
        return self._pinned.get(self.first_slot + i, self._salt)

    def salts(self) -> tuple[str, ...]:
        """The salt each roll used, in roll order (the verifier needs them where some were pinned)."""
        if not self._pinned:
            return (self._salt,) * self.count
        return tuple(self.salt_of(i) for i in range(self.count))

    def pinned_salts(self) -> tuple[str, ...]:
        """``salts()`` when some roll kept a pinned salt other than this command's, else ()."""
        pinned, first = self._pinned, self.first_slot
        if pinned:
            for slot in range(first, first + self._next):  # ``count``, without the property's call
                if slot in pinned:
                    salts = self.salts()
                    return salts if any(s != self._salt for s in salts) else ()
        return ()

    def _face(self, i: int, sides: int) -> int:
        slot = self.first_slot + i
        pinned = self._pinned
        return seed_slot_face(
            self._seed, self._game_id, self.turn, slot, sides, pinned.get(slot, self._salt) if pinned else self._salt
        )


def slot_face(key: bytes, game_id: str, turn: int, slot: int, sides: int, salt: str = "") -> int:
    """The face of the roll in ``slot`` from that slot's key alone (what a seat given the key recomputes)."""
    return derive_face(key, game_id, turn, slot, sides, salt)


def seed_slot_face(seed: bytes, game_id: str, turn: int, slot: int, sides: int, salt: str = "") -> int:
    """``slot_face(slot_key(seed, turn, slot), ...)`` with the key's HMAC and the face's first digest in one
    call (``slot_mac``); the rare rejection of the first word goes the general way."""
    if sides >= 1:
        word = int.from_bytes(slot_mac(seed, turn, slot, f"{game_id}|{turn}|{slot}|{salt}|0".encode())[:4], "big")
        if word < (1 << 32) - ((1 << 32) % sides):
            return word % sides + 1
    return slot_face(slot_key(seed, turn, slot), game_id, turn, slot, sides, salt)


def seeded_face(
    seed: bytes, game_id: str, turn: int, base: int, slot: int | None, i: int, sides: int, salt: str = ""
) -> int:
    """Roll ``i`` of a command recomputed from its turn's seed: by slot (current games) or by base seq."""
    if slot is None:
        return derive_face(seed, game_id, base, i, sides, salt)
    return seed_slot_face(seed, game_id, turn, slot + i, sides, salt)


def succeeded(roll: Roll, success: str = "success") -> bool:
    return roll.outcome == success
