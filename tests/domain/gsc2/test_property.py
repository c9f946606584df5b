"""Random legal games drawn from options() and forms(): the whole turn loop holds its invariants, on the
sample scenarios and on generated fleets.

Invariants: no exception; every accepted command yields ≥ 1 event; fold(encoded events) equals the live
state; hull never negative; a destroyed system is never repaired (GSC2-SYS-1..5, GSC2-REP-1); a ship that
left the table never comes back (GSC2-R-18); and liveness: until the game is over some seat can always act,
so the game never needs the umpire to move on (the umpire forces a phase only at random, 1 in 100).
"""

from __future__ import annotations

import random
from typing import Any, Union

import msgspec
import pytest

from service.domain.core import UMPIRE, Dice, seat
from service.domain.core.choices import compose, to_command
from service.domain.gsc2 import RULESET as R
from service.testing.randomplay import random_pick

from .fleets import fleet_scenario
from .helpers import offered

SCENARIOS = ("duel", "fleet-action", "boarding-action", "three-way")
COMMANDS: Any = Union[tuple(R.command_types)]  # noqa: UP007
EVENTS: Any = Union[tuple(R.event_types)]  # noqa: UP007


def _choices(state: Any, viewer: Any, rng: random.Random) -> list[tuple[Any, Any]]:
    out = [(viewer, c) for c in offered(state, viewer)]
    for form in R.forms(state, viewer):  # a free move of any legal length
        out.append((viewer, to_command(compose(form, random_pick(rng)), R.command_types)))
    return out


def play(raw: dict[str, Any], seed: int, max_turns: int = 30, max_commands: int = 4000) -> tuple[Any, int]:
    rng = random.Random(seed)  # test-only randomness: which legal command to pick
    setup = R.parse_setup(raw)
    state = R.initial_state(setup)
    log = []
    destroyed: set[tuple[str, str]] = set()
    gone: set[str] = set()
    n = 0
    while not R.is_over(state) and state.turn <= max_turns and n < max_commands:
        choices = [c for s in R.seats(setup) for c in _choices(state, seat(s), rng)]
        assert choices, f"no seat can act in {R.clock(state)}: {R.draw(state, UMPIRE).status}"  # liveness
        if rng.random() < 0.01:
            choices = [(UMPIRE, c) for c in offered(state, UMPIRE)]
        # prefer doing things over ending phases so games actually fight
        acting = [c for c in choices if c[1].__struct_config__.tag != "gsc2.end_phase"]
        actor, cmd = rng.choice(acting if acting and rng.random() < 0.85 else choices)
        cmd = msgspec.json.decode(msgspec.json.encode(cmd), type=COMMANDS)  # the API path: JSON in
        events = R.decide(state, cmd, actor, Dice(f"seed{seed}".encode(), "g_prop", len(log) + 1))
        assert events, f"{cmd} produced no event"
        for ev in events:
            state = R.evolve(state, ev)
            log.append(ev)
            R.explain(ev)
        n += 1
        for s in state.ships.values():
            assert s.hull >= 0
            assert (s.id in gone) <= (s.status == "left"), f"{s.id} came back onto the table"
            if s.status == "left":
                gone.add(s.id)
            for name, sy in s.sys.items():
                if (s.id, name) in destroyed:
                    assert sy.destroyed, f"{s.id}/{name} came back from destruction"
                if sy.destroyed:
                    destroyed.add((s.id, name))
    # replay from the encoded log equals the live state
    folded = R.initial_state(setup)
    for ev in msgspec.json.decode(msgspec.json.encode(log), type=list[EVENTS]):
        folded = R.evolve(folded, ev)
    assert folded == state
    assert msgspec.json.decode(msgspec.json.encode(state), type=R.state_type) == state
    msgspec.json.encode(R.draw(state, UMPIRE))
    return state, n


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_random_legal_games_keep_invariants(scenario: str) -> None:
    for seed in range(40):
        state, _ = play(R.scenarios()[scenario], seed)
        assert state.over or state.turn > 30


def test_random_legal_games_of_generated_fleets_never_stall() -> None:
    """Liveness on fleets nobody designed: speed 0 ships, no weapons, tractors, pods, tiny tables."""
    ended = 0
    for seed in range(60):
        state, _ = play(fleet_scenario(seed), seed, max_turns=12)
        ended += state.over
    assert ended >= 40  # most generated battles reach a result within 12 turns


def test_random_legal_games_of_three_and_four_sided_fleets_never_stall() -> None:
    """GSC2-R-21..24 under random play: liveness, fold = live state and the invariants with 3 and 4 sides."""
    ended = 0
    for seed in range(24):
        sides = ("red", "blue", "green", "yellow")[: 3 + seed % 2]
        state, _ = play(fleet_scenario(seed, sides), seed, max_turns=8)
        ended += state.over
    assert ended >= 12
