"""The conformance kit: behaviour every ruleset must show, checked on random legal play of its sample
scenarios (service/testing/randomplay.py), whatever its rules are.

- **other seats are refused**: an option offered to a seat for one of its pieces, sent by any other seat,
  is refused as not-your-piece (``NotYourPiece``, 403), neither accepted nor refused for another reason
  first (an option naming no piece is the sender's own: exempt);
- **decide's state is the fold of its events**: the state ``decide`` accumulated (``core.acc.Acc``) equals
  ``evolve`` folded over the events it returned, so what it decided on is what a replay rebuilds;
- **same dice, same events**: deciding twice with the same dice gives the same events;
- **every die is a recorded fact**: the events' ``rolls`` are exactly the dice ``decide`` drew, in order,
  with the faces those dice gave (none drawn and dropped, none invented);
- **every option is accepted**: each option offered to a seat or the umpire, decided as that viewer, is
  accepted;
- **the outcome is consistent**: ``result`` names an outcome exactly when ``is_over``, and every outcome rule
  the ruleset declares in its spec's ``properties`` (who wins a tie, that the winner is afloat) holds on every
  state reached: the rules no generic check can know;
- **no secret leaks**: for a hidden-information ruleset, nothing its spec's ``secrets(state, viewer)`` names
  appears in what that viewer is served: its view, drawing, options, forms, or the events redacted for it.

``findings(ruleset)`` returns what failed, each naming its check; an empty list is a pass. Its own tests
(tests/contract/test_kit.py) plant one defect per check in the template ruleset and see it caught.

As a pytest plugin for any ruleset package (the scaffold's ``tests/test_conformance.py`` does this)::

    from service.testing.kit import conformance_tests
    test_conformance = conformance_tests("club_rules:RULESET")

one test per check, the ruleset loaded through the registry: a package that cannot import fails every one
of them (``RulesetLoadError``), it never silently runs nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import msgspec
import pytest

from service.domain.core import SPECTATOR, UMPIRE, Command, Dice, NotYourPiece, Ruleset, RuleViolation, Viewer, seat
from service.domain.core.acc import Acc
from service.domain.core.choices import option_commands
from service.domain.core.dice import derive_face
from service.domain.core.guards import guarded_decide
from service.domain.core.registry import load_target
from service.testing.randomplay import Step, play

OTHER_SEAT = "other-seat-refused"
STATE_IS_FOLD = "decide-state-is-fold"
SAME_DICE = "same-dice-same-events"
DICE_RECORDED = "every-die-recorded"
OPTIONS_ACCEPTED = "options-accepted"
OUTCOME = "outcome-consistent"
NO_LEAKS = "no-secret-leaks"
CHECKS = (OTHER_SEAT, STATE_IS_FOLD, SAME_DICE, DICE_RECORDED, OPTIONS_ACCEPTED, OUTCOME, NO_LEAKS)
NOT_YOUR_PIECE = NotYourPiece.code  # "not-your-piece" (core/errors.py)

SEED = b"conformance-kit"
GAME = "g_kit"


@dataclass(frozen=True)
class Finding:
    check: str
    detail: str

    def __str__(self) -> str:
        return f"{self.check}: {self.detail}"


@contextmanager
def accumulators() -> Iterator[list[tuple[Any, Acc[Any]]]]:
    """Every ``Acc`` made while the block runs, with the state it started from."""
    made: list[tuple[Any, Acc[Any]]] = []
    original = Acc.__init__

    def init(self: Acc[Any], state: Any, evolve: Any) -> None:
        original(self, state, evolve)
        made.append((state, self))

    Acc.__init__ = init  # type: ignore[method-assign]
    try:
        yield made
    finally:
        Acc.__init__ = original  # type: ignore[method-assign]


def _same_state(a: Any, b: Any) -> bool:
    if a == b:
        return True
    try:  # structures compared by identity (shared, persistent ones) still encode alike when equal
        return bool(msgspec.json.encode(a) == msgspec.json.encode(b))
    except (TypeError, msgspec.EncodeError):
        return False


def _label(command: Command) -> str:
    return msgspec.json.encode(command).decode()[:160]


def _decide(ruleset: Ruleset[Any, Any], state: Any, command: Command, actor: Viewer, n: int) -> tuple[Dice, Any]:
    """(dice, events) or (dice, the RuleViolation raised)."""
    dice = Dice(SEED, GAME, n)
    try:
        return dice, guarded_decide(ruleset, state, command, actor, dice)
    except RuleViolation as exc:
        return dice, exc


def check_other_seats(
    ruleset: Ruleset[Any, Any], state: Any, seats: list[str], n: int, budget: int = 60
) -> list[Finding]:
    """Each option naming the piece it acts for, sent by another seat, is refused as not-your-piece.
    Options that name no piece (start the game, claim a homeworld) are the sender's own and exempt.
    At most ``budget`` replays a state, spread over every seat's options (a Starfinder crew has many)."""
    replays = [
        (owner, option, other)
        for owner in seats
        for option in ruleset.options(state, seat(owner))
        if option.piece is not None
        for other in [s for s in seats if s != owner][:2]
    ]
    out = []
    for owner, option, other in replays[:: max(1, len(replays) // budget)]:
        _, result = _decide(ruleset, state, option.command, seat(other), n)
        if isinstance(result, RuleViolation) and result.code == NOT_YOUR_PIECE:
            continue
        why = f"refused as {result.rule} (code {result.code})" if isinstance(result, RuleViolation) else "accepted"
        out.append(
            Finding(
                OTHER_SEAT, f"seat:{owner}'s {_label(option.command)} (piece {option.piece}) as seat:{other}: {why}"
            )
        )
    return out


def check_state_is_fold(ruleset: Ruleset[Any, Any], step: Step, n: int) -> list[Finding]:
    with accumulators() as made:
        _, events = _decide(ruleset, step.state_before, step.command, step.actor, n)
    if isinstance(events, RuleViolation):
        return []  # the random game's dice differ from the kit's: this roll refuses; nothing to fold
    mine = [acc for start, acc in made if start is step.state_before]
    if not mine:
        return []  # decide made no accumulator over this state: nothing to compare
    folded = step.state_before
    for event in events:
        folded = ruleset.evolve(folded, event)
    if _same_state(mine[0].state, folded):
        return []
    return [
        Finding(
            STATE_IS_FOLD,
            f"{_label(step.command)}: the state decide ended with is not evolve folded over its {len(events)} events",
        )
    ]


def check_dice(ruleset: Ruleset[Any, Any], step: Step, n: int) -> list[Finding]:
    dice, first = _decide(ruleset, step.state_before, step.command, step.actor, n)
    _, again = _decide(ruleset, step.state_before, step.command, step.actor, n)
    out = []
    if isinstance(first, RuleViolation) or isinstance(again, RuleViolation):
        if type(first) is not type(again) or str(first) != str(again):
            out.append(Finding(SAME_DICE, f"{_label(step.command)}: the same dice gave {first!r} then {again!r}"))
        return out
    if first != again:
        out.append(Finding(SAME_DICE, f"{_label(step.command)}: the same dice gave different events"))
    rolls = [roll for event in first for roll in getattr(event, "rolls", ())]
    if [r.i for r in rolls] != list(range(dice.count)):
        out.append(
            Finding(
                DICE_RECORDED,
                f"{_label(step.command)}: drew {dice.count} dice, the events record positions {[r.i for r in rolls]}",
            )
        )
        return out
    for roll in rolls:
        sides = int(roll.die[1:]) if roll.die[1:].isdigit() else None
        if sides and roll.value != derive_face(SEED, GAME, n, roll.i, sides, dice.salt):
            out.append(
                Finding(
                    DICE_RECORDED,
                    f"{_label(step.command)}: die {roll.i} ({roll.die}) recorded "
                    f"{roll.value}, the dice gave another face",
                )
            )
    return out


def check_options(ruleset: Ruleset[Any, Any], state: Any, seats: list[str], n: int, limit: int = 24) -> list[Finding]:
    out = []
    for viewer in [*(seat(s) for s in seats), UMPIRE]:
        for command in option_commands(ruleset.options(state, viewer))[:limit]:
            _, result = _decide(ruleset, state, command, viewer, n)
            if isinstance(result, RuleViolation):
                out.append(
                    Finding(OPTIONS_ACCEPTED, f"{viewer.label} was offered {_label(command)}, refused: {result}")
                )
    return out


def check_outcome(ruleset: Ruleset[Any, Any], state: Any, label: str) -> list[Finding]:
    """``result`` names an outcome exactly when the game is over; every declared property holds."""
    out = []
    over, result = ruleset.is_over(state), ruleset.result(state)
    if over != bool(result):
        out.append(Finding(OUTCOME, f"after {label}: is_over is {over} but result is {result!r}"))
    for rule, holds_not in ruleset.properties.items():
        broken = holds_not(state)
        if broken:
            out.append(Finding(OUTCOME, f"after {label}: {rule} broken: {broken}"))
    return out


def _served(ruleset: Ruleset[Any, Any], state: Any, viewer: Viewer, events: list[Any], whole: bool) -> dict[str, str]:
    """What ``viewer`` is served, as JSON text by part: the events redacted for it, and (``whole``) the
    view, drawing, options and forms of ``state``."""
    redacted = [ruleset.redact(e, viewer, state) for e in events]
    parts: dict[str, Any] = {"events": [e for e in redacted if e is not None]}
    if whole:
        parts |= {
            "view": ruleset.view(state, viewer),
            "draw": ruleset.draw(state, viewer),
            "options": list(ruleset.options(state, viewer)),
            "forms": list(ruleset.forms(state, viewer)),
        }
    return {part: msgspec.json.encode(value).decode() for part, value in parts.items()}


def _occurs(secret: Any, text: str) -> bool:
    """``secret`` is in the JSON ``text``: a string anywhere (a value, a key, within a label), a number as a
    word of its own, an object or list as encoded. Secrets should be distinctive (ids, names, positions,
    sealed orders): a hull of 3 would be found wherever a 3 is shown."""
    if isinstance(secret, bool) or secret is None:
        return False
    if isinstance(secret, str):
        return msgspec.json.encode(secret).decode()[1:-1] in text
    if isinstance(secret, int | float):
        return re.search(rf"(?<![\w.]){re.escape(str(secret))}(?![\w]|\.\d)", text) is not None
    return msgspec.json.encode(secret).decode() in text


def check_secrets(
    ruleset: Ruleset[Any, Any], state: Any, seats: list[str], events: list[Any], label: str, whole: bool = True
) -> list[Finding]:
    """Nothing ``secrets(state, viewer)`` names is served to that viewer (every seat and a spectator): the
    events just decided, redacted for it, and (``whole``) its view, drawing, options and forms."""
    if not ruleset.hidden_information:
        return []
    out = []
    for viewer in [*(seat(s) for s in seats), SPECTATOR]:
        secrets = [msgspec.to_builtins(x) for x in ruleset.secrets(state, viewer)]
        if not secrets:
            continue
        for part, text in _served(ruleset, state, viewer, events, whole).items():
            leaked = [x for x in secrets if _occurs(x, text)]
            if leaked:
                out.append(Finding(NO_LEAKS, f"after {label}: {viewer.label}'s {part} shows {str(leaked[0])[:80]}"))
    return out


def findings(
    ruleset: Ruleset[Any, Any], seeds: tuple[int, ...] = (1,), max_steps: int = 80, options_every: int = 4
) -> list[Finding]:
    """Every check over random play of every sample scenario; at most a few findings per check."""
    found: dict[str, list[Finding]] = {check: [] for check in CHECKS}
    for _name, raw in sorted(ruleset.scenarios().items()):
        for s in seeds:
            game = play(ruleset, raw, seed=s, max_steps=max_steps)
            seats = ruleset.seats(game.setup)
            for n, step in enumerate(game.steps, start=1):
                step_findings = [*check_state_is_fold(ruleset, step, n), *check_dice(ruleset, step, n)]
                step_findings += check_outcome(ruleset, step.state_after, _label(step.command))
                whole = n % options_every == 1
                step_findings += check_secrets(
                    ruleset, step.state_after, seats, step.events, _label(step.command), whole
                )
                if n % options_every == 1:
                    step_findings += check_other_seats(ruleset, step.state_before, seats, n)
                    step_findings += check_options(ruleset, step.state_before, seats, n)
                for f in step_findings:
                    if len(found[f.check]) < 3:
                        found[f.check].append(f)
    return [f for check in CHECKS for f in found[check]]


def failed_checks(items: list[Finding]) -> set[str]:
    return {f.check for f in items}


def conformance_tests(target: str | Ruleset[Any, Any], seeds: tuple[int, ...] = (1, 2), max_steps: int = 80) -> Any:
    """A pytest test, one case per check, for the ruleset ``target`` names ("package.module:ATTR", loaded
    through the registry as the service loads it, or a ruleset object). Bind it in a test module::

        test_conformance = conformance_tests("club_rules:RULESET")

    Random play runs once for every case. A target that cannot be loaded fails each case with the registry's
    ``RulesetLoadError`` (what cannot import must fail, never vanish)."""
    cache: dict[str, list[Finding]] = {}

    def load() -> Ruleset[Any, Any]:
        if isinstance(target, str):
            return load_target(target.partition(":")[0], target)
        return target

    @pytest.mark.parametrize("check", CHECKS)
    def test_conformance(check: str) -> None:
        if "found" not in cache:
            cache["found"] = findings(load(), seeds=seeds, max_steps=max_steps)
        mine = [str(f) for f in cache["found"] if f.check == check]
        assert not mine, "\n".join(mine)

    return test_conformance


__all__ = [
    "CHECKS",
    "DICE_RECORDED",
    "NO_LEAKS",
    "OUTCOME",
    "OPTIONS_ACCEPTED",
    "OTHER_SEAT",
    "SAME_DICE",
    "STATE_IS_FOLD",
    "Finding",
    "check_outcome",
    "check_secrets",
    "conformance_tests",
    "failed_checks",
    "findings",
]
