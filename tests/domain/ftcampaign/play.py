"""Random legal campaigns for ftcampaign, driven only by options() and forms() (test support)."""

from __future__ import annotations

import random
from collections.abc import Iterator

import msgspec

from service.domain.core import UMPIRE, Command, Dice, Event, Viewer, seat
from service.domain.core.choices import Field, compose, option_commands, to_command
from service.domain.ftcampaign import RULESET
from service.domain.ftcampaign import commands as C
from service.domain.ftcampaign.decide import run
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


def orders_picker(rng: random.Random):  # type: ignore[no-untyped-def]
    """Random destinations, attack posture more often than not (so that contacts and battles happen)."""

    def pick(f: Field, _i: int) -> object:
        if f.key == "posture":
            return "attack" if rng.random() < 0.6 else rng.choice(f.values).value
        return rng.choice(f.values).value if f.values else f.default

    return pick


def seat_commands(rng: random.Random, state: State, viewer: Viewer) -> list[Command]:
    """A seat's options, plus one random composition of each of its forms."""
    cmds = option_commands(RULESET.options(state, viewer))
    for form in RULESET.forms(state, viewer):
        cmds.append(to_command(compose(form, orders_picker(rng)), RULESET.command_types))
    return cmds


def pick(rng: random.Random, state: State, options: list[Command]) -> Command:
    useful = [o for o in options if not isinstance(o, QUIET)] or options
    orders = [o for o in useful if isinstance(o, C.SubmitOrders)]
    buys = [o for o in useful if isinstance(o, C.BuyShip)]
    if state.phase == "deployment" and buys and rng.random() < 0.8:
        return rng.choice(buys)
    if orders and rng.random() < 0.6:
        moving = [o for o in orders if o.orders]
        return rng.choice(moving if moving and rng.random() < 0.8 else orders)
    return rng.choice(useful)


def random_game(
    scenario: str, seed: int, max_commands: int = 1500, max_turn: int = 30
) -> Iterator[tuple[State, Command, Viewer, list[Event]]]:
    """Yields (state after, command, actor, events) for each accepted command; the state is the one the
    decider accumulated while deciding, not a fold of the events."""
    rng = random.Random(seed)
    state = start(scenario)
    seq = 1
    players = list(state.order)
    for _ in range(max_commands):
        if RULESET.is_over(state) or state.turn > max_turn:
            return
        per_seat = [(seat(p), seat_commands(rng, state, seat(p))) for p in players]
        per_seat = [(a, o) for a, o in per_seat if o]
        umpire_opts = option_commands(RULESET.options(state, UMPIRE))
        must_umpire = not per_seat or any(isinstance(o, (C.GenerateMap, C.RecordBattle)) for o in umpire_opts)
        if must_umpire or rng.random() < 0.04:
            actor = UMPIRE
            cands = [o for o in umpire_opts if not isinstance(o, QUIET)]
            if not cands:
                assert per_seat, f"nobody can act: {RULESET.draw(state, UMPIRE).status}"
                continue
            cmd = rng.choice(cands)
        else:
            actor, opts = rng.choice(per_seat)
            cmd = pick(rng, state, opts)
        acc = run(state, cmd, actor, Dice(f"seed-{seed}".encode(), "g_random", seq))
        state = acc.state  # the live decide path's own accumulated state; the tests fold the events apart
        seq += len(acc.events)
        yield state, cmd, actor, acc.events
