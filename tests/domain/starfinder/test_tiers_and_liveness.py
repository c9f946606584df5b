"""Fractional tiers (SF-R-22), bounded role changes (SF-R-23) and no push on malfunctioning engines in the forms
(SF-DMG-5); with bots on every seat of every sample scenario no game stalls and no option is refused."""

from __future__ import annotations

import pytest

from service.domain.core import InvalidScenario
from service.domain.core.choices import option_commands
from service.domain.starfinder.bot import StarfinderBot
from service.domain.starfinder.scenario import tier_dc
from tests.clients.botplay import play

from .helpers import A, B, C, E, R, apply, at, duel, given, of, place, scenario, ship, then_violation, when

AWAY = (0, -9)


@pytest.mark.parametrize(
    "tier, dc10, dc15, dc20",
    [("1/4", 10, 15, 20), ("1/3", 10, 15, 20), ("1/2", 11, 16, 21), (0, 10, 15, 20), (3, 16, 21, 26)],
)
def test_sf_r_22_fractional_tiers_round_down_2_x_tier(tier, dc10: int, dc15: int, dc20: int) -> None:
    """SF-R-22: DC = base + 2 × tier rounded down: ½ adds 1 (10 + 2 × ½ = 11), ⅓ adds 0 (10.67 → 10), ¼ adds 0."""
    assert (tier_dc(10, tier), tier_dc(15, tier), tier_dc(20, tier)) == (dc10, dc15, dc20)


def test_sf_r_22_a_tier_half_ship_is_set_up_and_its_checks_use_dc_11() -> None:
    """SF-R-22 through decide: a tier-½ ship's evade is DC 11 (d20 4 + Piloting 5 + speed 8's 0 = 9 fails by 2),
    flip and burn DC 16, and an enemy scanning it faces DC 11; the data sheet shows "1/2"."""
    st = at(duel({"tier": "1/2"}, b_hex=AWAY), "helm")
    [m] = of(when(R, st, C.Evade(seat="a/pilot", path="F"), A["pilot"], [4]), E.ShipMoved)
    assert (m.dc, m.margin, m.success) == (11, -2, False)
    [m] = of(when(R, st, C.FlipAndBurn(seat="a/pilot", hexes=1), A["pilot"], [11]), E.ShipMoved)
    assert (m.dc, m.margin) == (16, 0)
    sci = at(duel({"tier": "1/2"}, b_hex=AWAY), "helm", order=("b", "a"))
    [scan] = when(R, sci, C.Scan(seat="b/science", target="a"), B["science"], [6])  # 6 + Computers 5 = 11
    assert (scan.dc, scan.success) == (11, True)
    assert "(Computers, DC 11)" in next(
        o.label for o in R.options(sci, B["science"]) if o.command == C.Scan(seat="b/science", target="a")
    )
    piece = next(p for p in R.draw(st, A["pilot"]).pieces if p.id == "a")
    assert piece.detail.startswith("tier 1/2 Medium")


def test_sf_r_22_only_the_three_fractions_are_tiers() -> None:
    """SF-R-22, rejection: "2/3", "half" and a negative tier are refused naming the field."""
    for bad in ("2/3", "half", -1):
        with pytest.raises(InvalidScenario) as info:
            R.parse_setup(scenario(ship("a", "pact", tier=bad), ship("b", "corsairs", hex=(0, -4))))
        assert info.value.path == "ships[0].tier"
    assert (
        R.parse_setup(scenario(ship("a", "pact", tier="1/4"), ship("b", "corsairs", hex=(0, -4)))).ships[0].tier
        == "1/4"
    )


def test_sf_r_23_two_role_requests_a_round_then_none_until_the_next() -> None:
    """SF-R-23: a seat may ask for a new role twice a round (a request and one change of mind); the third is
    refused and no longer offered; asking again for the role already pending is refused (SF-ROLE-3)."""
    st = duel()
    seat = A["engineer"]
    st = apply(R, st, when(R, st, C.ChangeRole(seat="a/engineer", role="gunner"), seat))
    then_violation(R, st, C.ChangeRole(seat="a/engineer", role="gunner"), "SF-ROLE-3", seat)  # idempotent
    st = apply(R, st, when(R, st, C.ChangeRole(seat="a/engineer", role="science_officer"), seat))
    assert st.crew["a/engineer"].next_role == "science_officer" and st.crew["a/engineer"].role_requests == 2
    v = then_violation(R, st, C.ChangeRole(seat="a/engineer", role="gunner"), "SF-R-23", seat)
    assert "next round" in v.detail
    assert not [c for c in option_commands(R.options(st, seat)) if isinstance(c, C.ChangeRole)]
    nxt = R.evolve(st, E.RoundStarted(round=2, roles={"a/engineer": "science_officer"}))
    assert nxt.crew["a/engineer"].role_requests == 0 and nxt.crew["a/engineer"].role == "science_officer"
    assert when(R, nxt, C.ChangeRole(seat="a/engineer", role="gunner"), seat)


def test_sf_dmg_5_malfunctioning_engines_leave_only_move_and_turn_in_place_in_the_forms() -> None:
    """SF-DMG-5: no push action with malfunctioning engines: the helm forms offer the plain move and turning in
    place only, the ready options no stunt; every offered helm option is accepted by decide."""
    st = at(place(duel(b_hex=AWAY), "a", 0, 0, conditions={"engines": 2}), "helm")
    assert [f.command for f in R.forms(st, A["pilot"])] == ["starfinder.move", "starfinder.turn_in_place"]
    offered = option_commands(R.options(st, A["pilot"]))
    assert offered and not [c for c in offered if not isinstance(c, C.Move | C.Pass | C.ChangeRole)]
    for cmd in offered:
        when(R, st, cmd, A["pilot"], None)
    then_violation(R, st, C.Evade(seat="a/pilot", path="F"), "SF-DMG-5", A["pilot"])
    glitching = at(place(duel(b_hex=AWAY), "a", 0, 0, conditions={"engines": 1}), "helm")
    assert "starfinder.evade" in [f.command for f in R.forms(glitching, A["pilot"])]


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(R.scenarios()))
def test_sf_r_23_bots_on_every_seat_never_stall_and_no_option_is_refused(name: str) -> None:
    """SF-R-3, SF-R-23, SF-DMG-5: the rules bot in every seat of each sample scenario, 5 games (bench/bot_games.py
    plays 20): each ends, no seat livelocks, and decide accepts every option it was offered (damaged ships
    included: the games run to the end)."""
    setup = R.parse_setup(R.scenarios()[name])
    bots = {s: StarfinderBot() for s in R.seats(setup)}
    for seed in range(5):
        game = play(R, name, bots, seed=seed, max_steps=600)
        assert game.over and game.stalled is None, (seed, game.stalled)
        assert game.refused_options == [], (seed, game.refused_options[:3])


def _random_play_from(state, seed: int, max_steps: int = 300):
    """Random legal play by the seats (the umpire only when no seat can act) from ``state``: (state, options
    decide refused, stalled)."""
    import random

    from service.domain.core import UMPIRE, Dice, RuleViolation, seat
    from service.domain.core.guards import guarded_decide
    from service.testing.randomplay import choices_for

    rng = random.Random(seed)  # test-only randomness: which legal command to send
    seats = R.seats(state.setup) if hasattr(state, "setup") else sorted(state.crew)
    refused: list[str] = []
    for n in range(max_steps):
        if R.is_over(state):
            return state, refused, False
        choices = [(seat(s), *c) for s in seats for c in choices_for(R, state, seat(s), rng)]
        choices = choices or [(UMPIRE, *c) for c in choices_for(R, state, UMPIRE, rng)]
        rng.shuffle(choices)
        for actor, cmd, composed in choices[:20]:
            try:
                events = guarded_decide(R, state, cmd, actor, Dice(b"damaged-%d" % seed, "g_dmg", n + 1))
            except RuleViolation as exc:
                if not composed:
                    refused.append(f"{cmd}: {exc.rule} {exc.detail}")
                continue
            for ev in events:
                state = R.evolve(state, ev)
            break
        else:
            return state, refused, True
    return state, refused, False


def _damaged(state):
    """Every ship with malfunctioning engines and power core, glitching sensors and weapons, half its hull."""
    for sid, s in state.ships.items():
        conditions = {"engines": 2, "power_core": 2, "sensors": 1, "weapons_forward": 1}
        state = place(state, sid, s.hex.q, s.hex.r, conditions=conditions, hull=max(1, s.hull // 2))
    return state


@pytest.mark.parametrize("name", sorted(R.scenarios()))
def test_sf_dmg_5_random_play_from_damaged_ships_never_gets_an_option_refused(name: str) -> None:
    """SF-DMG-5, SF-R-23: random play from options and forms, every ship already damaged (no push actions, −4 to
    most checks): decide accepts every option offered and the game never stalls."""
    start = _damaged(given(R, R.scenarios()[name]))
    assert all(s.condition("engines") == 2 for s in start.ships.values())
    for seed in range(6):
        _, refused, stalled = _random_play_from(start, seed)
        assert refused == [] and not stalled, (seed, refused[:2])
