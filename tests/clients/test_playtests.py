"""Whole-game playtests: bots in every seat of every sample scenario, to the end or the turn limit.

Every seat is played by its ruleset's "rules" bot (the random bot stands in where a ruleset lists none);
the umpire acts only on a pending duty. A game must finish with no option refused and no stall.
"""

from __future__ import annotations

import pytest

from service.domain.core import available_rulesets, find_ruleset
from service.events.bots import bots_of
from tests.clients.botplay import play

SCENARIOS = [
    (name, scenario)
    for name in available_rulesets()
    if name != "tiny"
    for scenario in sorted(find_ruleset(name).scenarios())
]


@pytest.mark.parametrize(("ruleset_name", "scenario"), SCENARIOS, ids=[f"{r}-{s}" for r, s in SCENARIOS])
def test_bots_play_every_sample_scenario_to_the_end(ruleset_name: str, scenario: str) -> None:
    ruleset = find_ruleset(ruleset_name)
    bots, _stand_ins = bots_of(ruleset)
    seats = ruleset.seats(ruleset.parse_setup(ruleset.scenarios()[scenario]))
    game = play(ruleset, scenario, {s: bots["rules"] for s in seats}, seed=7)
    assert game.stalled is None, game.stalled
    assert game.refused_options == [], game.refused_options[:5]
    assert game.over and game.steps > len(seats)


def test_random_bots_play_too() -> None:
    ruleset = find_ruleset("gsc2")
    bots, _ = bots_of(ruleset)
    game = play(ruleset, "duel", {"red": bots["random"], "blue": bots["random"]}, seed=3)
    assert game.over and game.stalled is None and game.refused_options == []
