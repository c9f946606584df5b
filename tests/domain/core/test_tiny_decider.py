"""The decider protocol through the tiny test ruleset: given events, when command, then events."""

import dataclasses

from service.domain.core import SPECTATOR, UMPIRE, NotYourPiece, seat
from tests.support import tiny
from tests.support.decider import given, then_violation, when

R = tiny.RULESET


def test_a_hit_removes_one_hull_point():
    state = given(R, {"hull": 3})
    events = when(R, state, tiny.Shoot(shooter="red", target="blue"), seat("red"), [5])
    assert events == [tiny.Shot(shooter="red", target="blue", hit=True, rolls=events[0].rolls)]
    assert events[0].rolls[0].rule == "TINY-FIRE" and events[0].rolls[0].outcome == "hit"
    assert R.evolve(state, events[0]).hull["blue"] == 2


def test_a_miss_changes_nothing():
    state = given(R, {"hull": 3})
    [shot] = when(R, state, tiny.Shoot(shooter="red", target="blue"), seat("red"), [6])
    assert not shot.hit and R.evolve(state, shot) == state


def test_a_seat_cannot_act_for_another():
    state = given(R, {"hull": 3})
    violation = then_violation(R, state, tiny.Shoot(shooter="blue", target="red"), "TINY-SEAT", seat("red"))
    assert isinstance(violation, NotYourPiece)


def test_last_seat_done_moves_the_phase_on():
    state = given(R, {"hull": 3}, [tiny.PhaseDone(seat="red")])
    events = when(R, state, tiny.EndPhase(seat="blue"), seat("blue"))
    assert events == [tiny.PhaseDone(seat="blue"), tiny.PhaseAdvanced(turn=1, phase="end")]


def test_only_the_umpire_forces_the_phase():
    state = given(R, {"hull": 3})
    then_violation(R, state, tiny.ForcePhase(), "TINY-UMP", seat("red"))
    assert when(R, state, tiny.ForcePhase(), UMPIRE) == [tiny.PhaseAdvanced(turn=1, phase="end")]


def test_views_strip_secrets_of_others():
    state = given(R, {"hull": 3}, [tiny.Hidden(seat="red", secret=9)])
    assert R.view(state, seat("red"))["secrets"] == {"red": 9}
    assert R.view(state, seat("blue"))["secrets"] == {}
    assert R.view(state, SPECTATOR)["secrets"] == {}
    assert R.redact(tiny.Hidden(seat="red", secret=9), seat("blue"), state).secret is None


def test_the_game_over_guard_trusts_a_caller_that_knows_the_state_runs():
    """``guarded_decide(running=True)``: the caller asked ``is_over`` of this state already; without it
    the guard asks (and a finished game is refused before any ruleset rule)."""
    from service.domain.core import Dice, RuleViolation
    from service.domain.core.guards import GAME_OVER, guarded_decide

    asked = []

    def is_over(state):  # type: ignore[no-untyped-def]
        asked.append(state)
        return R.is_over(state)

    ruleset = dataclasses.replace(R, is_over=is_over)
    state = given(R, {"hull": 3})
    shoot = tiny.Shoot(shooter="red", target="blue")
    guarded_decide(ruleset, state, shoot, seat("red"), Dice(b"k", "g", 1), running=True)
    assert asked == []
    guarded_decide(ruleset, state, shoot, seat("red"), Dice(b"k", "g", 1))
    assert asked == [state]  # the guard's
    over = given(R, {"hull": 3, "turn_limit": 0})
    try:
        guarded_decide(ruleset, over, shoot, seat("red"), Dice(b"k", "g", 1))
    except RuleViolation as violation:
        assert violation.rule == GAME_OVER
    else:
        raise AssertionError("a finished game was not refused")
