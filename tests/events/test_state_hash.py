"""State hashes across a ruleset's added fields: a field named in a struct's HASH_NEUTRAL is left out of the hash
while at its default, so a battle file exported before the field existed still matches the fold of its events."""

from __future__ import annotations

import hashlib
from typing import ClassVar

import msgspec

from service.events.battlefile import state_hash


class Before(msgspec.Struct, frozen=True):
    name: str
    ships: dict[str, int]


class Member(msgspec.Struct, frozen=True):
    HASH_NEUTRAL: ClassVar[frozenset[str]] = frozenset({"requests"})
    role: str
    requests: int = 0


class After(msgspec.Struct, frozen=True):
    HASH_NEUTRAL: ClassVar[frozenset[str]] = frozenset({"open_table", "crew"})
    name: str
    ships: dict[str, int]
    open_table: bool = False
    crew: tuple[Member, ...] = ()


def plain(value: object) -> str:
    return hashlib.sha256(msgspec.json.encode(msgspec.to_builtins(value), order="sorted")).hexdigest()


def test_a_neutral_field_at_its_default_hashes_as_before_it_existed() -> None:
    assert (
        state_hash(After("duel", {"a": 1})) == plain(Before("duel", {"a": 1})) == state_hash(Before("duel", {"a": 1}))
    )


def test_a_neutral_field_away_from_its_default_counts() -> None:
    assert state_hash(After("duel", {"a": 1}, open_table=True)) != state_hash(After("duel", {"a": 1}))


def test_neutral_fields_of_nested_structs_are_dropped_too_and_others_are_kept() -> None:
    crew = (Member("pilot"), Member("captain", requests=1))
    hashed = state_hash(After("duel", {"a": 1}, crew=crew))
    assert hashed == plain(
        {"name": "duel", "ships": {"a": 1}, "crew": [{"role": "pilot"}, {"role": "captain", "requests": 1}]}
    )
