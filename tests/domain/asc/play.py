"""Random legal games for ASC, driven only by options() (test support)."""

from __future__ import annotations

import random
from collections.abc import Iterator

import msgspec

from service.domain.asc import RULESET
from service.domain.asc.commands import EndPhase, Fire, ForcePhase, Move
from service.domain.asc.state import State
from service.domain.core import UMPIRE, Command, Dice, Event, RuleViolation, Viewer, seat
from service.testing.randomplay import choices_for

SIDES = ("advantaged", "disadvantaged")


def command_decoder() -> msgspec.json.Decoder:
    union = RULESET.command_types[0]
    for t in RULESET.command_types[1:]:
        union = union | t  # type: ignore[assignment]
    return msgspec.json.Decoder(union)


def event_decoder() -> msgspec.json.Decoder:
    union = RULESET.event_types[0]
    for t in RULESET.event_types[1:]:
        union = union | t  # type: ignore[assignment]
    return msgspec.json.Decoder(union)


def start(scenario: str) -> State:
    return RULESET.initial_state(RULESET.parse_setup(RULESET.scenarios()[scenario]))


def _nearest_enemy_distance(state: State, cmd: Move) -> int:
    from service.domain.asc.movement import steps_of
    from service.domain.asc.paths import trace

    st = state.status[cmd.vessel]
    hexes, _ = trace(st.hex, st.facing, steps_of(state, cmd))
    side = state.specs[cmd.vessel].side
    enemies = [s.hex for v, s in state.status.items() if state.specs[v].side != side and not s.destroyed]
    return min((hexes[-1].distance_to(h) for h in enemies), default=0)


def pick(rng: random.Random, state: State, options: list[Command]) -> Command:
    fires = [o for o in options if isinstance(o, Fire)]
    moves = [o for o in options if isinstance(o, Move)]
    others = [o for o in options if not isinstance(o, Fire | Move | EndPhase)]
    ends = [o for o in options if isinstance(o, EndPhase)]
    r = rng.random()
    if fires and r < 0.7:
        return rng.choice(fires)
    if moves and r < 0.6:
        best = min(_nearest_enemy_distance(state, m) for m in moves)
        return rng.choice([m for m in moves if _nearest_enemy_distance(state, m) == best])
    if others and r < 0.85:
        return rng.choice(others)
    if ends:
        return ends[0]
    return rng.choice(options)


def random_game(
    scenario: str, seed: int, max_commands: int = 400
) -> Iterator[tuple[State, Command, Viewer, list[Event]]]:
    """Yields (state after, command, actor, events) for each accepted command. Commands come from each
    seat's options and one random composition of each of its forms (a composition decide refuses, such
    as a final facing the allowance cannot pay for, is dropped and another choice made)."""
    rng = random.Random(seed)
    state = start(scenario)
    seq = 1
    for _ in range(max_commands):
        if RULESET.is_over(state):
            return
        per_side = [(s, [c for c, _ in choices_for(RULESET, state, seat(s), rng)]) for s in SIDES]
        per_side = [(s, o) for s, o in per_side if o]
        events = None
        for _attempt in range(10):
            if not per_side or rng.random() < 0.03:
                actor, cmd = UMPIRE, ForcePhase()
            else:
                side, opts = rng.choice(per_side)
                actor, cmd = seat(side), pick(rng, state, opts)
            try:
                events = RULESET.decide(state, cmd, actor, Dice(f"seed-{seed}".encode(), "g_random", seq))
                break
            except RuleViolation:
                continue
        assert events is not None, "no acceptable command in ten tries"
        for e in events:
            state = RULESET.evolve(state, e)
        seq += len(events)
        yield state, cmd, actor, events
