"""The campaign's rules-aware bot (issue 12): core.bot.Bot, seeing only its seat's view, options and forms,
judging one ply ahead by the campaign's own quantities; it beats the random bot by the campaign's measure."""

from __future__ import annotations

from typing import Any

from service.domain.core import UMPIRE, Dice, Viewer, seat
from service.domain.core.bot import Bot, RandomBot
from service.domain.core.choices import to_command
from service.domain.core.guards import guarded_decide
from service.domain.ftcampaign import RULESET as R
from service.domain.ftcampaign import commands as C
from service.domain.ftcampaign.bot import CampaignBot, p_surrender
from service.domain.ftcampaign.standing import standing
from service.domain.ftcampaign.state import State
from service.events.bots import candidates, must_act
from tests.clients.botplay import seat_inputs

from .builders import Camp

BOT = CampaignBot()


def _choose(state: State, viewer: Viewer, key: int = 1) -> Any:
    view, options, forms = seat_inputs(R, state, viewer)  # exactly what the seat gets over HTTP, as JSON
    return BOT.choose(view, options, forms, viewer.seat or "", key)


def test_assault_odds_follow_the_defence_rules() -> None:
    """FTC-DEF-2/3/8: a natural 6 or d6 + modifiers ≥ 6; below half the defence value it may not attack."""
    assert p_surrender(100, 0) == 1.0  # FTC-R-13: no defences, taken without a roll
    assert p_surrender(100, 500) == 0.0  # FTC-DEF-8: driven off
    assert p_surrender(300, 500) == 1 / 6  # below the defence value: −1, only a natural 6
    assert p_surrender(500, 500) == 1 / 6 and p_surrender(1000, 500) == 2 / 6 and p_surrender(3000, 500) == 1.0


def test_it_sends_a_strong_enough_group_on_attack_at_a_world_it_can_take() -> None:
    camp = (
        Camp()
        .world((0, 0), "red")
        .world((1, 0), None, 20)
        .world((-1, 0), None, 100)
        .ship("red", "bb", (0, 0))
        .ship("red", "scout", (0, 0), group="red-s")
    )
    st = camp.build()
    body = _choose(st, seat("red"))
    orders = {o["group"]: o for o in body["orders"]}
    # the battleship (450 pts) may assault the 20-income world (defence value 200, 2 in 6 to surrender), but
    # would be driven off the 100-income one (defence value 1000, FTC-DEF-8)
    assert orders["red-0,0"] == {"group": "red-0,0", "to": [1, 0], "posture": "attack"}
    assert orders["red-s"]["to"] != [-1, 0], "a scout alone is driven off by 1000 points of defences"
    cmd = to_command(body, R.command_types)
    assert R.decide(st, cmd, seat("red"), Dice(b"k", "g", 1))  # a command decide accepts
    assert _choose(st, seat("red"), key=5) == _choose(st, seat("red"), key=5)  # deterministic


def test_at_set_up_it_buys_fleet_points_then_declares_ready() -> None:
    from msgspec.structs import replace

    st = Camp().world((0, 0), "red").build()
    st = replace(st, phase="deployment", turn=0)
    cmd = _choose(st, seat("red"))
    assert isinstance(cmd, C.BuyShip) and cmd.design == "bb"  # the most points per purchase it can afford
    poor = replace(st, economies={**st.economies, "red": replace(st.economies["red"], cash=30)})
    assert isinstance(_choose(poor, seat("red")), C.Ready)


def _play(bots: dict[str, Bot], seed: int, turns: int) -> State:
    """Seats move when awaited (their bot's choice, as the service's bot seats do); the umpire does its duties."""
    state = R.initial_state(R.parse_setup(R.scenarios()["intro-duel"]))
    for step in range(2000):
        if state.over or state.turn > turns:
            break
        moved = False
        for p in state.order:
            view, options, forms = seat_inputs(R, state, seat(p))
            if not (options or forms) or not must_act(view):
                continue
            for body in candidates(bots[p], view, options, forms, p, seed * 100_003 + step):
                try:
                    events = guarded_decide(
                        R,
                        state,
                        to_command(_json(body), R.command_types),
                        seat(p),
                        Dice(b"bots-%d" % seed, "g_bots", step + 1),
                    )
                except Exception:  # noqa: BLE001 - a refused composition: the next candidate
                    continue
                for e in events:
                    state = R.evolve(state, e)
                moved = True
                break
        if not moved:
            view, options, _ = seat_inputs(R, state, UMPIRE)
            assert view["draw"]["status"]["umpire"] and options, "stalled"
            for e in guarded_decide(R, state, options[0].command, UMPIRE, Dice(b"bots-%d" % seed, "g_bots", step + 1)):
                state = R.evolve(state, e)
    return state


def _json(body: Any) -> Any:
    from service.events.bots import as_json

    return as_json(body)


def test_it_beats_the_random_bot_by_the_campaigns_own_measure() -> None:
    """Standing (ten times held income plus fleet value) after four strategic turns, seats alternated."""
    wins, games = 0, 4
    for game in range(games):
        ours, theirs = ("nac", "fsr") if game % 2 == 0 else ("fsr", "nac")
        state = _play({ours: BOT, theirs: RandomBot()}, seed=game + 1, turns=4)
        assert state.turn > 4 or state.over
        wins += standing(state, ours) > standing(state, theirs)
    assert wins >= 0.7 * games, f"won {wins} of {games}"


def test_the_rules_bot_in_every_seat_of_every_sample_campaign_never_stalls_and_no_option_is_refused() -> None:
    """Issue 36: every seat a rules bot, the umpire doing only its duties, two campaigns per sample scenario to
    their end: no stall, and decide accepts every option offered (bench/bot_games.py plays 20 of each)."""
    from tests.clients.botplay import play

    for name in sorted(R.scenarios()):
        setup = R.parse_setup(R.scenarios()[name])
        bots: dict[str, Bot] = {s: BOT for s in R.seats(setup)}
        for seed in (0, 1):
            game = play(R, name, bots, seed=seed)
            assert game.over and game.stalled is None, (name, seed, game.stalled)
            assert game.refused_options == [], (name, seed, game.refused_options[:3])
