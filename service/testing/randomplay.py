"""Random legal play of any registered ruleset, driven only by its options and forms (test support).

Every step asks every seat and the umpire what they may do, picks one at random (a seeded RNG), and
decides it through the service's guards. Umpire choices are taken only when no seat has any, so games
move on by the players as far as the rules let them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import msgspec

from service.domain.core import UMPIRE, Command, Dice, Event, Ruleset, RuleViolation, Viewer, seat
from service.domain.core.choices import Field, compose, option_commands, to_command
from service.domain.core.guards import guarded_decide


@dataclass
class Step:
    state_before: Any
    actor: Viewer
    command: Command
    events: list[Event]
    state_after: Any


@dataclass
class Game:
    ruleset: Ruleset[Any, Any]
    setup: Any
    state: Any
    steps: list[Step] = field(default_factory=list)
    stalled: bool = False
    refused: list[tuple[Viewer, Command, str]] = field(default_factory=list)  # offered as options, refused
    form_refusals: int = 0  # random compositions decide refused (cross-piece limits are decide's to check)


def random_pick(rng: random.Random) -> Any:
    def pick(f: Field, _i: int) -> Any:
        if f.kind == "choice":
            return rng.choice(f.values).value if f.values else None
        if f.kind == "number":
            lo = f.min if f.min is not None else 0.0
            hi = f.max if f.max is not None else lo
            step = f.step or 1.0
            n = int(round((hi - lo) / step)) if hi > lo else 0
            return lo + step * rng.randint(0, n)
        if f.kind == "flag":
            return rng.random() < 0.5
        if f.kind == "legs":
            left = float(f.limits.get("max_distance_left", 0.0))
            return [{"turn": 0, "distance": round(rng.uniform(0, left), 1)}] if left > 0 else []
        return f.default if f.default is not None else []

    return pick


def choices_for(
    ruleset: Ruleset[Any, Any], state: Any, viewer: Viewer, rng: random.Random
) -> list[tuple[Command, bool]]:
    """Every option (False), plus one random composition of each form that decodes (True)."""
    out = [(c, False) for c in option_commands(ruleset.options(state, viewer))]
    for form in ruleset.forms(state, viewer):
        body = compose(form, random_pick(rng))
        try:
            out.append((to_command(body, ruleset.command_types), True))
        except msgspec.ValidationError:
            continue
    return out


def play(ruleset: Ruleset[Any, Any], raw_setup: dict[str, Any], seed: int, max_steps: int = 400) -> Game:
    setup = ruleset.parse_setup(raw_setup)
    game = Game(ruleset, setup, ruleset.initial_state(setup))
    rng = random.Random(seed)
    seats = ruleset.seats(setup)
    for n in range(max_steps):
        if ruleset.is_over(game.state):
            break
        choices = [(seat(s), *c) for s in seats for c in choices_for(ruleset, game.state, seat(s), rng)]
        if not choices:
            choices = [(UMPIRE, *c) for c in choices_for(ruleset, game.state, UMPIRE, rng)]
        if not choices:
            game.stalled = True
            break
        rng.shuffle(choices)
        for actor, command, composed in choices[:20]:
            dice = Dice(b"random-play-%d" % seed, "g_random", n + 1)
            try:
                events = guarded_decide(ruleset, game.state, command, actor, dice)
            except RuleViolation as exc:
                if composed:
                    game.form_refusals += 1
                else:
                    game.refused.append((actor, command, f"{exc.rule}: {exc.detail}"))
                continue
            before = game.state
            for event in events:
                game.state = ruleset.evolve(game.state, event)
            game.steps.append(Step(before, actor, command, events, game.state))
            break
        else:
            game.stalled = True
            break
    return game
