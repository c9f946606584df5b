"""Issue 15: every explain sentence and report field agrees with the state it describes, for detection,
fire and damage events, over random legal games of both sample scenarios (ASC-DET-2, ASC-DET-3,
ASC-DET-5, ASC-FIRE-5, ASC-SCR-1, ASC-DMG-1)."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from service.domain.asc import RULESET as R
from service.domain.asc.events import DamageTaken, DetectionAttempted, ShotResolved
from service.domain.asc.state import State

from .play import random_game, start


def _check_detection(before: State, after: State, e: DetectionAttempted) -> None:
    text = R.explain(e)
    assert e.target not in before.auto_detected.get(e.side, ()), "a radiating vessel was rolled for (ASC-DET-2)"
    (roll,) = e.rolls
    total = roll.value + sum(m.value for m in roll.modifiers)
    if e.success:
        assert total >= 10 and roll.outcome == "detected"
        assert text.startswith(f"{e.vessel} detected and locked {e.target} (lock range {e.rating} hexes)")
        held = {lk.target: lk.rating for lk in after.locks.get(e.vessel or "", ())}
        assert held.get(e.target or "") == e.rating > 0, "the reported lock range is the lock kept (ASC-DET-5)"
    else:
        assert e.rating == 0 and "failed to detect" in text and "detected and locked" not in text
        assert roll.outcome in ("not detected", "nothing found")
        assert e.target is None or total < 10
        assert after.locks.get(e.vessel or "") == before.locks.get(e.vessel or "")


def _check_shot(before: State, after: State, e: ShotResolved) -> None:
    text = R.explain(e)
    assert f"fired with {e.weapon} at {e.target}: {e.outcome}" in text
    landed = [s for s in e.strikes if not s.blocked]
    if e.strikes:
        assert f"{len(landed)} strike(s) landed, {len(e.strikes) - len(landed)} blocked by screens" in text
    hit_rolls = [r for r in e.rolls if r.rule == "ASC-FIRE-5"]
    if e.outcome == "direct":
        assert not hit_rolls and "direct strike" in text
    elif e.outcome in ("hit", "miss"):
        (roll,) = hit_rolls
        total = roll.value + sum(m.value for m in roll.modifiers)
        assert (total >= 7) == (e.outcome == "hit") and roll.outcome == e.outcome
    if e.outcome in ("miss", "void"):
        assert not e.strikes and not e.missile_killed
    assert e.target is not None
    grew = len(after.pending.get(e.target, ())) - len(before.pending.get(e.target, ()))
    assert grew == len(landed), "the strikes reported landed are the damage waiting for damage control"
    screens = [r for r in e.rolls if r.rule in ("ASC-SCR-1", "ASC-SCR-2")]
    assert [r.outcome for r in screens] == ["blocked" if s.blocked else "through" for s in e.strikes][: len(screens)]


def _check_damage(before: State, after: State, e: DamageTaken) -> None:
    text = R.explain(e)
    assert after.status[e.vessel] == e.status
    hull = sum(int(m.group(1)) for n in e.notes if (m := re.match(r"(\d+) hull", n)))
    assert e.status.hull_damage - before.status[e.vessel].hull_damage == hull
    landed = before.pending.get(e.vessel, ())
    assert hull == sum(s.damage for s in landed if s.location == "hull")
    assert text == f"{e.vessel} takes its damage: {', '.join(e.notes) or 'no effect'}."


@pytest.mark.parametrize("scenario", ["frigate-screen", "ambush"])
def test_explanations_and_reports_agree_with_the_state(scenario: str) -> None:
    seen: Counter[str] = Counter()
    for seed in range(4):
        state = start(scenario)
        for _live, _cmd, _actor, events in random_game(scenario, seed):
            for e in events:
                after = R.evolve(state, e)
                if isinstance(e, DetectionAttempted):
                    _check_detection(state, after, e)
                elif isinstance(e, ShotResolved):
                    _check_shot(state, after, e)
                elif isinstance(e, DamageTaken):
                    _check_damage(state, after, e)
                seen[type(e).__name__] += 1
                state = after
    assert seen["DetectionAttempted"] and seen["ShotResolved"] and seen["DamageTaken"], seen
