"""Given / when / then helpers for decider tests (no database, no server)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pytest

from service.domain.core import UMPIRE, Actor, Command, Dice, Event, Ruleset, RuleViolation


class ScriptedDice(Dice):
    """Dice whose faces are given by the test, in order; running out is a test error."""

    def __init__(self, faces: Iterable[int]) -> None:
        super().__init__(b"scripted", "g_test", 1)
        self._faces = list(faces)

    def _face(self, i: int, sides: int) -> int:
        if not self._faces:
            raise AssertionError(f"the decider rolled more dice than the test scripted (roll {i})")
        face = self._faces.pop(0)
        assert 1 <= face <= sides, f"scripted face {face} is not on a d{sides}"
        return face

    @property
    def unused(self) -> list[int]:
        return list(self._faces)


def given(ruleset: Ruleset, setup: Any, events: Sequence[Event] = ()) -> Any:
    """The state after a scenario (raw dict or parsed setup) and some events."""
    if isinstance(setup, dict):
        setup = ruleset.parse_setup(setup)
    state = ruleset.initial_state(setup)
    for event in events:
        state = ruleset.evolve(state, event)
    return state


def when(
    ruleset: Ruleset,
    state: Any,
    command: Command,
    actor: Actor = UMPIRE,
    dice: Dice | Iterable[int] | None = None,
) -> list[Event]:
    """Decide a command; ``dice`` may be a list of faces to script the rolls."""
    if dice is None:
        dice = Dice(b"test-seed", "g_test", 1)
    elif not isinstance(dice, Dice):
        dice = ScriptedDice(dice)
    return ruleset.decide(state, command, actor, dice)


def then_violation(
    ruleset: Ruleset, state: Any, command: Command, rule: str, actor: Actor = UMPIRE, dice: Iterable[int] = ()
) -> RuleViolation:
    """Assert the command is rejected citing ``rule``; returns the violation for further checks."""
    with pytest.raises(RuleViolation) as info:
        when(ruleset, state, command, actor, ScriptedDice(dice))
    assert info.value.rule == rule, f"expected {rule}, got {info.value.rule}: {info.value.detail}"
    return info.value


def apply(ruleset: Ruleset, state: Any, events: Sequence[Event]) -> Any:
    for event in events:
        state = ruleset.evolve(state, event)
    return state
