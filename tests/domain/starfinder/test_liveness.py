"""Liveness (SF-R-3, SF-R-21, issue 12/15): whenever the battle is not over, some crew seat is awaited, so the
game never waits on the umpire. Random legal play by the seats alone (options and composed forms, never the
umpire's force) over every sample scenario and over generated crews: every subset of the five roles aboard both
ships (a passenger where the subset is empty)."""

from __future__ import annotations

import itertools
import random

import pytest

from service.domain.core import Dice, RuleViolation, seat
from service.domain.starfinder.flow import awaited
from service.testing.randomplay import choices_for

from .helpers import R, crew, scenario, ship

ROLES = ("captain", "engineer", "gunner", "pilot", "science_officer")
SUBSETS = [s for n in range(len(ROLES) + 1) for s in itertools.combinations(ROLES, n)]


def _crew(roles: tuple[str, ...]) -> list[dict]:
    if not roles:
        return [crew("cook", "passenger")]
    skills = {"piloting": 5, "piloting_ranks": 2, "gunnery": 4, "engineering": 5, "computers": 5, "diplomacy": 4}
    return [crew(r, r, **skills) for r in roles]


def _generated(roles: tuple[str, ...]) -> dict:
    return scenario(
        ship("a", "pact", crew=_crew(roles), battle_stations=False),
        ship("b", "corsairs", hex=(0, -6), facing=3, crew=_crew(roles), battle_stations=False),
        round_limit=6,
    )


def _play_by_seats(raw: dict, seed: int, max_steps: int = 300) -> tuple[object, int]:
    """Seats only: any option or form but a role change, unless a role change is all a seat may do."""
    rng = random.Random(seed)  # test-only randomness: which legal command to send
    setup = R.parse_setup(raw)
    state = R.initial_state(setup)
    seats = R.seats(setup)
    for n in range(max_steps):
        if R.is_over(state):
            return state, n
        waiting = awaited(state)
        roleless = all(c.role == "passenger" for c in state.crew.values())  # only a role change can start them
        status = R.draw(state, seat(seats[0])).status
        assert waiting or roleless, f"nobody awaited in round {state.round}, {state.phase}: {status}"
        offered = [(s, c, composed) for s in seats for c, composed in choices_for(R, state, seat(s), rng)]
        acting = [x for x in offered if type(x[1]).__name__ != "ChangeRole"] or offered
        assert acting, "no seat may send anything"
        rng.shuffle(acting)
        for who, cmd, composed in acting:
            try:
                events = R.decide(state, cmd, seat(who), Dice(b"liveness-%d" % seed, "g_live", n + 1))
            except RuleViolation:
                assert composed, f"an option was refused: {cmd}"
                continue
            for ev in events:
                state = R.evolve(state, ev)
            break
    return state, max_steps


@pytest.mark.parametrize("name", sorted(R.scenarios()))
def test_sample_scenarios_never_wait_on_nobody(name: str) -> None:
    """SF-R-3."""
    for seed in (1, 2, 3):
        state, _ = _play_by_seats(R.scenarios()[name], seed)
        assert state.round >= 3 or state.over


@pytest.mark.parametrize("roles", SUBSETS, ids=lambda r: "+".join(r) or "passengers")
def test_every_crew_of_some_roles_plays_on_without_the_umpire(roles: tuple[str, ...]) -> None:
    """SF-R-3, SF-R-21: every subset of roles aboard both ships reaches the round limit or a result."""
    state, steps = _play_by_seats(_generated(roles), seed=len(roles))
    assert state.over, f"{roles}: not over after {steps} commands (round {state.round}, {state.phase})"
