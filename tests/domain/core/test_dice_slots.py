"""Per-slot dice keys under a Merkle commitment (service/domain/core/merkle.py) and SlotDice."""

from __future__ import annotations

import pytest

from service.domain.core import SlotDice, slot_face
from service.domain.core.merkle import SlotTree, leaf_hash, slot_key, verify_path

SEED = bytes(range(32))


def test_every_slot_key_verifies_at_its_own_slot_only():
    tree = SlotTree.build(SEED, 3, slots=16)
    for slot in range(16):
        key = slot_key(SEED, 3, slot)
        assert verify_path(key, slot, tree.path(slot), tree.root)
        assert not verify_path(key, slot ^ 1, tree.path(slot), tree.root)  # not at the neighbour's place
        assert not verify_path(slot_key(SEED, 4, slot), slot, tree.path(slot), tree.root)  # other turn
    assert not verify_path(b"\x00" * 32, 0, tree.path(0), tree.root)


def test_a_path_holds_hashes_never_keys():
    tree = SlotTree.build(SEED, 1, slots=8)
    keys = {slot_key(SEED, 1, r).hex() for r in range(8)}
    assert not keys & set(tree.path(5))
    assert tree.path(5)[0] == leaf_hash(slot_key(SEED, 1, 4)).hex()  # the sibling's leaf hash


def test_the_tree_must_be_a_power_of_two():
    with pytest.raises(ValueError):
        SlotTree.build(SEED, 1, slots=12)


def test_slot_dice_roll_from_the_slot_key_and_a_seat_recomputes_them():
    dice = SlotDice(SEED, "g_1", 2, first_slot=5, salt="mine")
    faces = [dice.roll(6, "p", "R").value for _ in range(4)]
    assert faces == [slot_face(slot_key(SEED, 2, 5 + i), "g_1", 2, 5 + i, 6, "mine") for i in range(4)]
    assert dice.salts() == ("mine",) * 4


def test_pinned_salts_keep_the_faces_of_the_first_use_whatever_salt_comes_now():
    first = SlotDice(SEED, "g_1", 2, first_slot=0, salt="s1")
    faces = [first.roll(10, "p", "R").value for _ in range(3)]
    pinned = {i: "s1" for i in range(3)}
    for salt in ("s2", "s3", "", "umpire"):
        again = SlotDice(SEED, "g_1", 2, first_slot=0, salt=salt, pinned=pinned)
        assert [again.roll(10, "p", "R").value for _ in range(4)][:3] == faces
        assert again.salts() == ("s1", "s1", "s1", salt)  # a fresh slot takes the new salt
    distinct = {SlotDice(SEED, "g_1", 2, 0, salt=f"s{k}").roll(10, "p", "R").value for k in range(40)}
    assert len(distinct) > 1  # unpinned, the salt does change the faces


def test_a_multiproof_ties_the_opened_keys_to_the_root_and_nothing_else():
    from service.domain.core.merkle import verify_proof

    tree = SlotTree.build(SEED, 2, slots=64)
    opened = [0, 1, 2, 9, 40]
    keys = {r: slot_key(SEED, 2, r) for r in opened}
    proof = tree.proof(opened)
    assert verify_proof(keys, proof, tree.root, 64)
    assert len(proof) < sum(len(tree.path(r)) for r in opened)  # shared nodes are given once
    hidden = {slot_key(SEED, 2, r).hex() for r in range(64) if r not in opened}
    assert not hidden & set(proof.values())
    forged = dict(keys)
    forged[9] = slot_key(SEED, 3, 9)
    assert not verify_proof(forged, proof, tree.root, 64)
    assert not verify_proof({**keys, 10: slot_key(SEED, 2, 10)}, proof, tree.root, 64)  # no proof for it
    assert not verify_proof(keys, proof, tree.root, 32)


@pytest.mark.parametrize("length", [0, 1, 31, 32, 63, 64, 65, 200])
def test_the_inlined_hmac_is_hmac_sha256(length):
    import hashlib
    import hmac

    from service.domain.core.merkle import hmac_sha256

    key, msg = bytes(range(length)), b"g_1|3|7|salt|0" * (length % 5 + 1)
    assert hmac_sha256(key, msg) == hmac.new(key, msg, hashlib.sha256).digest()


def test_the_tree_is_the_one_the_independent_verifier_computes():
    import hashlib
    import hmac

    from clients.verify_dice import merkle_root

    tree = SlotTree.build(SEED, 7)  # every leaf of a real turn's tree
    assert tree.root == merkle_root(SEED, 7, 1024)
    for slot in (0, 1, 513, 1023):
        assert slot_key(SEED, 7, slot) == hmac.new(SEED, f"salvo-slot|7|{slot}".encode(), hashlib.sha256).digest()
        assert tree.levels[0][slot] == leaf_hash(slot_key(SEED, 7, slot))


@pytest.mark.parametrize("slots", [1, 16, 2048])
def test_trees_of_other_sizes_are_the_verifiers_too(slots):
    from clients.verify_dice import merkle_root

    assert SlotTree.build(SEED, 3, slots).root == merkle_root(SEED, 3, slots)


@pytest.mark.parametrize("slots", [1, 2, 8, 256, 1024])
def test_a_tree_built_in_steps_is_the_tree_built_at_once(slots):
    """TreeBuilder (a turn's tree built ahead, a step at a time) hashes exactly the tree ``build`` does, and
    that is the Merkle tree of the slot keys (leaves sha256(0x00 || key), nodes sha256(0x01 || l || r))."""
    from service.domain.core.merkle import TreeBuilder, node_hash

    builder = TreeBuilder(SEED, 5, slots)
    steps = 0
    while not builder.step():
        steps += 1
        assert not builder.done
    assert builder.done and builder.step()  # a whole tree takes no more steps
    assert slots < 1024 or steps > 2  # a full-size tree is split into several steps
    stepped, at_once = builder.tree(), SlotTree.build(SEED, 5, slots)
    assert stepped == at_once
    level = [leaf_hash(slot_key(SEED, 5, r)) for r in range(slots)]
    assert list(stepped.levels[0]) == level
    while len(level) > 1:
        level = [node_hash(level[i], level[i + 1]) for i in range(0, len(level), 2)]
    assert stepped.root == level[0].hex()
    half = TreeBuilder(SEED, 5, slots)
    half.step()
    assert half.tree() == at_once  # finished at once after some steps


def test_pinned_salts_name_only_the_salts_a_pinned_slot_changed():
    """What a command's dice material records beside its salt: every roll's salt, only when one of its
    slots kept another salt from its first use (a rewind), else nothing."""
    fresh = SlotDice(SEED, "g_1", 2, first_slot=5, salt="now", pinned={1: "old", 4: "now"})
    [fresh.roll(6, "p", "R") for _ in range(3)]  # slots 5..7: none pinned
    assert fresh.salts() == ("now",) * 3 and fresh.pinned_salts() == ()
    same = SlotDice(SEED, "g_1", 2, first_slot=4, salt="now", pinned={4: "now"})
    same.roll(6, "p", "R")
    assert same.pinned_salts() == ()  # pinned, but to the same salt
    again = SlotDice(SEED, "g_1", 2, first_slot=0, salt="now", pinned={1: "old"})
    [again.roll(6, "p", "R") for _ in range(3)]
    assert again.pinned_salts() == again.salts() == ("now", "old", "now")
    assert SlotDice(SEED, "g_1", 2, first_slot=0, salt="x").pinned_salts() == ()


def test_a_slot_roll_in_one_call_rolls_what_the_slot_key_and_hmac_give():
    """``seed_slot_face`` (the slot key's HMAC and the face's first digest in one call) against the
    general path: ``slot_face`` of ``slot_key``, and ``slot_mac`` against ``hmac.new``; sides that reject
    about half the words take the fallback."""
    import hashlib
    import hmac
    import random

    from service.domain.core.dice import seed_slot_face
    from service.domain.core.merkle import slot_mac

    rng = random.Random(7)
    for _ in range(400):
        seed, turn, slot = rng.randbytes(32), rng.randrange(50), rng.randrange(2000)
        sides = rng.choice([1, 2, 6, 10, 20, 100, 2**31 + 1, 2**32 - 3])
        salt, game = rng.choice(["", "mine", "sälz"]), f"g_{rng.randrange(9)}"
        key = slot_key(seed, turn, slot)
        assert seed_slot_face(seed, game, turn, slot, sides, salt) == slot_face(key, game, turn, slot, sides, salt)
        msg = rng.randbytes(rng.randrange(90))
        assert slot_mac(seed, turn, slot, msg) == hmac.new(key, msg, hashlib.sha256).digest()
    with pytest.raises(ValueError):
        seed_slot_face(SEED, "g_1", 1, 0, 0)


def test_roll_under_and_roll_high_give_the_roll_that_roll_gives_with_its_outcome():
    """The tests build their Roll once; ``roll`` plus the outcome is the reference (a bool base stays an
    int target, as the sum made it)."""
    import msgspec

    from service.domain.core import Modifier

    mods = (Modifier("r", "why", 2), Modifier("s", "why", -1))
    for first in range(40):
        for base, modifiers in ((5, ()), (True, ()), (3, mods), (0, ()), (10, ())):
            dice, ref = SlotDice(SEED, "g_1", 2, first, "s"), SlotDice(SEED, "g_1", 2, first, "s")
            got = dice.roll_under(10, "p", "R", base, modifiers, success="hit", failure="miss")
            target = base + sum(m.value for m in modifiers)
            want = ref.roll(10, "p", "R", target, modifiers)
            ok = target >= 10 or (target > 0 and want.value <= target)
            expected = msgspec.structs.replace(want, outcome="hit" if ok else "miss")
            assert got == expected and msgspec.json.encode(got) == msgspec.json.encode(expected)
            assert type(got.target) is int
            high = dice.roll_high(6, "p", "R", 4, modifiers)
            ref_high = ref.roll(6, "p", "R", 4, modifiers)
            total = ref_high.value + sum(m.value for m in modifiers)
            assert high == msgspec.structs.replace(ref_high, outcome="success" if total >= 4 else "failure")
            assert dice.count == ref.count == 2


def test_rolls_under_a_built_tree_use_its_kept_keys_and_roll_the_same():
    """A tree build keeps its slot keys for ``slot_mac``: rolls before, during and after a stepped build
    (and past the tree, and for another turn of the same seed) equal the keys computed from the seed."""
    import hashlib
    import hmac

    from service.domain.core import merkle

    seed = bytes(range(100, 132))

    def check() -> None:
        for turn in (4, 5):
            for slot in (0, 1, 127, 128, 300, 1023, 1024, 5000):
                msg = f"g_1|{turn}|{slot}|s|0".encode()
                assert (
                    merkle.slot_mac(seed, turn, slot, msg)
                    == hmac.new(slot_key(seed, turn, slot), msg, hashlib.sha256).digest()
                )

    check()
    builder = merkle.TreeBuilder(seed, 4)
    builder.step()
    assert len(merkle._KEYS[seed][1]) == 32 * merkle.TreeBuilder.LEAVES_PER_STEP
    check()
    builder.tree()
    merkle.TreeBuilder(seed, 4).tree()  # a second build keeps what the first kept
    assert merkle._KEYS[seed][1] == b"".join(slot_key(seed, 4, r) for r in range(merkle.TREE_SLOTS))
    check()
