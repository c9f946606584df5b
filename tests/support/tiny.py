"""A tiny ruleset that exercises the core (dice, seats, phases, hidden info). Test-only.

Two seats, red and blue, each with one ship of ``hull`` points. Phases per turn: "fire" then "end".
In "fire", a seat's ``shoot`` rolls d10 ≤ 5 to hit for 1 damage. Each seat may ``hide`` a secret
number that only it and the umpire can see. ``end_phase`` from both seats moves the phase on; the
umpire may ``force_phase``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import msgspec

from service.domain.core import (
    Actor,
    Clock,
    Command,
    Dice,
    Event,
    InvalidScenario,
    NotYourPiece,
    RuleViolation,
    Viewer,
)
from service.domain.core.choices import Option
from service.domain.core.drawing import Bar, Board, Drawing, Piece, SeatStatus, Status, pt
from service.domain.core.spec import RulesetSpec, event_tag

PHASES = ("fire", "end")


class Setup(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    hull: int = 3
    seats: tuple[str, ...] = ("red", "blue")
    turn_limit: int = 10


class Shoot(Command, tag="tiny.shoot"):
    shooter: str
    target: str


class Hide(Command, tag="tiny.hide"):
    seat: str
    secret: int


class EndPhase(Command, tag="tiny.end_phase"):
    seat: str


class ForcePhase(Command, tag="tiny.force_phase"):
    pass


class Shot(Event, tag="tiny.shot"):
    shooter: str
    target: str
    hit: bool


class Hidden(Event, tag="tiny.hidden"):
    seat: str
    secret: int | None


class PhaseDone(Event, tag="tiny.phase_done"):
    seat: str


class PhaseAdvanced(Event, tag="tiny.phase_advanced"):
    turn: int
    phase: str


class State(msgspec.Struct, frozen=True):
    hull: dict[str, int]
    secrets: dict[str, int]
    done: tuple[str, ...] = ()
    turn: int = 1
    phase: str = "fire"
    turn_limit: int = 10


def scenarios() -> dict[str, dict[str, Any]]:
    return {"duel": {"hull": 3}, "long": {"hull": 1000, "turn_limit": 100000}}


def validate_setup(setup: Setup) -> None:
    if setup.hull < 1:
        raise InvalidScenario("hull", "must be at least 1")


def seats(setup: Setup) -> list[str]:
    return list(setup.seats)


def initial_state(setup: Setup) -> State:
    return State({s: setup.hull for s in setup.seats}, {}, turn_limit=setup.turn_limit)


def clock(state: State) -> Clock:
    return Clock(state.turn, state.phase)


def is_over(state: State) -> bool:
    return any(h <= 0 for h in state.hull.values()) or state.turn > state.turn_limit


def decide(state: State, command: Command, actor: Actor, dice: Dice) -> list[Event]:
    if is_over(state):
        raise RuleViolation("TINY-END", "the game is over")
    if isinstance(command, ForcePhase):
        if not actor.is_umpire:
            raise RuleViolation("TINY-UMP", "only the umpire may force the phase on")
        return [_advance(state)]
    owner = command.shooter if isinstance(command, Shoot) else command.seat  # type: ignore[attr-defined]
    if not actor.is_umpire and actor.seat != owner:
        raise NotYourPiece("TINY-SEAT", f"seat {actor.seat} cannot act for {owner}")
    if isinstance(command, Shoot):
        if state.phase != "fire":
            raise RuleViolation("TINY-FIRE", "shooting only in the fire phase")
        if command.target not in state.hull or command.target == command.shooter:
            raise RuleViolation("TINY-TARGET", f"no enemy ship {command.target!r}")
        roll = dice.roll_under(10, "to-hit", "TINY-FIRE", 5, success="hit", failure="miss")
        return [Shot(shooter=command.shooter, target=command.target, hit=roll.outcome == "hit", rolls=(roll,))]
    if isinstance(command, Hide):
        return [Hidden(seat=command.seat, secret=command.secret)]
    if isinstance(command, EndPhase):
        if command.seat in state.done:
            raise RuleViolation("TINY-DONE", "already done this phase")
        events: list[Event] = [PhaseDone(seat=command.seat)]
        if len(state.done) + 1 == len(state.hull):
            events.append(_advance(state))
        return events
    raise RuleViolation("TINY-CMD", "unknown command")


def _advance(state: State) -> PhaseAdvanced:
    if state.phase == "fire":
        return PhaseAdvanced(turn=state.turn, phase="end")
    return PhaseAdvanced(turn=state.turn + 1, phase="fire")


def evolve(state: State, event: Event) -> State:
    if isinstance(event, Shot):
        if not event.hit:
            return state
        hull = dict(state.hull)
        hull[event.target] -= 1
        return msgspec.structs.replace(state, hull=hull)
    if isinstance(event, Hidden):
        secrets = dict(state.secrets)
        secrets[event.seat] = event.secret if event.secret is not None else 0
        return msgspec.structs.replace(state, secrets=secrets)
    if isinstance(event, PhaseDone):
        return msgspec.structs.replace(state, done=(*state.done, event.seat))
    if isinstance(event, PhaseAdvanced):
        return msgspec.structs.replace(state, turn=event.turn, phase=event.phase, done=())
    return state


def options(state: State, viewer: Viewer) -> list[Option]:
    if viewer.kind == "spectator" or is_over(state):
        return []
    if viewer.is_umpire:
        return [Option(command=ForcePhase(), label="force phase")]
    me = viewer.seat or ""
    out: list[Option] = []
    if state.phase == "fire":
        out += [Option(command=Shoot(shooter=me, target=t), label="shoot") for t in state.hull if t != me]
    if me not in state.done:
        out.append(Option(command=EndPhase(seat=me), label="end phase"))
    return out


def redact(event: Event, viewer: Viewer, state: State) -> Event | None:
    if isinstance(event, Hidden) and not viewer.is_umpire and viewer.seat != event.seat:
        return msgspec.structs.replace(event, secret=None)
    return event


def view(state: State, viewer: Viewer) -> dict[str, Any]:
    secrets = {s: v for s, v in state.secrets.items() if viewer.is_umpire or viewer.seat == s}
    return {
        "turn": state.turn,
        "phase": state.phase,
        "hull": state.hull,
        "secrets": secrets,
        "done": list(state.done),
    }


def draw(state: State, viewer: Viewer) -> Drawing:
    over = is_over(state)
    seats = tuple(
        SeatStatus(
            s,
            must_act=not over and s not in state.done,
            why="game over" if over else ("ended the phase" if s in state.done else f"{state.phase} phase"),
        )
        for s in state.hull
    )
    you = next((x for x in seats if x.seat == viewer.seat), None) if viewer.kind == "seat" else None
    pieces = tuple(
        Piece(
            id=s,
            kind="ship",
            label=f"{s} ship",
            at=pt(2 + 6 * i, 5),
            side=s,
            status="destroyed" if h <= 0 else "active",
            bars=(Bar("hull", h, 3),),
            mine=viewer.seat == s,
        )
        for i, (s, h) in enumerate(state.hull.items())
    )
    return Drawing(
        board=Board(kind="plane", units="inches", width=10, height=10),
        pieces=pieces,
        status=Status(
            turn=state.turn, phase=state.phase, phase_label=state.phase.title(), seats=seats, you=you, over=over
        ),
        sides=tuple(state.hull),
    )


def explain(event: Event) -> str:
    if isinstance(event, Shot):
        return f"{event.shooter} fires at {event.target}: {'hit' if event.hit else 'miss'}"
    return event_tag(event)


RULESET: RulesetSpec[State, Setup] = RulesetSpec(
    name="tiny",
    version="1.0",
    title="Tiny test ruleset",
    hidden_information=True,  # each seat's secret is its own
    setup_type=Setup,
    state_type=State,
    command_types=(Shoot, Hide, EndPhase, ForcePhase),
    event_types=(Shot, Hidden, PhaseDone, PhaseAdvanced),
    scenarios=scenarios,
    validate_setup=validate_setup,
    seats=seats,
    initial_state=initial_state,
    clock=clock,
    is_over=is_over,
    decide=decide,
    evolve=evolve,
    options=options,
    redact=redact,
    view=view,
    draw=draw,
    explain=explain,
)


# Tiny with open dice (hidden_information=False: each turn's seed is revealed to everyone, as in GSC2 or
# Starfinder, so its turns are committed without a Merkle tree): ``bench_ws_callgrind.py --open-dice``.
OPEN_DICE_RULESET = dataclasses.replace(RULESET, hidden_information=False)
