"""Random legal games drawn from options(): the round loop holds its invariants.

Invariants: no exception; every accepted command yields ≥ 1 event; fold(events) equals the live state, also
after a msgspec JSON round trip of commands and events; shields never negative nor above the maximum; a
system's condition never improves (patches count it less severe, SF-RND-2); a weapon fires at most once a
round (SF-GUN-2); a destroyed ship stays destroyed (SF-DMG-6); no two ships end a move in one hex (SF-MOV-3).
"""

from __future__ import annotations

import random
from typing import Union

import msgspec
import pytest

from service.domain.core import UMPIRE, Dice, RuleViolation, seat
from service.domain.starfinder import RULESET as R
from service.testing.randomplay import choices_for

COMMANDS = Union[tuple(R.command_types)]  # noqa: UP007
EVENTS = Union[tuple(R.event_types)]  # noqa: UP007


def _invariants(state, before) -> None:
    hexes = set()
    for sid, s in state.ships.items():
        spec = state.specs[sid]
        assert all(v >= 0 for v in s.shields.values()), f"negative shields on {sid}: {s.shields}"
        assert sum(s.shields.values()) <= spec.max_shields, f"{sid}'s shields above their maximum: {s.shields}"
        assert len(s.fired) == len(set(s.fired))
        for k, v in s.conditions.items():
            assert 0 <= v <= 3 and v >= before.ships[sid].conditions.get(k, 0)
        if before.ships[sid].status == "destroyed":
            assert s.status == "destroyed"
        if s.status != "destroyed":
            assert (s.hex.q, s.hex.r) not in hexes, f"two ships in {s.hex}"
            hexes.add((s.hex.q, s.hex.r))


def play(scenario: str, seed: int, max_rounds: int = 30, max_commands: int = 3000):
    rng = random.Random(seed)  # test-only randomness: which legal command to pick
    setup = R.parse_setup(R.scenarios()[scenario])
    state = R.initial_state(setup)
    log = []
    n = 0
    while not R.is_over(state) and state.round <= max_rounds and n < max_commands:
        # every option, plus one random composition of each form (helm orders hex by hex, shots by parts)
        offered = [
            (seat(s), c, composed) for s in R.seats(setup) for c, composed in choices_for(R, state, seat(s), rng)
        ]
        choices = [(a, c) for a, c, _ in offered]
        composed_cmds = [c for _, c, composed in offered if composed]
        acting = [x for x in choices if type(x[1]).__name__ not in ("ChangeRole",)]
        if rng.random() < 0.03 and choices:
            pick = rng.choice(choices)
        elif acting and rng.random() > 0.01:
            busy = [x for x in acting if type(x[1]).__name__ != "Pass"]
            pick = rng.choice(busy if busy and rng.random() < 0.8 else acting)
        else:
            pick = (UMPIRE, R.options(state, UMPIRE)[0].command)
        actor, cmd = pick
        cmd = msgspec.json.decode(msgspec.json.encode(cmd), type=COMMANDS)  # the API path: JSON in
        try:
            events = R.decide(state, cmd, actor, Dice(f"seed{seed}".encode(), "g_prop", len(log) + 1))
        except RuleViolation:
            assert cmd in composed_cmds, f"an option was refused: {cmd}"
            continue  # a random composition may break a rule decide checks (e.g. a turn too soon)
        assert events, f"{cmd} produced no event"
        before = state
        for ev in events:
            state = R.evolve(state, ev)
            log.append(ev)
            assert R.explain(ev)
        _invariants(state, before)
        n += 1
    decoded = msgspec.json.decode(msgspec.json.encode(log), type=list[EVENTS])
    folded = R.initial_state(setup)
    for ev in decoded:
        folded = R.evolve(folded, ev)
    assert folded == state
    assert msgspec.json.decode(msgspec.json.encode(state), type=R.state_type) == state
    msgspec.json.encode(R.view(state, UMPIRE))
    return state, n


@pytest.mark.parametrize("scenario", ["duel", "skirmish"])
def test_random_legal_games_keep_invariants(scenario: str) -> None:
    ended = 0
    for seed in range(15):
        state, _ = play(scenario, seed)
        assert state.over or state.round > 30
        ended += state.over
    assert ended, "no random game reached its end"
