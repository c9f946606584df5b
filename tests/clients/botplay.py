"""Whole games between bots, in process, seeing exactly what the service shows a seat (test and bench support).

Each seat's bot gets the seat's view and options as JSON builtins (``service.events.bots.as_json``, the
API's encoding) and its command is decoded from JSON builtins and decided through the service's guards,
as ``POST /commands`` does. The umpire moves only when no seat is awaited and it has a duty (options);
a state where neither a seat nor the umpire can move an unfinished game is a stall.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from service.domain.core import UMPIRE, Dice, Ruleset, RuleViolation, Viewer, seat
from service.domain.core.bot import Bot, RandomBot
from service.domain.core.choices import Form, Option, compose, to_command
from service.domain.core.guards import full_view, guarded_decide
from service.events.bots import as_json, candidates, decode_options, must_act


@dataclass
class Played:
    ruleset: str
    scenario: str
    state: Any
    steps: int = 0
    umpire_steps: int = 0
    over: bool = False
    stalled: str | None = None  # why the game could not go on
    refused_options: list[str] = field(default_factory=list)  # options decide refused: defects
    refused_compositions: int = 0  # bot-composed orders refused (cross-piece limits): retried
    result: str | None = None
    turn: int = 0


class UmpireDuty:
    """The umpire's first option (a ruleset lists the pending duty first), else its first form as offered."""

    name = "umpire-duty"

    def choose(
        self, view: Mapping[str, Any], options: Sequence[Option], forms: Sequence[Form], me: str, key: int
    ) -> Any:
        if options:
            return options[0].command
        return compose(forms[0]) if forms else None


def _drawn_result(ruleset: Ruleset[Any, Any], state: Any) -> str | None:
    drawing = ruleset.draw(state, UMPIRE)
    return drawing.status.result if drawing is not None else None


def seat_inputs(ruleset: Ruleset[Any, Any], state: Any, viewer: Viewer) -> tuple[dict[str, Any], list[Any], list[Any]]:
    view = as_json(full_view(ruleset, state, viewer))
    payload = as_json({"options": list(ruleset.options(state, viewer)), "forms": list(ruleset.forms(state, viewer))})
    options, forms = decode_options(ruleset, payload)
    return view, options, forms


def _try(ruleset: Ruleset[Any, Any], state: Any, actor: Viewer, body: Any, dice: Dice) -> list[Any] | str:
    try:
        command = to_command(as_json(body), ruleset.command_types)
        return guarded_decide(ruleset, state, command, actor, dice)
    except msgspec.ValidationError as exc:
        return f"malformed: {exc}"
    except RuleViolation as exc:
        return f"{exc.rule}: {exc.detail}"


def play(
    ruleset: Ruleset[Any, Any], scenario: str, bots: Mapping[str, Bot], seed: int = 0, max_steps: int = 3000
) -> Played:
    """Play ``scenario`` with ``bots[seat]`` in every seat (RandomBot where none is given)."""
    setup = ruleset.parse_setup(ruleset.scenarios()[scenario])
    game = Played(ruleset.name, scenario, ruleset.initial_state(setup))
    seats = ruleset.seats(setup)
    umpire_bot = UmpireDuty()
    stand_in = RandomBot()
    while game.steps < max_steps and not ruleset.is_over(game.state):
        moved = False
        for name in seats:
            moved |= _move(ruleset, game, seat(name), bots.get(name) or stand_in, seed, awaited_only=True)
        if not moved and not _move(ruleset, game, UMPIRE, umpire_bot, seed, awaited_only=False):
            game.stalled = (
                f"turn {ruleset.clock(game.state).turn} phase {ruleset.clock(game.state).phase}: "
                "no seat is awaited and the umpire has no duty"
            )
            break
    game.over = ruleset.is_over(game.state)
    game.result = ruleset.result(game.state) or _drawn_result(ruleset, game.state)
    game.turn = ruleset.clock(game.state).turn
    if not game.over and not game.stalled:
        game.stalled = f"no end after {max_steps} moves (turn {game.turn})"
    return game


def _move(ruleset: Ruleset[Any, Any], game: Played, actor: Viewer, bot: Bot, seed: int, awaited_only: bool) -> bool:
    if ruleset.is_over(game.state):
        return False
    view, options, forms = seat_inputs(ruleset, game.state, actor)
    if not (options or forms) or (awaited_only and not must_act(view)):
        return False
    if actor.is_umpire and view.get("draw") and not view["draw"]["status"].get("umpire"):
        return False  # no pending duty: the umpire's other powers (end the game, rulings) are not play
    me = actor.seat or "umpire"
    key = seed * 1_000_003 + game.steps
    option_bodies = {msgspec.json.encode(o.command) for o in options}
    dice = Dice(b"botplay-%d" % seed, "g_botplay", game.steps + 1)
    for body in candidates(bot, view, options, forms, me, key):
        outcome = _try(ruleset, game.state, actor, body, dice)
        if isinstance(outcome, str):
            if msgspec.json.encode(body) in option_bodies:
                game.refused_options.append(f"{me}: {outcome}")
            else:
                game.refused_compositions += 1
            continue
        for event in outcome:
            game.state = ruleset.evolve(game.state, event)
        game.steps += 1
        game.umpire_steps += actor.is_umpire
        return True
    return False
