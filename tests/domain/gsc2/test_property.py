"""Random legal games drawn from options(): the whole turn loop holds its invariants.

Invariants: no exception; every accepted command yields ≥ 1 event; fold(events) equals the live state;
hull never negative; a destroyed system is never repaired (GSC2-SYS-1..5, GSC2-REP-1).
"""

from __future__ import annotations

import random

import msgspec
import pytest

from service.domain.core import UMPIRE, Dice, seat
from service.domain.gsc2 import RULESET as R

from .helpers import offered

SCENARIOS = ("duel", "fleet-action", "boarding-action")


def play(scenario: str, seed: int, max_turns: int = 30, max_commands: int = 4000) -> tuple[object, int]:
    rng = random.Random(seed)  # test-only randomness: which legal command to pick
    setup = R.parse_setup(R.scenarios()[scenario])
    state = R.initial_state(setup)
    log = []
    destroyed: set[tuple[str, str]] = set()
    n = 0
    while not R.is_over(state) and state.turn <= max_turns and n < max_commands:
        choices = [(seat(s), c) for s in R.seats(setup) for c in offered(state, seat(s))]
        if not choices:
            choices = [(UMPIRE, c) for c in offered(state, UMPIRE)]
        elif rng.random() < 0.01:
            choices = [(UMPIRE, c) for c in offered(state, UMPIRE)]
        assert choices, f"nobody can act in {R.clock(state)}"
        # prefer doing things over ending phases so games actually fight
        acting = [c for c in choices if c[1].__struct_config__.tag != "gsc2.end_phase"]
        actor, cmd = rng.choice(acting if acting and rng.random() < 0.85 else choices)
        raw = msgspec.json.encode(cmd)  # the API path: JSON in, decoded into the command union
        cmd = msgspec.json.decode(raw, type=_union())
        events = R.decide(state, cmd, actor, Dice(f"seed{seed}".encode(), "g_prop", len(log) + 1))
        assert events, f"{cmd} produced no event"
        for ev in events:
            state = R.evolve(state, ev)
            log.append(ev)
            R.explain(ev)
        n += 1
        for s in state.ships.values():
            assert s.hull >= 0
            for name, sy in s.sys.items():
                if (s.id, name) in destroyed:
                    assert sy.destroyed, f"{s.id}/{name} came back from destruction"
                if sy.destroyed:
                    destroyed.add((s.id, name))
    # replay from the encoded log equals the live state
    decoded = msgspec.json.decode(msgspec.json.encode(log), type=list[_event_union()])
    folded = R.initial_state(setup)
    for ev in decoded:
        folded = R.evolve(folded, ev)
    assert folded == state
    assert msgspec.json.decode(msgspec.json.encode(state), type=R.state_type) == state
    R.view(state, UMPIRE)
    return state, n


def _union():
    from typing import Union

    return Union[tuple(R.command_types)]  # noqa: UP007


def _event_union():
    from typing import Union

    return Union[tuple(R.event_types)]  # noqa: UP007


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_random_legal_games_keep_invariants(scenario: str) -> None:
    for seed in range(40):
        state, _ = play(scenario, seed)
        assert state.over or state.turn > 30
