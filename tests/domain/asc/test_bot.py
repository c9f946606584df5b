"""Issue 12: ASC's rules-aware bot (service/domain/asc/bot.py) against core.bot.RandomBot, each seeing only
its seat's view (as JSON), options and forms; and random play reaches the fire phase and resolves shots."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from service.domain.asc import RULESET as R
from service.domain.asc.events import ShotResolved
from service.domain.asc.scenario import SIDES
from service.domain.asc.state import State, enemy
from service.domain.core import UMPIRE, Dice, RuleViolation, seat
from service.domain.core.bot import Bot, RandomBot
from service.domain.core.choices import to_command
from service.domain.core.guards import full_view, guarded_decide
from tests.support.randomplay import play

from .play import start


def _command(raw: Any) -> Any:
    return raw if not isinstance(raw, dict) else to_command(raw, R.command_types)


def bot_game(scenario: str, bots: dict[str, Bot], seed: int, max_steps: int = 1500) -> tuple[State, dict[str, int]]:
    """Play a whole battle with one bot per side; returns the final state and how many commands of each
    side decide refused (the rules bot must only send what its options and forms allow; the random bot's
    compositions may break a cross-piece limit, and it then ends the phase)."""
    state, n = start(scenario), 0
    refused = dict.fromkeys(SIDES, 0)
    while not state.over and n < max_steps:
        acted = False
        for side in (SIDES if n % 2 == 0 else SIDES[::-1]):
            viewer = seat(side)
            options, forms = R.options(state, viewer), R.forms(state, viewer)
            view = msgspec.to_builtins(full_view(R, state, viewer))  # what a client would receive
            raw = bots[side].choose(view, options, forms, side, n)
            if raw is None:
                continue
            n += 1
            try:
                events = guarded_decide(R, state, _command(raw), viewer, Dice(b"bots-%d" % seed, "g_bots", n))
            except RuleViolation:
                refused[side] += 1
                end = [o.command for o in options if o.group == "phase"]
                if not end:
                    continue
                events = guarded_decide(R, state, end[0], viewer, Dice(b"bots-%d" % seed, "g_bots", n))
            for e in events:
                state = R.evolve(state, e)
            acted = True
            break
        if not acted:
            n += 1
            for e in guarded_decide(R, state, R.options(state, UMPIRE)[0].command, UMPIRE, Dice(b"u", "g", n)):
                state = R.evolve(state, e)
    return state, refused


def margin(state: State, side: str) -> float:
    """The share of the enemy's starship hull destroyed, less the share of our own."""
    def lost(s: str) -> float:
        ships = [v for v, spec in state.specs.items() if spec.side == s and spec.kind == "starship"]
        total = sum(state.specs[v].hull for v in ships)
        return sum(min(state.status[v].hull_damage, state.specs[v].hull) for v in ships) / total
    return lost(enemy(side)) - lost(side)


def bot_won(state: State, side: str) -> bool:
    return state.winner == side or (state.winner is None and margin(state, side) > 0)


def test_the_rules_bot_beats_the_random_bot_in_most_games() -> None:
    rules, rand = R.bots["rules"], R.bots["random"]
    assert isinstance(rand, RandomBot) and rules.name == "rules"
    results = []
    for scenario in ("frigate-screen", "ambush"):
        for side in SIDES:
            for seed in (1, 2):
                bots: dict[str, Bot] = {side: rules, enemy(side): rand}
                state, refused = bot_game(scenario, bots, seed)
                assert state.over and refused[side] == 0, (scenario, side, seed, refused)
                results.append(bot_won(state, side))
    assert sum(results) >= 0.7 * len(results), results


def test_the_rules_bot_is_deterministic_and_sees_only_its_view() -> None:
    state = start("frigate-screen")
    viewer = seat("advantaged")
    view = msgspec.to_builtins(full_view(R, state, viewer))
    bot = R.bots["rules"]
    first = bot.choose(view, R.options(state, viewer), R.forms(state, viewer), "advantaged", 7)
    assert first == bot.choose(view, R.options(state, viewer), R.forms(state, viewer), "advantaged", 7)
    assert "sms-kaiser" not in msgspec.json.encode(view).decode()  # the view it decides on hides the cruiser
    assert first["type"] == "asc.commit_sensors"  # quiet and dark while unseen (ASC-DET-2)
    assert all(not e.get("active") and not e.get("screen") for e in first["vessels"])


@pytest.mark.parametrize("scenario", ["frigate-screen", "ambush"])
def test_random_play_reaches_the_fire_phase_and_resolves_shots(scenario: str) -> None:
    """Issue 12: random play of frigate-screen once ran 12 turns without a shot; ready-made moves that
    close on each contact (ASC-MOV-2) and fire forms (ASC-FIRE-1) bring every game to shots."""
    for seed in (1, 2, 3):
        game = play(R, R.scenarios()[scenario], seed=seed, max_steps=600)
        shots = [e for step in game.steps for e in step.events
                 if isinstance(e, ShotResolved) and e.outcome != "void"]
        assert not game.stalled and not game.refused and shots, (scenario, seed, len(game.steps))
