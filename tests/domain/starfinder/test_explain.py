"""Every explanation agrees with the state it describes (issue 15): fire and damage events, over random games."""

from __future__ import annotations

import random

from service.domain.core import Dice, RuleViolation, seat
from service.domain.starfinder import events as E
from service.testing.randomplay import choices_for

from .helpers import R


def _events_with_states(name: str, seed: int, steps: int = 300):
    rng = random.Random(seed)  # test-only randomness: which legal command to send
    setup = R.parse_setup(R.scenarios()[name])
    state = R.initial_state(setup)
    for n in range(steps):
        if R.is_over(state):
            return
        offered = [
            (s, c)
            for s in R.seats(setup)
            for c, _ in choices_for(R, state, seat(s), rng)
            if type(c).__name__ != "ChangeRole"
        ]
        rng.shuffle(offered)
        for who, cmd in offered:
            try:
                events = R.decide(state, cmd, seat(who), Dice(b"explain-%d" % seed, "g_explain", n + 1))
            except RuleViolation:
                continue
            for ev in events:
                state = R.evolve(state, ev)
                yield ev, state
            break


def test_fire_and_damage_sentences_agree_with_the_state() -> None:
    seen = {E.Attacked: 0, E.DamageApplied: 0}
    for name in ("duel", "skirmish"):
        for ev, after in _events_with_states(name, seed=5):
            text = R.explain(ev)
            if isinstance(ev, E.DamageApplied):
                seen[E.DamageApplied] += 1
                ship = after.ships[ev.target]
                assert ship.hull == ev.hull and f"to {ship.hull}" in text and text.endswith(f"; {ship.status}.")
                assert ship.shields[ev.quadrant] == ev.shield and f"shields absorb {ev.absorbed}" in text
            elif isinstance(ev, E.Attacked):
                seen[E.Attacked] += 1
                if ev.total is not None:
                    roll = ev.rolls[0]
                    total = roll.value + sum(m.value for m in roll.modifiers)
                    assert total == ev.total and f"= {total} vs {ev.needed}" in text
                    assert (ev.total >= ev.needed) == ev.hit
                if ev.hit and (ev.projectile is None or ev.arrived):
                    assert f"{ev.damage} damage" in text
                    if ev.kind == "gunnery":
                        assert after.pending and after.pending[-1].damage == ev.damage
    assert seen[E.Attacked] and seen[E.DamageApplied]
