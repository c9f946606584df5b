"""The conformance kit catches what it is for: one defect planted in the template ruleset per check, each
reported by its check, while the intact template passes every check. The six defects of issue 34 (the
whose-piece guard removed, evolve dropping the score, a broken tie rule, a side rolling twice, a die fixed
at 6, a ruleset.py raising ImportError) are all here, with chance outside the dice, an option decide refuses
and secrets leaked to a seat. A ruleset that cannot import fails before any check runs (RulesetLoadError)."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import msgspec
import pytest

from service.domain.core import UMPIRE, Actor, Command, Dice, Event, Viewer, register_ruleset, unregister_ruleset
from service.domain.core.choices import Option
from service.domain.core.registry import RulesetLoadError, find_ruleset
from service.testing import kit
from tests.support import tiny
from tests.support.template import RULESET as TEMPLATE
from tests.support.template import events as template_events
from tests.support.template.commands import Fire

SEEDS = (1, 2, 3, 4)  # the template's games are short: several give every check something to see


class Planted:
    """A ruleset (the template unless told) with some parts replaced: everything else is its own."""

    def __init__(self, base: Any = TEMPLATE, **parts: Any) -> None:
        self._base = base
        self._parts = parts

    def __getattr__(self, name: str) -> Any:
        return self._parts[name] if name in self._parts else getattr(self._base, name)


def whose_piece_guard_removed() -> Planted:
    """Any seat may act for any ship: decide runs as if the umpire had sent the command (TPL-1 lost)."""
    return Planted(decide=lambda state, cmd, actor, dice: TEMPLATE.decide(state, cmd, UMPIRE, dice))


def evolve_drops_the_score() -> Planted:
    """evolve forgets the damage a shot did, while decide (folding with the template's own evolve) counts it:
    live play and a replay of the log disagree on the hull."""

    def evolve(state: Any, event: Event) -> Any:
        after = TEMPLATE.evolve(state, event)
        if isinstance(event, template_events.Fired):
            return msgspec.structs.replace(after, hull=state.hull)
        return after

    return Planted(evolve=evolve)


def a_broken_tie_rule() -> Planted:
    """TPL-3 broken: a game the turn limit ends with both ships afloat (a tie, a draw) is given to the first
    side. Nothing generic is wrong (the events fold, the dice are recorded): the template's declared outcome
    property (spec ``properties``) is what catches it."""

    def decide(state: Any, cmd: Command, actor: Actor, dice: Dice) -> list[Event]:
        events = TEMPLATE.decide(state, cmd, actor, dice)
        return [
            msgspec.structs.replace(e, winner=state.sides[0])
            if isinstance(e, template_events.GameOver) and e.winner is None
            else e
            for e in events
        ]

    return Planted(decide=decide)


def a_side_rolls_twice() -> Planted:
    """A shot rolls an extra die that no event records (a re-roll nobody can audit)."""

    def decide(state: Any, cmd: Command, actor: Actor, dice: Dice) -> list[Event]:
        if isinstance(cmd, Fire):
            dice.roll(6, "a second look", "TPL-2")
        return TEMPLATE.decide(state, cmd, actor, dice)

    return Planted(decide=decide)


class _Sixes(Dice):
    def _face(self, i: int, sides: int) -> int:
        return 6


def a_die_fixed_at_six() -> Planted:
    """Every die shows 6, whatever the game's dice say."""
    return Planted(decide=lambda state, cmd, actor, dice: TEMPLATE.decide(state, cmd, actor, _Sixes(b"6", "g", 0)))


def chance_outside_the_dice() -> Planted:
    """decide draws on something that is not its dice (here a counter standing in for a global RNG or clock):
    the same command on the same dice decides differently from one call to the next."""
    calls = itertools.count()

    def decide(state: Any, cmd: Command, actor: Actor, dice: Dice) -> list[Event]:
        return TEMPLATE.decide(state, cmd, actor, Dice(b"elsewhere-%d" % next(calls), "g", 0))

    return Planted(decide=decide)


def an_option_decide_refuses() -> Planted:
    """options offers a shot of power 4, which TPL-2 forbids."""

    def options(state: Any, viewer: Viewer) -> list[Option]:
        offered = list(TEMPLATE.options(state, viewer))
        for option in list(offered):
            if isinstance(option.command, Fire):
                too_strong = msgspec.structs.replace(option.command, power=4)
                offered.append(msgspec.structs.replace(option, command=too_strong, label="fire at power 4"))
                break
        return offered

    return Planted(options=options)


def test_the_intact_template_passes_every_check() -> None:
    assert kit.findings(TEMPLATE, seeds=SEEDS) == []


@pytest.mark.parametrize(
    ("planted", "check"),
    [
        (whose_piece_guard_removed, kit.OTHER_SEAT),
        (evolve_drops_the_score, kit.STATE_IS_FOLD),
        (a_broken_tie_rule, kit.OUTCOME),
        (a_side_rolls_twice, kit.DICE_RECORDED),
        (a_die_fixed_at_six, kit.DICE_RECORDED),
        (chance_outside_the_dice, kit.SAME_DICE),
        (an_option_decide_refuses, kit.OPTIONS_ACCEPTED),
    ],
    ids=lambda p: getattr(p, "__name__", p),
)
def test_each_planted_defect_is_caught_by_its_check(planted: Any, check: str) -> None:
    found = kit.findings(planted(), seeds=SEEDS)
    assert check in kit.failed_checks(found), [str(f) for f in found]


def test_a_generic_outcome_slip_is_caught_without_any_declared_property() -> None:
    """A result that outlives the game (is_over false, a result named) is caught by the generic half."""
    found = kit.findings(Planted(properties={}, result=lambda state: state.result or "undecided"), seeds=(1,))
    assert kit.OUTCOME in kit.failed_checks(found), [str(f) for f in found]


def _hidden_game() -> tuple[Any, Any]:
    """The tiny hidden-information ruleset after red hides 987654 (a secret blue must never learn), with
    its secrets hook: every other seat's hidden number."""
    state = tiny.RULESET.initial_state(tiny.RULESET.parse_setup({"hull": 3}))
    event = tiny.Hidden(seat="red", secret=987654)
    state = tiny.RULESET.evolve(state, event)

    def secrets(state: Any, viewer: Viewer) -> list[int]:
        return [v for s, v in state.secrets.items() if s != viewer.seat]

    return Planted(tiny.RULESET, secrets=secrets), (state, [event])


def test_secrets_kept_pass_the_leak_check() -> None:
    ruleset, (state, events) = _hidden_game()
    assert kit.check_secrets(ruleset, state, ["red", "blue"], events, "hide") == []


@pytest.mark.parametrize("leak", ["view", "events", "options"])
def test_a_secret_served_to_another_seat_is_caught(leak: str) -> None:
    ruleset, (state, events) = _hidden_game()
    parts = {
        "view": {"view": lambda state, viewer: {"secrets": dict(state.secrets)}},
        "events": {"redact": lambda event, viewer, state: event},
        "options": {"options": lambda state, viewer: [Option(command=tiny.ForcePhase(), label=f"{state.secrets}")]},
    }[leak]
    leaky = Planted(ruleset, **parts)
    found = kit.check_secrets(leaky, state, ["red", "blue"], events, "hide")
    assert found and {f.check for f in found} == {kit.NO_LEAKS}
    assert any(f"seat:blue's {leak}" in f.detail for f in found), [str(f) for f in found]
    assert not any("seat:red" in f.detail for f in found)  # red may see its own


@pytest.mark.parametrize("leak", ["redaction removed", "the umpire's view served"])
@pytest.mark.parametrize("name", ["asc", "ftcampaign"])
def test_a_hidden_information_ruleset_leaks_through_its_secrets_hook_when_its_visibility_is_broken(
    name: str, leak: str
) -> None:
    """ASC declares ``secrets`` (the ids and names of the vessels a viewer cannot see), the campaign the
    other players' sealed orders: intact each passes (test_conformance), with its redaction or its view's
    filter broken the kit finds them."""
    ruleset = find_ruleset(name)
    parts = {
        "redaction removed": {"redact": lambda event, viewer, state: event},
        "the umpire's view served": {"view": lambda state, viewer: ruleset.view(state, UMPIRE)},
    }[leak]
    found = kit.findings(Planted(ruleset, **parts), seeds=(1,), max_steps=12 if name == "asc" else 60)
    assert kit.NO_LEAKS in kit.failed_checks(found), [str(f) for f in found]


def test_the_plugin_fails_every_check_of_a_package_whose_ruleset_py_raises_importerror(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 34's sixth defect: a ruleset package whose ruleset.py raises ImportError fails the kit's tests
    (each one), never passes by running nothing."""
    package = tmp_path / "kit_broken_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("from .ruleset import RULESET\n", encoding="utf-8")
    (package / "ruleset.py").write_text("raise ImportError('the package is broken')\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    test = kit.conformance_tests("kit_broken_pkg:RULESET")
    for check in kit.CHECKS:
        with pytest.raises(RulesetLoadError, match="kit_broken_pkg.*ImportError: the package is broken"):
            test(check)


def test_the_plugin_passes_the_template() -> None:
    test = kit.conformance_tests("tests.support.template:RULESET")
    for check in kit.CHECKS:
        test(check)


def test_a_ruleset_that_cannot_import_fails_before_any_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "kit_broken_ruleset.py").write_text("from tests.support.template import NoSuchPart\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    register_ruleset("kitbroken", "kit_broken_ruleset:RULESET")
    try:
        with pytest.raises(RulesetLoadError, match="kitbroken.*NoSuchPart"):
            kit.findings(find_ruleset("kitbroken"))
    finally:
        unregister_ruleset("kitbroken")
