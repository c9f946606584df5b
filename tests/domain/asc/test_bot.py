"""Issue 12: ASC's rules-aware bot (service/domain/asc/bot.py) against core.bot.RandomBot, each seeing only
its seat's view (as JSON), options and forms; and random play reaches the fire phase and resolves shots."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from service.domain.asc import RULESET as R
from service.domain.asc.events import ShotResolved
from service.domain.asc.paths import trace
from service.domain.asc.scenario import SIDES
from service.domain.asc.state import State, enemy
from service.domain.core import UMPIRE, Dice, RuleViolation, seat
from service.domain.core.bot import Bot, RandomBot
from service.domain.core.choices import to_command
from service.domain.core.guards import full_view, guarded_decide
from service.domain.core.hexgrid import Hex, in_arcs
from service.testing.randomplay import play

from .builders import damaged, duel, fire_phase, lock, phase, state_of
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
        for side in SIDES if n % 2 == 0 else SIDES[::-1]:
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


@pytest.mark.parametrize("scenario", ["frigate-screen", "ambush", "carrier-strike"])
def test_random_play_reaches_the_fire_phase_and_resolves_shots(scenario: str) -> None:
    """Issue 12: random play of frigate-screen once ran 12 turns without a shot; ready-made moves that
    close on each contact (ASC-MOV-2) and fire forms (ASC-FIRE-1) bring every game to shots."""
    for seed in (1, 2, 3):
        game = play(R, R.scenarios()[scenario], seed=seed, max_steps=600)
        shots = [e for step in game.steps for e in step.events if isinstance(e, ShotResolved) and e.outcome != "void"]
        assert not game.stalled and not game.refused and shots, (scenario, seed, len(game.steps))


def _choose(state: State, side: str = "advantaged") -> Any:
    viewer = seat(side)
    view = msgspec.to_builtins(full_view(R, state, viewer))
    return R.bots["rules"].choose(view, R.options(state, viewer), R.forms(state, viewer), side, 1)


def test_the_rules_bot_fires_its_heaviest_shot_first_and_unloads_on_a_vessel_at_all_stop() -> None:
    """ASC-FIRE-5/6/7 and ASC-MOV-4: a submunition (5x1) in the target's hex is worth more than a 1x1
    laser; on a vessel at All Stop both are direct strikes (automatic, 10x), and the bot still leads with
    the submunition, then fires the laser too."""
    alpha = {"launchers": [{"id": "sub", "rounds": 3, "rof": "1/3", "damage": "5x1"}]}
    moving = fire_phase(duel(alpha=alpha), lock("alpha", "bravo"))
    shot = _choose(moving)
    assert shot["type"] == "asc.fire" and shot["weapon"] == "sub" and shot["target"] == "bravo"
    stopped = R.evolve(moving, damaged(moving, "bravo", all_stop=True))
    shot = _choose(stopped)
    assert shot["type"] == "asc.fire" and shot["weapon"] == "sub" and shot["target"] == "bravo"
    for event in R.decide(stopped, _command(shot), seat("advantaged"), Dice(b"t", "g", 1)):
        stopped = R.evolve(stopped, event)
    shot = _choose(stopped)
    assert shot["type"] == "asc.fire" and shot["weapon"] == "las" and shot["target"] == "bravo"


def _move_against(gun: dict[str, Any]) -> tuple[Hex, int]:
    """Alpha (advantaged, 4 hexes of movement) three hexes from a locked bravo armed with ``gun``, each
    found by the other: where the bot's move ends, and its facing."""
    setup = duel(
        alpha={"hex": [0, 0], "facing": 3, "warp_efficiency": 2.0, "manoeuvre": "A"},
        bravo={"hex": [3, 0], "facing": 3, "turrets": [gun]},
    )
    state = state_of(setup, lock("alpha", "bravo"), lock("bravo", "alpha"), phase("advantaged_movement"))
    move = _choose(state)
    move = move if isinstance(move, dict) else msgspec.to_builtins(move)
    assert move["type"] == "asc.move" and move["vessel"] == "alpha"
    end, facing = trace(Hex(0, 0), 3, tuple(move["path"]))
    return end[-1], facing


def test_the_rules_bot_closes_to_fire_unless_the_enemy_outguns_it_there() -> None:
    """ASC-MOV-2, ASC-FIRE-3/4/5/6: a move is worth the expected damage the vessel can deal from its end
    (its laser in arc at one hex, or anything in the target's hex) less half what the enemy's guns that have
    found it can deal it there. Against an even gun (1x1) it closes into the enemy's hex and fires; against
    a heavier one (a triple mount of 1x3) sharing the hex costs more than it gains, and it keeps out of reach."""
    bravo = Hex(3, 0)
    end, facing = _move_against({"id": "las", "type": "normal", "arcs": [2, 3, 4], "damage": "1x1"})
    assert end == bravo or (end.distance_to(bravo) == 1 and in_arcs(end, facing, bravo, frozenset({5, 0, 1})))
    end, _ = _move_against({"id": "las", "type": "normal", "arcs": [2, 3, 4], "mounts": 3, "damage": "1x3"})
    assert end != bravo and end.distance_to(bravo) > 1
