from collections import Counter

import pytest

from service.domain.core import Dice, Modifier, commitment, derive_face


def test_same_inputs_give_same_faces():
    a = Dice(b"k" * 32, "g_1", 7, "salt")
    b = Dice(b"k" * 32, "g_1", 7, "salt")
    assert [a.roll(10, "p", "R").value for _ in range(20)] == [b.roll(10, "p", "R").value for _ in range(20)]


@pytest.mark.parametrize("change", ["seed", "game", "seq", "salt"])
def test_each_input_changes_the_faces(change):
    base = {"seed": b"k" * 32, "game": "g_1", "seq": 7, "salt": ""}
    other = dict(base)
    other[change] = {"seed": b"j" * 32, "game": "g_2", "seq": 8, "salt": "player entropy"}[change]
    faces = [derive_face(base["seed"], base["game"], base["seq"], i, 10, base["salt"]) for i in range(30)]
    faces2 = [derive_face(other["seed"], other["game"], other["seq"], i, 10, other["salt"]) for i in range(30)]
    assert faces != faces2


def test_faces_are_roughly_uniform_and_in_range():
    counts = Counter(derive_face(b"s", "g", 1, i, 6) for i in range(6000))
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    assert all(800 < c < 1200 for c in counts.values()), counts


def test_roll_records_index_purpose_and_modifiers():
    dice = Dice(b"s", "g", 1)
    first = dice.roll(10, "initiative", "GSC2-MSL-2")
    mods = (Modifier("GSC2-HIT-2", "target did not move", 2),)
    second = dice.roll_under(10, "to-hit", "GSC2-HIT-1", 5, mods, success="hit", failure="miss")
    assert (first.i, second.i) == (0, 1)
    assert second.target == 7 and second.modifiers == mods
    assert second.outcome == ("hit" if second.value <= 7 else "miss")


def test_roll_under_extremes_always_fail_or_succeed():
    for i in range(30):
        assert Dice(b"s", "g", i).roll_under(10, "p", "R", 0).outcome == "failure"
        assert Dice(b"s", "g", i).roll_under(10, "p", "R", 10).outcome == "success"


def test_roll_high_adds_modifiers():
    roll = Dice(b"s", "g", 3).roll_high(10, "to-hit", "ASC-FIRE-5", 7, (Modifier("ASC-FIRE-5", "crew", 20),))
    assert roll.outcome == "success" and roll.target == 7


def test_commitment_is_sha256_of_the_seed():
    import hashlib

    assert commitment(b"abc") == hashlib.sha256(b"abc").hexdigest()
