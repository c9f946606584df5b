"""Liveness (issue 15, docs/view-contract.md): whenever no seat can act and no umpire duty is pending, the
campaign moves on by itself — so random play by the players, with the umpire doing only its duties (the map,
battle results; never closing a turn), never stalls, in every sample scenario."""

from __future__ import annotations

import random

import pytest

from service.domain.core import UMPIRE, Dice, seat
from service.domain.core.choices import option_commands
from service.domain.ftcampaign import RULESET as R
from service.domain.ftcampaign import commands as C

from .play import QUIET, seat_commands, start

DUTIES = (C.GenerateMap, C.RecordBattle)


@pytest.mark.parametrize("scenario", sorted(R.scenarios()))
@pytest.mark.parametrize("seed", [1, 2])
def test_players_and_umpire_duties_alone_move_every_campaign_on(scenario: str, seed: int) -> None:
    rng = random.Random(seed)
    state = start(scenario)
    turns_seen = {state.turn}
    for n in range(600):
        if state.over or state.turn > 4:
            break
        status = R.draw(state, UMPIRE).status
        per_seat = {p: [c for c in seat_commands(rng, state, seat(p)) if not isinstance(c, QUIET)] for p in state.order}
        for s in status.seats:  # a seat told it must act has something to do
            assert not s.must_act or per_seat[s.seat], (s, state.phase)
        assert any(s.must_act for s in status.seats) or status.umpire, f"waiting on nobody: {status}"
        acting = [s.seat for s in status.seats if s.must_act]  # the game waits for them: they move it on
        if acting:
            p = rng.choice(acting)
            actor, cmd = seat(p), rng.choice(per_seat[p])
        else:
            duties = [c for c in option_commands(R.options(state, UMPIRE)) if isinstance(c, DUTIES)]
            assert status.umpire is not None and duties, f"stalled: nobody can act in {status}"
            actor, cmd = UMPIRE, duties[0]
        for e in R.decide(state, cmd, actor, Dice(b"liveness-%d" % seed, "g_live", n)):
            state = R.evolve(state, e)
        turns_seen.add(state.turn)
    assert state.over or state.turn > 4, f"only reached turn {state.turn} in 600 commands"
    assert {1, 2, 3, 4} <= turns_seen
