"""The GSC2 rules-aware bot (issue 12): one-ply choices from the seat's view, options and forms only."""

from __future__ import annotations

from service.domain.core import seat
from service.domain.core.bot import RandomBot
from service.domain.core.guards import full_view
from service.domain.gsc2 import commands as C
from service.domain.gsc2.bot import RulesBot
from tests.clients.botplay import play

from .helpers import RED, R, apply, at_phase, beam, scenario, ship, started, when


def _choose(state, side="red", key=1):
    viewer = seat(side)
    return RulesBot().choose(full_view(R, state, viewer), R.options(state, viewer), R.forms(state, viewer), side, key)


def test_the_ruleset_lists_a_random_and_a_rules_bot() -> None:
    assert set(R.bots) == {"random", "rules"} and R.bots["rules"].name == "rules"


def test_it_fires_the_shot_with_the_most_expected_damage() -> None:
    """GSC2-HIT-1/2, GSC2-BEAM-4: a close, still target beats a far, deflected one."""
    raw = scenario(
        ship("a", "red", x=20, y=20, beams=[beam(klass="light", weapons=2, damage=2, targeting=5)]),
        ship("near", "blue", x=20, y=25),
        ship("far", "blue", x=20, y=39, deflectors=2),
    )
    st = at_phase(started(raw, []), "beams")  # 1 against 2: no roll-off
    # near: 5 + 2 (still) + 1 (≤ 6", short) = 8 → 80 %; far: 5 + 2 − 2 (deflectors) − 4 (19" is 4 bands) ≤ 0
    assert _choose(st) == C.Fire(ship="a", battery="b1", target="near")
    st = apply(R, st, when(R, st, C.Fire(ship="a", battery="b1", target="near"), RED, [1]))
    assert _choose(st) == C.EndPhase(side="red")  # nothing left worth doing: it ends the phase


def test_it_never_sails_off_the_table_and_turns_to_bring_its_guns_to_bear() -> None:
    """GSC2-R-18 and GSC2-BEAM-2 in the move it builds from the form."""
    raw = scenario(
        ship("a", "red", x=24, y=40, heading=0, beams=[beam(arc="F", klass="medium")]),
        ship("b", "blue", x=40, y=40),
        table={"width": 48, "height": 48},
    )
    st = started(raw, [9, 1])
    st = apply(R, st, when(R, st, C.ChooseOrder(side="red", leader="red"), RED))
    body = _choose(st)
    assert body["type"] == "gsc2.move" and body["ship"] == "a"
    [moved, _] = when(R, st, C.Move(ship="a", legs=tuple(C.Leg(**leg) for leg in body["legs"])), RED)
    assert not moved.left_table and moved.heading == 45  # it turned to bring b into its forward arc


def test_it_is_deterministic() -> None:
    st = started(R.scenarios()["fleet-action"], [9, 1])
    st = apply(R, st, when(R, st, C.ChooseOrder(side="red", leader="blue"), RED))
    side = st.order.side
    assert _choose(st, side) == _choose(st, side)


def test_it_beats_the_random_bot_in_most_duels() -> None:
    """Issue 12: the rules bot beats core.bot.RandomBot; every command it sends is accepted."""
    wins = 0
    for game_no in range(6):
        rules_side, other = ("red", "blue") if game_no % 2 == 0 else ("blue", "red")
        game = play(R, "duel", {rules_side: RulesBot(), other: RandomBot()}, seed=game_no)  # JSON views, as served
        assert game.over and not game.stalled and not game.refused_options, game.refused_options[:3]
        assert game.refused_compositions == 0
        wins += game.state.winner == rules_side
    assert wins >= 5


def test_rules_bots_play_every_sample_to_its_end() -> None:
    """Issue 12's playtest: bot against bot, no stall, every command accepted, a result."""
    for name in sorted(R.scenarios()):
        game = play(R, name, {"red": RulesBot(), "blue": RulesBot()}, seed=1)
        assert game.over and not game.stalled and not game.refused_options, (name, game.refused_options[:3])
        assert game.refused_compositions == 0  # every free move the bot built was legal
        assert game.state.result
