"""Random legal campaigns for ftcampaign, driven only by options() (test support)."""

from __future__ import annotations

import random
from collections.abc import Iterator

import msgspec

from service.domain.core import UMPIRE, Command, Dice, Event, Viewer, seat
from service.domain.ftcampaign import RULESET
from service.domain.ftcampaign import commands as C
from service.domain.ftcampaign.state import State


def union(types):  # type: ignore[no-untyped-def]
    u = types[0]
    for t in types[1:]:
        u = u | t
    return u


def command_decoder() -> msgspec.json.Decoder:
    return msgspec.json.Decoder(union(RULESET.command_types))


def event_decoder() -> msgspec.json.Decoder:
    return msgspec.json.Decoder(union(RULESET.event_types))


def start(scenario: str) -> State:
    return RULESET.initial_state(RULESET.parse_setup(RULESET.scenarios()[scenario]))


QUIET = (C.EndCampaign, C.RecordRuling, C.SetMaintenance, C.CloseRoute, C.SetCloak, C.ApproveStandardNavy)


def pick(rng: random.Random, state: State, options: list[Command]) -> Command:
    useful = [o for o in options if not isinstance(o, QUIET)] or options
    orders = [o for o in useful if isinstance(o, C.SubmitOrders)]
    buys = [o for o in useful if isinstance(o, C.BuyShip)]
    if state.phase == "deployment" and buys and rng.random() < 0.8:
        return rng.choice(buys)
    if orders and rng.random() < 0.6:
        attacking = [o for o in orders if o.orders and o.orders[0].posture == "attack"]
        return rng.choice(attacking if attacking and rng.random() < 0.6 else orders)
    return rng.choice(useful)


def random_game(scenario: str, seed: int, max_commands: int = 1500,
                max_turn: int = 30) -> Iterator[tuple[State, Command, Viewer, list[Event]]]:
    """Yields (state after, command, actor, events) for each accepted command."""
    rng = random.Random(seed)
    state = start(scenario)
    seq = 1
    players = list(state.order)
    for _ in range(max_commands):
        if RULESET.is_over(state) or state.turn > max_turn:
            return
        per_seat = [(seat(p), RULESET.options(state, seat(p))) for p in players]
        per_seat = [(a, o) for a, o in per_seat if o]
        umpire_opts = RULESET.options(state, UMPIRE)
        must_umpire = not per_seat or any(isinstance(o, (C.GenerateMap, C.RecordBattle)) for o in umpire_opts)
        if must_umpire or rng.random() < 0.04:
            actor = UMPIRE
            cands = [o for o in umpire_opts if not isinstance(o, QUIET)]
            if not cands:
                continue
            cmd = rng.choice(cands)
        else:
            actor, opts = rng.choice(per_seat)
            cmd = pick(rng, state, opts)
        events = RULESET.decide(state, cmd, actor, Dice(f"seed-{seed}".encode(), "g_random", seq))
        for e in events:
            state = RULESET.evolve(state, e)
        seq += len(events)
        yield state, cmd, actor, events
