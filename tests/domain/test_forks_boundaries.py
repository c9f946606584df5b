"""A seat told it must act always has an option or a form, at every point a fork, a rewind or a view can
land on (issue 38): random legal play of every sample scenario of every ruleset, checked after every
command (a command boundary: forks and rewinds asked at a seq inside a command go on from that command's
end, service/events/replay.py ``command_end``).

Between two events of one command the state is one the command's automatic steps were leaving (GSC2: "every
ship has moved: end the movement phase", just before the phase change the same command appended), which is
why forks no longer land there; the second test keeps that reason in view."""

from __future__ import annotations

from typing import Any

import pytest

from service.domain.core import Viewer, find_ruleset, seat
from service.domain.core.registry import available_rulesets
from service.events.seat_status import seat_now
from service.testing.randomplay import play

STEPS = 80  # commands per game: enough to cross several phases and turns, quick enough for every scenario


def scenarios() -> list[tuple[str, str]]:
    return [(name, scenario) for name in available_rulesets() for scenario in find_ruleset(name).scenarios()]


def stranded(ruleset: Any, state: Any, seats: list[str]) -> list[tuple[str, str]]:
    """The seats told they must act that are offered nothing (no option, no form)."""
    out = []
    if ruleset.is_over(state):
        return out
    for name in seats:
        viewer: Viewer = seat(name)
        now = seat_now(ruleset, state, viewer)
        if now.must_act and not ruleset.options(state, viewer) and not ruleset.forms(state, viewer):
            out.append((name, now.why))
    return out


@pytest.mark.parametrize(("name", "scenario"), scenarios())
def test_every_seat_told_to_act_at_a_command_boundary_has_something_to_do(name, scenario):
    ruleset = find_ruleset(name)
    for seed in (1,):
        game = play(ruleset, ruleset.scenarios()[scenario], seed, max_steps=STEPS)
        seats = ruleset.seats(game.setup)
        boundaries = [ruleset.initial_state(game.setup), *(step.state_after for step in game.steps)]
        for k, state in enumerate(boundaries):
            assert not stranded(ruleset, state, seats), (name, scenario, seed, k, stranded(ruleset, state, seats))


def test_inside_a_command_a_seat_can_be_told_to_act_with_nothing_offered():
    """Why forks snap: a GSC2 duel's first movement command moves the last ship and ends the phase; between
    its two events both seats are told to end a phase nobody is offered to end."""
    ruleset = find_ruleset("gsc2")
    game = play(ruleset, ruleset.scenarios()["duel"], 1, max_steps=STEPS)
    seats = ruleset.seats(game.setup)
    inside = 0
    for step in game.steps:
        state = step.state_before
        for event in step.events[:-1]:
            state = ruleset.evolve(state, event)
            inside += bool(stranded(ruleset, state, seats))
    assert inside > 0
