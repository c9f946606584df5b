"""The Starfinder rules-aware bot (issue 12): core.bot.Bot, seeing only its seat's view, options and forms."""

from __future__ import annotations

from service.domain.core.bot import RandomBot
from service.domain.starfinder.bot import StarfinderBot, damage_worth, p_success
from tests.clients.botplay import play, seat_inputs

from .helpers import A, C, R, at, duel, weapon

BOT = StarfinderBot()


def _choose(state, viewer, key: int = 1):
    view, options, forms = seat_inputs(R, state, viewer)  # exactly what the seat gets over HTTP, as JSON
    return BOT.choose(view, options, forms, viewer.seat, key)


def test_quantities_follow_the_rules() -> None:
    """SF-GUN-6: d20 + 4 ≥ 12 on 8..20; SF-DMG-2/3: 2d4 against 5 shields and DT 0."""
    assert p_success(4, 12) == 13 / 20 and p_success(0, 25) == 0 and p_success(30, 12) == 1
    # 2d4 totals 2..8: shields absorb up to 5 (worth half), the excess is hull damage
    expected = sum(
        p * (0.5 * min(5, t) + max(0, t - 5))
        for t, p in [(2, 1 / 16), (3, 2 / 16), (4, 3 / 16), (5, 4 / 16), (6, 3 / 16), (7, 2 / 16), (8, 1 / 16)]
    )
    assert abs(damage_worth("2d4", False, 5, 0, 30) - expected) < 1e-9
    assert damage_worth("2d4", False, 0, 8, 30) == 0  # SF-DMG-3: never past a threshold of 8


def test_the_gunner_declares_battle_stations_then_fires_the_shot_worth_most() -> None:
    """SF-R-13, SF-GUN-6: plasma (2d12) over a laser (2d4) against the same shields."""
    st = at(duel({"battle_stations": False, "weapons": [weapon(), weapon("plasma", damage="2d12")]}), "gunnery")
    assert _choose(st, A["gunner"]) == C.BattleStations(seat="a/gunner")
    st = at(duel({"weapons": [weapon(), weapon("plasma", damage="2d12")]}), "gunnery")
    assert _choose(st, A["gunner"]) == C.Fire(seat="a/gunner", weapon="plasma", target="b")
    assert _choose(st, A["gunner"], key=2) == _choose(st, A["gunner"], key=2)  # deterministic


def test_the_pilot_turns_its_guns_onto_the_enemy() -> None:
    """SF-MOV-1/2: b sits off a's starboard side, out of the forward laser's arc; the bot's move ends with b in it."""
    from service.domain.core.choices import to_command
    from service.domain.starfinder.geometry import arcs_of

    st = at(duel(b_hex=(4, -2), b_facing=3), "helm")
    body = _choose(st, A["pilot"])
    cmd = to_command(body, R.command_types)
    assert isinstance(cmd, C.Move | C.Evade)
    events = R.decide(st, cmd, A["pilot"], _dice())
    for ev in events:
        st = R.evolve(st, ev)
    a, b = st.ships["a"], st.ships["b"]
    assert "forward" in arcs_of(a.hex, a.facing, b.hex) and a.hex.distance_to(b.hex) <= 5


def test_it_beats_the_random_bot_in_most_games() -> None:
    setup = R.parse_setup(R.scenarios()["duel"])
    wins = 0
    for game in range(4):
        side = setup.sides[game % 2]
        ours = {s.id for s in setup.ships if s.side == side}
        bots = {s: BOT if s.split("/")[0] in ours else RandomBot() for s in R.seats(setup)}
        played = play(R, "duel", bots, seed=game)
        assert played.over and not played.stalled and not played.refused_options
        wins += played.state.winner == side
    assert wins >= 3, f"the rules bot won {wins} of 4 duels against the random bot"


def _dice():
    from service.domain.core import Dice

    return Dice(b"bot", "g_test", 1)


def test_sf_r_24_either_side_can_win_the_skirmish() -> None:
    """SF-R-24: the rules bot in every seat of the skirmish, fixed seeds: the pact wins one, the corsairs another,
    neither game stalls and decide accepts every option offered (bench/bot_games.py plays 20: 10-8, 2 draws)."""
    setup = R.parse_setup(R.scenarios()["skirmish"])
    bots = {s: StarfinderBot() for s in R.seats(setup)}
    winners = []
    for seed in (2, 12):
        game = play(R, "skirmish", bots, seed=seed, max_steps=600)
        assert game.over and game.stalled is None and game.refused_options == [], (seed, game.stalled)
        winners.append(game.state.winner)
    assert sorted(winners) == ["corsairs", "pact"], winners
