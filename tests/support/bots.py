"""Bot against bot, in process, for any registered ruleset (test support; the benchmark lives elsewhere).

Each bot sees exactly what its seat sees: the full view (with ``draw``), its options and forms. Every step
asks the seats in turn (starting with a different one each step, so nobody always moves first); the first
bot that answers has its command decided through the service's guards. A command a bot sends that decide
refuses is recorded, not retried. The umpire never acts: a game no seat can move on is a stall.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from service.domain.core import Command, Dice, Ruleset, RuleViolation, seat
from service.domain.core.bot import Bot
from service.domain.core.choices import as_option, to_command
from service.domain.core.guards import full_view, guarded_decide


@dataclass
class BotGame:
    state: Any
    steps: int = 0
    stalled: bool = False
    refused: list[tuple[str, Any, str]] = field(default_factory=list)  # (seat, command, rule: detail)

    @property
    def over(self) -> bool:
        return bool(getattr(self.state, "over", False))


def play_bots(
    ruleset: Ruleset[Any, Any], scenario: str | dict[str, Any], bots: Mapping[str, Bot], seed: int,
    max_steps: int = 2000,
) -> BotGame:
    """Play ``scenario`` (a sample's name or a raw setup) with ``bots[seat]`` in every seat."""
    raw = ruleset.scenarios()[scenario] if isinstance(scenario, str) else scenario
    setup = ruleset.parse_setup(raw)
    seats = ruleset.seats(setup)
    game = BotGame(ruleset.initial_state(setup))
    for n in range(max_steps):
        if ruleset.is_over(game.state):
            return game
        acted = False
        for i in range(len(seats)):
            name = seats[(n + i) % len(seats)]
            viewer = seat(name)
            options = [as_option(o) for o in ruleset.options(game.state, viewer)]  # as GET /options serves them
            forms = list(ruleset.forms(game.state, viewer))
            choice = bots[name].choose(full_view(ruleset, game.state, viewer), options, forms, name,
                                       seed * 1_000_003 + n)
            if choice is None:
                continue
            command: Command = choice if isinstance(choice, Command) else to_command(choice, ruleset.command_types)
            try:
                events = guarded_decide(ruleset, game.state, command, viewer, Dice(b"bots-%d" % seed, "g_bots", n + 1))
            except RuleViolation as exc:
                game.refused.append((name, command, f"{exc.rule}: {exc.detail}"))
                continue
            for event in events:
                game.state = ruleset.evolve(game.state, event)
            game.steps += 1
            acted = True
            break
        if not acted:
            game.stalled = True
            return game
    return game
